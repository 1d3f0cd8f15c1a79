import Foundation
import Pipeline
import Recipe

struct PresetsCommand: Command {
    static let name = "presets"
    static let abstract = "List the built-in output-settings presets."
    static let usage = "reencode presets [--json]"
    static let help = """
        OVERVIEW: \(abstract) Sizes are boxes the picture is fitted inside, never
        upscaled; what a preset leaves open the settings assistant derives from the source.

        USAGE: \(usage)

        OPTIONS:
          --json          Print the catalogue as JSON.
          -h, --help      Show help information.
        """

    let json: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json"], options: [], usage: Self.usage)
        guard a.positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(a.positionals[0])'", usage: Self.usage) }
        json = a.flag("--json")
    }

    func run() -> Int32 {
        if json {
            writeOut(jsonString(BuiltinPresets.all.map(Self.object)))
        } else {
            for p in BuiltinPresets.all {
                writeOut("\(p.name.padding(toLength: 22, withPad: " ", startingAt: 0))\(p.summary ?? "")")
            }
        }
        return ExitCode.ok
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
