import Foundation
import Pipeline
import Recipe
import Testing

/// `presets -i`: each preset planned on the source, listed as suiting it (with what it writes and
/// the containers that hold that) or not (with why); and `plan`'s containers line, checked
/// against what `plan -o` with each container really does.
@Suite("Compatible presets and containers")
struct PresetFitCLITests {
    /// A 1280x720 25 fps clip with stereo sound, 2 s.
    static func clip(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 1280, height: 720, frameRate: FrameRate(frames: 25))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        for f in 0..<50 { try s.appendPicture(at: FrameRate(frames: 25).frameDuration * Int64(f)) { TestPattern.draw(index: f, into: $0) } }
        try s.appendAudio(count: 96000) { c, n in Float(sin(Double(n) * 0.05 + Double(c))) * 0.3 }
        try s.finish()
    }

    static func fits(_ args: [String]) throws -> [String: [String: Any]] {
        let r = try Binary.run(["presets"] + args + ["--json"], timeLimit: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(BatchFixture.json(r.stdout), "\(r.stdout)\(r.stderr)")
        let list = try #require(o["presets"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0) })
    }

    @Test("a 720p source: the boxes above it give what 1280x720 gives, audio-only presets drop the pictures, each suited one says what it writes and where it fits")
    func videoSource() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.clip(src)
        let f = try Self.fits(["-i", src])
        #expect(f.count == BuiltinPresets.all.count)
        func why(_ n: String) -> String? { f[n]?["why"] as? String }
        func result(_ n: String) -> String? { f[n]?["result"] as? String }
        func containers(_ n: String) -> [String] { f[n]?["containers"] as? [String] ?? [] }

        #expect(f["h264-1280x720"]?["suits"] as? Bool == true)
        // AAC at the preset's ceiling, never above the source's own rate (about 126 kb/s here).
        let aac = try #require(result("h264-1280x720"))
        #expect(aac.hasPrefix("h264 1280x720 25 fps, aac 2 ch 48 kHz "))
        #expect(Int(aac.split(separator: " ").dropLast().last ?? "") ?? 999 <= 128, "\(aac)")
        #expect(containers("h264-1280x720") == ["mp4", "mov", "mkv"])
        #expect(why("h264-1920x1080") == "gives what h264-1280x720 gives, since presets never upscale")
        #expect(why("h264-3840x2160") == "gives what h264-1280x720 gives, since presets never upscale")
        #expect(result("h264-3840x2160") == result("h264-1280x720"))
        #expect(why("hevc-3840x2160") == "gives what hevc-1920x1080 gives, since presets never upscale")
        #expect(f["hevc-1920x1080"]?["suits"] as? Bool == true)
        // A smaller box scales the picture down: it suits, at its own size.
        #expect(result("h264-640x480") == aac.replacingOccurrences(of: "1280x720", with: "640x360"))
        #expect(result("low-quality")?.hasPrefix("h264 640x360 25 fps, aac 2 ch 48 kHz 96 kb/s") == true)
        // Audio-only presets: planned, but they drop the pictures.
        for n in ["m4a", "aac-stereo", "opus-stereo", "flac", "alac"] {
            #expect(why(n) == "audio only: the pictures are dropped", "\(n)")
        }
        #expect(result("flac") == "flac 2 ch 48 kHz")
        // MOV's muxer writes FLAC, Opus, VP9 and AV1 only into MP4; M4A holds no FLAC; Ogg does.
        #expect(containers("flac") == ["mp4", "mkv", "flac", "ogg"])
        #expect(containers("opus-stereo") == ["mp4", "mkv", "webm", "opus", "ogg"])
        #expect(containers("vp9-1080p") == ["mp4", "mkv", "webm"])
        #expect(containers("av1-1080p") == ["mp4", "mkv", "webm"])
        #expect(containers("prores-422") == ["mov", "mkv"])
        #expect(result("passthrough") == "h264 video copied, aac audio copied")
    }

    @Test("an audio-only source: the sound presets suit, a video preset says the source has no video")
    func audioSource() throws {
        let dir = Scratch()
        let src = dir.file("talk.m4a")
        let s = try FrameSource(path: src, video: nil, audio: GeneratedAudioFormat(sampleRate: 44100, channels: 1))
        try s.appendAudio(count: 44100) { _, n in Float(sin(Double(n) * 0.03)) * 0.3 }
        try s.finish()
        let f = try Self.fits(["-i", src])
        #expect(f["m4a"]?["suits"] as? Bool == true)
        #expect(f["m4a"]?["result"] as? String == "aac 1 ch 44.1 kHz 64 kb/s")
        // Opus codes at 48 kHz: the source's 44.1 kHz is resampled.
        #expect((f["opus-stereo"]?["result"] as? String)?.hasPrefix("opus 1 ch 48 kHz ") == true)
        #expect(f["h264-1280x720"]?["why"] as? String == "the source has no video: only its sound would be written")
        #expect(f["passthrough"]?["why"] as? String == "the source has no video: only its sound would be written")
    }

    @Test("a recipe's presets come first; one that cannot plan says the planner's error; text lists both groups")
    func recipePresets() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.clip(src)
        let recipe = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            output: out.mp4
            presets:
              small: { base: h264-640x480, quality: 30 }
              odd: { codec: h264, profile: high444 }
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - { source: v, settings: small }
            """)
        let f = try Self.fits([recipe, "-i", src])
        #expect(f.count == BuiltinPresets.all.count + 2)
        #expect(f["small"]?["result"] as? String == "h264 640x360 25 fps")
        #expect(f["small"]?["suits"] as? Bool == true)
        let text = try Binary.run(["presets", recipe, "-i", src])
        #expect(text.status == 0)
        let lines = text.stdout.components(separatedBy: "\n")
        let suitsAt = try #require(lines.firstIndex { $0.hasPrefix("suits this source (") })
        let notAt = try #require(lines.firstIndex { $0.hasPrefix("does not suit it (") })
        #expect(lines[0].hasPrefix(src))
        #expect(lines[1].hasPrefix("  #0 video  h264"))
        #expect(lines[suitsAt + 1].hasPrefix("  odd ") || lines[suitsAt + 1].hasPrefix("  small "))
        #expect(lines.contains("  h264-1920x1080        gives what h264-1280x720 gives, since presets never upscale"))
        #expect(lines.contains { $0.hasPrefix("  small                 h264 640x360 25 fps  →  mp4, mov, mkv") })
        #expect(suitsAt < notAt)
    }

    @Test("presets -i on a missing file: one error naming it, exit 66; a recipe that does not parse: 65")
    func bad() throws {
        let dir = Scratch()
        let r = try Binary.run(["presets", "-i", dir.file("none.mp4")])
        #expect(r.status == 66)
        #expect(r.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("error:") }.count == 1)
        #expect(r.stderr.contains(dir.file("none.mp4")))
        let recipe = try NegotiationCLITests.recipe(dir, "recipe: 1\npresets:\n  x: { codec: h265 }\n")
        let bad = try Binary.run(["presets", recipe, "-i", dir.file("none.mp4")])
        #expect(bad.status == 65, "\(bad.stderr)")
    }

    @Test("plan's containers: each one it names as holding the tracks plans with -o of that type, each it refuses does not")
    func planContainers() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.clip(src)
        let cases: [(video: String?, audio: String?, holding: [String])] = [
            ("{ codec: h264 }", "{ codec: aac }", ["mp4", "mov", "mkv"]),
            ("{ codec: vp9 }", "{ codec: opus }", ["mp4", "mkv", "webm"]),
            (nil, "{ codec: flac }", ["mp4", "mkv", "flac", "ogg"]),
            (nil, "{ codec: opus }", ["mp4", "mkv", "webm", "opus", "ogg"]),
            (nil, "{ codec: pcm }", ["mov", "mkv", "wav"]),
            ("{ codec: prores }", "{ codec: pcm }", ["mov", "mkv"]),
        ]
        for c in cases {
            let recipe = try NegotiationCLITests.recipe(dir, ContainerCLITests.recipe("mkv", video: c.video, audio: c.audio))
            let r = try Binary.run(["plan", recipe, "-i", src, "--json", "--estimate", "fast"], timeLimit: 300)
            #expect(r.status == 0, "\(r.stderr)")
            let o = try #require(BatchFixture.json(r.stdout))
            let list = try #require(o["containers"] as? [[String: Any]])
            let holding = list.filter { $0["holds"] as? Bool == true }.compactMap { $0["format"] as? String }
            #expect(holding == c.holding, "\(c)")
            for entry in list {
                let format = try #require(entry["format"] as? String)
                let p = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("x.\(format)"), "--estimate", "fast"], timeLimit: 300)
                #expect((p.status == 0) == (entry["holds"] as? Bool == true), "\(c) \(format): \(entry["why"] ?? "") — plan said \(p.status) \(p.stderr)")
            }
        }
    }

    @Test("plan's text names the output's own container first, then those that do not hold the tracks, grouped by why")
    func planText() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.clip(src)
        let recipe = try NegotiationCLITests.recipe(dir, ContainerCLITests.recipe("mov", video: "{ codec: h264 }", audio: "{ codec: aac }"))
        let r = try Binary.run(["plan", recipe, "-i", src, "--estimate", "fast"], timeLimit: 300)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\ncontainers mp4, mov (this output's), mkv hold these tracks; not m4a, opus, ogg (track 1: video), webm (track 1: h264 video), flac, wav (2 tracks: it holds one)\n"), "\(r.stdout)")
    }
}
