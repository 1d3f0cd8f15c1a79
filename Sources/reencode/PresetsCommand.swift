import Foundation
import Pipeline
import Recipe

struct PresetsCommand: Command {
    static let name = "presets"
    static let abstract = "List the output-settings presets, or those that suit a source."
    static let usage = "reencode presets [RECIPE] [-i INPUT] [--json]"
    static let help = """
        OVERVIEW: \(abstract) Sizes are boxes the picture is fitted inside, never
        upscaled; what a preset leaves open the settings assistant derives from the source.
        With RECIPE, the recipe's own presets are listed first.

        With -i, each preset is planned on INPUT as 'plan' would plan it (nothing is written)
        and listed under 'suits' with what it would write and the containers that could hold
        that, or under 'does not suit' with why: it gives what a preset with a smaller box
        gives (presets never upscale), it is for audio only and drops the pictures, the source
        has no video for it, or the settings do not fit the source (the planner's error).

        USAGE: \(usage)

        OPTIONS:
          -i, --input INPUT  The source to try every preset on.
          --json             Print the catalogue (or, with -i, each preset's fit) as JSON.
          -h, --help         Show help information.

        EXIT STATUS: 0 ok, 64 usage, 65 invalid recipe, 66 recipe or input missing or not media.
        """

    let recipe: String?
    let input: String?
    let json: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json"], options: ["-i", "--input"], usage: Self.usage)
        guard a.positionals.count <= 1 else { throw UsageError(message: "unexpected argument '\(a.positionals[1])'", usage: Self.usage) }
        recipe = a.positionals.first
        input = try a.value("-i", "--input")
        json = a.flag("--json")
    }

    func run() -> Int32 {
        var r = Recipe(file: "presets", lines: [])
        if let recipe {
            switch loadRecipe(recipe) { case .success(let x): r = x; case .failure(let f): return f.code }
        }
        if let input { return fits(r, source: input) }
        if json {
            writeOut(jsonString(r.presetCatalogue.map(Self.object)))
        } else {
            for p in r.presetCatalogue {
                writeOut("\(padded(p.name, 22))\(p.summary ?? "")")
            }
        }
        return ExitCode.ok
    }

    /// `-i`: every preset tried on the source, those that suit it first.
    private func fits(_ r: Recipe, source: String) -> Int32 {
        // The source is read once here so that a missing or broken one is one error, not one a preset.
        let asset: Asset
        do throws(MediaError) { asset = try Asset.load(source) } catch { return report(error) }
        let fits = PresetFit.evaluate(r, source: source)
        if json {
            writeOut(jsonString(["source": asset.path, "presets": fits.map(Self.object)] as [String: Any]))
            return ExitCode.ok
        }
        // The source's first line and its tracks, as `inspect` shows them.
        let described = AssetText.describe(asset).components(separatedBy: "\n")
        var lines = [described[0]] + described.dropFirst().filter { $0.hasPrefix("  #") }
        let suits = fits.filter(\.suits), others = fits.filter { !$0.suits }
        lines.append("")
        lines.append("suits this source (\(suits.count))")
        for f in suits {
            lines.append("  \(padded(f.preset, 22))\(f.result ?? "")  →  \(f.containers.map(\.rawValue).joined(separator: ", "))")
        }
        lines.append("")
        lines.append("does not suit it (\(others.count))")
        for f in others { lines.append("  \(padded(f.preset, 22))\(f.unsuitable ?? "")") }
        writeOut(lines.joined(separator: "\n"))
        return ExitCode.ok
    }

    static func object(_ f: PresetFit) -> [String: Any] {
        ["name": f.preset, "summary": f.summary ?? "", "suits": f.suits, "result": f.result ?? NSNull(),
         "why": f.unsuitable ?? NSNull(), "containers": f.containers.map(\.rawValue)]
    }

    static func object(_ p: PresetDefinition) -> [String: Any] {
        var o: [String: Any] = ["name": p.name, "summary": p.summary ?? ""]
        if !BuiltinPresets.audioOnly.contains(p.name) { o["video"] = SettingsJSON.video(p.video) }
        o["audio"] = SettingsJSON.audio(p.audio)
        return o
    }
}

/// Settings as recipe keys → values (only what is set, every key `SettingKey` lists).
enum SettingsJSON {
    static func video(_ v: VideoSettings) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: v.setKeys.compactMap { key in key.value(video: v).map { (key.rawValue, $0 as Any) } })
    }

    static func audio(_ a: AudioSettings) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: a.setKeys.compactMap { key in key.value(audio: a).map { (key.rawValue, $0 as Any) } })
    }
}
