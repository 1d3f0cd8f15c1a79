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

/// Settings as recipe keys → values (only what is set).
enum SettingsJSON {
    static func video(_ v: VideoSettings) -> [String: Any] {
        var o: [String: Any] = [:]
        if let c = v.codec { o["codec"] = c.rawValue }
        if let w = v.width { o["width"] = w }
        if let h = v.height { o["height"] = h }
        switch v.frameRate {
        case .rate(let r)?: o["frame-rate"] = r.description
        case .source?: o["frame-rate"] = "source"
        case nil: break
        }
        if let p = v.frameRatePolicy { o["frame-rate-policy"] = p.rawValue }
        if let q = v.quality { o["quality"] = q }
        if let b = v.bitrate { o["bitrate"] = b }
        if let b = v.maxBitrate { o["max-bitrate"] = b }
        if let p = v.profile { o["profile"] = p }
        if let l = v.level { o["level"] = l }
        if let f = v.pixelFormat { o["pixel-format"] = f }
        if let h = v.hdr { o["hdr"] = h.rawValue }
        if let d = v.deinterlace { o["deinterlace"] = d.rawValue }
        if !v.codecOptions.isEmpty { o["codec-options"] = v.codecOptions }
        return o
    }

    static func audio(_ a: AudioSettings) -> [String: Any] {
        var o: [String: Any] = [:]
        if let c = a.codec { o["codec"] = c.rawValue }
        if let b = a.bitrate { o["bitrate"] = b }
        if let r = a.sampleRate { o["sample-rate"] = r }
        if let c = a.channels { o["channels"] = c }
        if let l = a.channelLayout { o["channel-layout"] = l }
        if !a.codecOptions.isEmpty { o["codec-options"] = a.codecOptions }
        return o
    }
}
