import Foundation
import Pipeline
import Recipe
import Testing

/// `plan` says what the output really gets: every resolved setting of a table of recipes is
/// compared with ffprobe's reading of the file `run` writes from the same recipe.
@Suite("plan tells the truth")
struct PlanTruthCLITests {
    static let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `key=value` lines of ffprobe's `-show_entries stream=…` for one stream.
    static func probe(_ file: String, _ stream: String, _ entries: String) throws -> [String: String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffprobe!)
        p.arguments = ["-v", "error", "-select_streams", stream, "-show_entries", "stream=\(entries)", "-of", "default=nw=1", file]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var d: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            d[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return d
    }

    static func plan(_ recipe: String, _ src: String, _ out: String) throws -> [String: Any] {
        let r = try Binary.run(["plan", recipe, "-i", src, "-o", out, "--json"], timeLimit: 60)
        try #require(r.status == 0, "plan: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// setting → (value, origin) of one output track of a plan.
    static func settings(_ plan: [String: Any], track: Int) -> [String: (value: String, origin: String, rule: String)] {
        let tracks = plan["tracks"] as? [[String: Any]] ?? []
        guard track < tracks.count else { return [:] }
        var d: [String: (String, String, String)] = [:]
        for s in tracks[track]["settings"] as? [[String: Any]] ?? [] {
            d[s["setting"] as? String ?? ""] = (s["value"] as? String ?? "", s["origin"] as? String ?? "", s["rule"] as? String ?? "")
        }
        return d
    }

    static func recipe(_ dir: Scratch, video: String, audio: String) throws -> String {
        let path = dir.file("r.yaml")
        try """
        recipe: 1
        presets:
          fast: { codec: h264, quality: 30, codec-options: { preset: ultrafast } }
        reader:
          outputs:
            v: { track: video }
            a: { track: audio }
        writer:
          inputs:
            - { source: v, settings: \(video) }
            - { source: a, settings: \(audio) }

        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("plan --json against ffprobe of the output, for a table of recipes: codec, size, pixel format, profile, level, sample rate, channels, layout", arguments: [
        ("{ codec: h264, codec-options: { preset: ultrafast } }", "{ codec: aac }"),
        ("{ codec: h264, width: 96, codec-options: { preset: veryfast } }", "{ codec: aac, channel-layout: \"2.1\" }"),
        ("{ base: fast, pixel-format: yuv444p }", "{ codec: aac, channels: 1, sample-rate: 44100 }"),
        ("{ codec: hevc, codec-options: { preset: ultrafast } }", "{ codec: aac, channel-layout: \"5.1\" }"),
        ("{ codec: h264, profile: main, codec-options: { preset: fast } }", "{ codec: aac, channel-layout: quad }"),
        ("{ codec: hevc, level: \"5.1\", pixel-format: yuv420p10le, codec-options: { preset: ultrafast } }", "{ codec: aac, channel-layout: mono }"),
    ])
    func planMatchesOutput(_ video: String, _ audio: String) throws {
        try #require(Self.ffprobe != nil, "ffprobe is needed")
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, video: video, audio: audio)
        let out = dir.file("out.mp4")
        let plan = try Self.plan(recipe, src, out)
        let run = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"], timeLimit: 120)
        try #require(run.status == 0, "run: \(run.stderr)")

        let v = Self.settings(plan, track: 0)
        let pv = try Self.probe(out, "v:0", "codec_name,width,height,pix_fmt,profile,level")
        #expect(pv["codec_name"] == v["codec"]?.value, "\(video)")
        #expect("\(pv["width"] ?? "")x\(pv["height"] ?? "")" == v["size"]?.value, "\(video)")
        #expect(pv["pix_fmt"] == v["pixel-format"]?.value, "\(video)")
        // ffprobe names the profile as FFmpeg does ("Constrained Baseline", "High 4:4:4 Predictive").
        let said = v["profile"]?.value ?? ""
        func plain(_ s: String) -> String { s.lowercased().filter { $0 != " " && $0 != ":" } }
        let real = plain(pv["profile"] ?? "")
        #expect(plain(said) == real || (plain(said) == "high444" && real.hasPrefix("high444")),
                "plan says \(said), the file has \(pv["profile"] ?? "none") (\(video))")

        // The stream states its level as level_idc: 10 × (H.264), 30 × (HEVC) the level number.
        let level = Double(v["level"]?.value ?? "") ?? -1
        #expect(pv["level"] == String(Int((level * (pv["codec_name"] == "hevc" ? 30 : 10)).rounded())), "plan says level \(level) (\(video))")

        let a = Self.settings(plan, track: 1)
        let pa = try Self.probe(out, "a:0", "codec_name,sample_rate,channels,channel_layout")
        #expect(pa["codec_name"] == a["codec"]?.value)
        #expect(pa["sample_rate"] == a["sample-rate"]?.value)
        #expect(pa["channels"] == a["channels"]?.value, "\(audio)")
        #expect(pa["channel_layout"] == a["channel-layout"]?.value, "\(audio)")
    }

    @Test("x264 with preset ultrafast: plan says Constrained Baseline, read back from the opened encoder, not High")
    func profileReadBack() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, video: "{ codec: h264, codec-options: { preset: ultrafast } }", audio: "{ codec: aac }")
        let p = Self.settings(try Self.plan(recipe, src, dir.file("out.mp4")), track: 0)
        #expect(p["profile"]?.value == "Constrained Baseline")
        #expect(p["profile"]?.rule == "profile.encoder")
        #expect(p["profile"]?.origin == "assistant")
        let text = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(text.stdout.contains("\n  profile         Constrained Baseline profile.encoder: what libx264 makes with preset ultrafast; high is the most it may use\n"),
                "\(text.stdout)")
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("inline settings with base: what the writer input sets is 'recipe', what the base sets is 'preset NAME'")
    func originWithBase() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, video: "{ base: fast, quality: 25 }", audio: "{ base: aac-stereo, bitrate: 96k }")
        let plan = try Self.plan(recipe, src, dir.file("out.mp4"))
        let v = Self.settings(plan, track: 0), a = Self.settings(plan, track: 1)
        #expect(v["quality"]?.value == "25")
        #expect(v["quality"]?.origin == "recipe")
        #expect(v["codec"]?.origin == "preset fast")
        #expect(a["bitrate"]?.value == "96000")
        #expect(a["bitrate"]?.origin == "recipe")
        #expect(a["codec"]?.origin == "preset aac-stereo")
    }

    @Test("a value without effect is an 'ignored' warning in plan (text and JSON) and run: quality with bitrate, settings on a copy, a policy without a rate")
    func ignoredSettings() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, video: "{ base: fast, bitrate: 1M, frame-rate-policy: exact }", audio: "{ codec: copy, bitrate: 128k, sample-rate: 44100 }")
        let plan = try Self.plan(recipe, src, dir.file("out.mp4"))
        let warnings = (plan["warnings"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "") \($0["item"] ?? "") \($0["track"] ?? "") \($0["message"] ?? "")" }
        // 1M on a one-second 160x120 clip also outweighs its source: the size estimate's warning, last.
        #expect(warnings.dropLast() == [
            "ignored setting.quality 0 'quality' has no effect: 'bitrate' sets the rate instead",
            "ignored setting.frame-rate-policy 0 'frame-rate-policy' has no effect: no 'frame-rate' to apply it to",
            "ignored setting.bitrate 1 'bitrate' has no effect: the track is copied as it is",
            "ignored setting.sample-rate 1 'sample-rate' has no effect: the track is copied as it is",
        ])
        #expect(warnings.last?.hasPrefix("size estimate <null> the output is estimated at ") == true, "\(warnings)")
        let text = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(text.stdout.contains("""

        warning: track #0: 'quality' has no effect: 'bitrate' sets the rate instead
        warning: track #0: 'frame-rate-policy' has no effect: no 'frame-rate' to apply it to
        warning: track #1: 'bitrate' has no effect: the track is copied as it is
        warning: track #1: 'sample-rate' has no effect: the track is copied as it is
        warning: \(src): the output is estimated at 
        """), "\(text.stdout)")
    }

    @Test("channel layouts: an unknown one and one with more channels than 'channels' allows are recipe errors at their line (65)")
    func layoutErrors() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        for (audio, column, message) in [
            ("{ codec: aac, channel-layout: \"2.2\" }", 44, "unknown channel layout '2.2' (did you mean '2.1'?)"),
            ("{ codec: aac, channels: 2, channel-layout: \"5.1\" }", 57, "channel layout '5.1' has 6 channels, more than 'channels: 2' allows"),
        ] {
            let recipe = try Self.recipe(dir, video: "fast", audio: audio)
            for command in ["validate", "plan"] {
                let args = command == "validate" ? [command, recipe] : [command, recipe, "-i", src, "-o", dir.file("out.mp4")]
                let r = try Binary.run(args, timeLimit: 60)
                #expect(r.status == 65, "\(command)")
                let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
                #expect(first.hasPrefix("\(recipe):11:\(column): error: \(message)"), "\(command): \(r.stderr)")
            }
        }
    }

    @Test("settings on a track whose reader output is not decoded are 'ignored' warnings, not silently dropped")
    func settingsOnUndecodedTrack() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        reader:
          outputs:
            v: { track: video, decode: false }
            a: { track: audio, decode: false }
        writer:
          inputs:
            - { source: v, settings: { codec: h264, width: 640 } }
            - { source: a, settings: { codec: copy, bitrate: 96k } }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("""

        warning: track #0: 'codec' has no effect: reader output 'v' is not decoded (decode: false), so the track is copied as it is
        warning: track #0: 'width' has no effect: reader output 'v' is not decoded (decode: false), so the track is copied as it is
        warning: track #1: 'bitrate' has no effect: reader output 'a' is not decoded (decode: false), so the track is copied as it is

        """), "\(r.stdout)")
    }

    @Test("a crf codec option makes bitrate ignored (x264 takes crf over it); channel-layout makes channels ignored")
    func ignoredByOtherSettings() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, video: "{ codec: h264, bitrate: 5M, codec-options: { crf: \"40\", preset: ultrafast } }",
                                     audio: "{ codec: aac, channels: 6, channel-layout: stereo }")
        let plan = try Self.plan(recipe, src, dir.file("out.mp4"))
        let warnings = (plan["warnings"] as? [[String: Any]] ?? []).map { "\($0["item"] ?? "") \($0["track"] ?? "") \($0["message"] ?? "")" }
        #expect(warnings == [
            "setting.bitrate 0 'bitrate' has no effect: the codec option crf 40 sets constant quality instead",
            "setting.channels 1 'channels' has no effect: 'channel-layout: stereo' sets the channel count (6 is only the most allowed)",
        ])
    }
}
