import Foundation
import Pipeline
import Recipe
import Testing

/// ProRes through the command line: what `validate` and `plan` refuse, each at its line; what
/// `plan` says of 4444 without alpha; recipes/prores-proxy.yaml run as the README's tour runs it.
@Suite("ProRes: validate, plan and the prores-proxy recipe")
struct ProResCLITests {
    /// (output extension, settings, line:col, message): exit 65 each.
    static let refused: [(String, String, String, String)] = [
        ("mp4", "prores-422", "8:30", "mp4 cannot hold what writer input 1 encodes: cannot write the container header: Invalid argument"),
        ("mp4", "{ codec: prores, profile: hq }", "8:30", "mp4 cannot hold what writer input 1 encodes: cannot write the container header: Invalid argument"),
        ("mov", "{ codec: prores, quality: 10 }", "8:47",
         "'quality' does not apply to ProRes: each profile codes at its own data rate (proxy, lt, standard, hq, 4444, 4444xq); choose one with 'profile'"),
        ("mkv", "{ base: prores-hq, bitrate: 100M }", "8:49",
         "'bitrate' does not apply to ProRes: each profile codes at its own data rate (proxy, lt, standard, hq, 4444, 4444xq); choose one with 'profile'"),
        ("mov", "{ codec: prores, profile: hq, pixel-format: yuv444p10le }", "8:47",
         "profile 'hq' cannot carry yuv444p10le (10-bit 4:4:4); prores_ks profiles that can: 4444, 4444xq"),
        ("mov", "{ codec: prores, level: '4' }", "8:47", "ProRes has no levels: leave 'level' out"),
    ]

    @Test("validate: ProRes in MP4 at the writer input's settings; a quality, a bit rate, a profile that cannot carry the format, a level, each at its line; exit 65")
    func refusals() throws {
        try NewCodecCLITests.validate(refused: Self.refused, accepted: [
            ("mov", "prores-4444"), ("mkv", "{ codec: prores, profile: proxy }"), ("mov", "{ codec: prores, pixel-format: yuv444p10le }"),
        ])
    }

    @Test("plan: ProRes into MP4 is refused naming the track and the container (65: the settings' choice); 4444 from a source without alpha and an asked GOP are said, not refused")
    func plan() throws {
        let dir = Scratch()
        let src = try NewCodecCLITests.clip(dir)
        let mp4 = try NegotiationCLITests.recipe(dir, NewCodecCLITests.recipe("mp4", "prores-hq"), name: "mp4.yaml")
        let p = try Binary.run(["plan", mp4, "-i", src], timeLimit: 60)
        #expect(p.status == 65, "\(p.stderr)")
        #expect(p.stderr.split(separator: "\n").first.map(String.init)
                == "\(mp4):8:30: error: \(src): track #0: mp4 cannot hold prores: cannot write the container header: Invalid argument (ffmpeg: [mp4] Could not find tag for codec prores in stream #0, codec not currently supported in container)",
                "\(p.stderr)")
        let mov = try NegotiationCLITests.recipe(dir, NewCodecCLITests.recipe("mov", "prores-4444"), name: "mov.yaml")
        let q = try Binary.run(["plan", mov, "-i", src], timeLimit: 60)
        #expect(q.status == 0 && q.stderr == "", "\(q.stderr)")
        let lines = q.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("codec prores preset prores-4444"), "\(q.stdout)")
        #expect(lines.contains("profile 4444 preset prores-4444"), "\(q.stdout)")
        #expect(lines.contains("pixel-format yuv444p10le pixel-format.profile-no-alpha: ProRes 4444 is 10-bit 4:4:4: the source has no alpha, so neither has the output"), "\(q.stdout)")
        // The one warning is the size estimate's: ProRes 4444 weighs far more than the H.264 source.
        let warnings = q.stdout.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains(": the output is estimated at ") && warnings[0].contains(", larger than the source ("), "\(q.stdout)")
        // An asked GOP means nothing to an intra-only codec: said as a warning, not refused.
        let gop = try NegotiationCLITests.recipe(dir, NewCodecCLITests.recipe("mkv", "{ codec: prores, gop: 2s }"), name: "gop.yaml")
        let g = try Binary.run(["plan", gop, "-i", src], timeLimit: 60)
        #expect(g.status == 0, "\(g.stderr)")
        #expect(g.stdout.contains("\nwarning: track #0: 'gop' has no effect: ProRes codes every picture on its own: each is a keyframe\n"), "\(g.stdout)")
        #expect(g.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
                .contains("gop 1 gop.intra-only: ProRes codes every picture on its own: each is a keyframe"), "\(g.stdout)")
    }

    @Test("a layered composition over a source with alpha: ProRes 4444 without alpha (the canvas is opaque), drawn and written")
    func layersOverAlpha() throws {
        let dir = Scratch()
        let src = dir.file("alpha.mov"), inset = try NewCodecCLITests.clip(dir)
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        (v.codec, v.pixelFormat) = (.prores, "yuva444p10le")
        let s = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<10 {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                TestPattern.draw(index: i, into: p)
                for plane in 1...3 { p.fill(plane: plane, x: 0, y: 0, width: 160, height: 120, value: plane == 3 ? 200 : 128) }
            }
        }
        try s.finish()
        let recipe = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            output: "{dir}/{stem}-pip.mov"
            sources:
              main: "{input}"
              inset: \(inset)
            composition:
              video:
                - { source: main }
              layers:
                - rect: { x: 0, y: 60, width: 80, height: 60 }
                  segments:
                    - { source: inset, at: 0s, duration: 0.2s }
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - { source: v, settings: { codec: prores } }

            """)
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none", "--quiet"], timeLimit: 120)
        #expect(r.status == 0 && r.stderr == "", "\(r.status): \(r.stderr)")
        let out = try PlanTruthCLITests.probe(dir.file("alpha-pip.mov"), "v:0", "profile,pix_fmt")
        #expect(out == ["profile": "4444", "pix_fmt": "yuv444p12le"], "\(out)")
        #expect(try CompositionCLITests.stamps(dir.file("alpha-pip.mov")) == Array(0..<10))
    }

    @Test("reencode presets lists prores-proxy, -lt, -422, -hq and -4444: ProRes with that profile at the source's size, PCM sound")
    func presets() throws {
        let r = try Binary.run(["presets", "--json"])
        #expect(r.status == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        for (name, profile) in [("prores-proxy", "proxy"), ("prores-lt", "lt"), ("prores-422", "standard"), ("prores-hq", "hq"), ("prores-4444", "4444")] {
            let p = try #require(list.first { $0["name"] as? String == name }, "\(name)")
            let video = try #require(p["video"] as? [String: Any], "\(name)")
            #expect(video.count == 2 && video["codec"] as? String == "prores" && video["profile"] as? String == profile, "\(name): \(video)")
            #expect((p["audio"] as? [String: Any])?.mapValues { "\($0)" } == ["codec": "pcm"], "\(name)")
        }
    }

    @Test("recipes/prores-proxy.yaml: ProRes 422 Proxy 10-bit 4:2:2 and 16-bit PCM in a MOV, every picture in order, the sound as long as the pictures")
    func proxyRecipe() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        let rate = FrameRate(frames: 30)
        let s = try FrameSource(path: src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: rate), audio: GeneratedAudioFormat())
        for i in 0..<15 {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            try s.appendAudio(count: 1600) { _, _ in 0 }
        }
        try s.finish()
        let recipe = BatchFixture.repo.appendingPathComponent("recipes/prores-proxy.yaml").path
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none", "--quiet"], timeLimit: 120)
        #expect(r.status == 0 && r.stderr == "", "\(r.status): \(r.stderr)")
        let out = dir.file("clip-proxy.mov")
        let v = try PlanTruthCLITests.probe(out, "v:0", "codec_name,codec_tag_string,profile,pix_fmt,width,height")
        #expect(v == ["codec_name": "prores", "codec_tag_string": "apco", "profile": "Proxy", "pix_fmt": "yuv422p10le", "width": "320", "height": "240"])
        let a = try PlanTruthCLITests.probe(out, "a:0", "codec_name,sample_rate,channels,duration")
        #expect(a["codec_name"] == "pcm_s16le" && a["sample_rate"] == "48000" && a["channels"] == "2", "\(a)")
        #expect(a["duration"] == "0.500000", "\(a)")
        #expect(try CompositionCLITests.stamps(out) == Array(0..<15))
    }
}
