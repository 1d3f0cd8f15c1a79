import Foundation
import Pipeline
import Recipe
import Testing

/// `validate` and `plan` open what the run opens (encoders, the container) and refuse there what
/// the run would refuse; `-o` cannot contradict the recipe; `plan` says what the output really
/// gets. Every refusal: exact message, exit code, nothing written.
@Suite("Negotiation before decoding: validate, plan, -o")
struct NegotiationCLITests {
    /// A 1 s 160x120 30 fps clip with 48 kHz stereo audio.
    static func clip(_ dir: Scratch, _ name: String = "clip.mp4") throws -> String {
        let path = dir.file(name)
        try BatchFixture.clip(path)
        return path
    }

    static func recipe(_ dir: Scratch, _ text: String, name: String = "r.yaml") throws -> String {
        let path = dir.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a misspelt codec option: validate, plan and run refuse it at its line:col with the near name, exit 65, nothing written")
    func codecOptionTypo() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let recipe = try Self.recipe(dir, """
        recipe: 1
        reader:
          outputs:
            v: { track: video }
        writer:
          inputs:
            - source: v
              settings: { codec: h264, codec-options: { presett: fast } }

        """)
        let expected = """
        \(recipe):8:49: error: the libx264 encoder has no option 'presett' (did you mean 'preset'?)
              settings: { codec: h264, codec-options: { presett: fast } }
                                                        ^

        """
        let v = try Binary.run(["validate", recipe], timeLimit: 60)
        #expect(v.status == 65)
        #expect(v.stderr == expected)
        #expect(v.stdout == "")
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 65, "\(command)")
            #expect(r.stderr == expected, "\(command)")
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("a value the encoder refuses (preset fastt, tune, profile) is placed at its line, no raw x264 line on stderr")
    func refusedValues() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let cases: [(settings: String, column: Int, message: String)] = [
            ("{ codec: h264, codec-options: { preset: fastt } }", 49,
             "the libx264 encoder has no preset 'fastt' (did you mean 'fast'?) (it has ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo)"),
            ("{ codec: hevc, codec-options: { tune: grian } }", 49,
             "the libx265 encoder has no tune 'grian' (did you mean 'grain'?) (it has psnr, ssim, grain, zerolatency, fastdecode, animation)"),
            ("{ codec: h264, profile: hihg }", 32,
             "the libx264 encoder has no profile 'hihg' (did you mean 'high'?) (it has baseline, high, main, high10, high422, high444)"),
            ("{ codec: h264, profile: high, pixel-format: yuv444p }", 32,
             "profile 'high' cannot carry yuv444p (8-bit 4:4:4); libx264 profiles that can: high444"),
            ("{ codec: hevc, profile: main, pixel-format: yuv420p10le }", 32,
             "profile 'main' cannot carry yuv420p10le (10-bit 4:2:0); libx265 profiles that can: main10, main10-intra, main12, main12-intra, main422-10, main422-10-intra, main422-12, main422-12-intra, main444-10, main444-10-intra, main444-12, main444-12-intra, main444-16-intra, main444-16-stillpicture"),
        ]
        for c in cases {
            let recipe = try Self.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - source: v
                  settings: \(c.settings)

            """)
            for command in ["validate", "plan"] {
                let args = command == "validate" ? [command, recipe] : [command, recipe, "-i", src, "-o", dir.file("out.mp4")]
                let r = try Binary.run(args, timeLimit: 60)
                #expect(r.status == 65, "\(command) \(c.settings): \(r.stderr)")
                let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.first.map { $0.hasPrefix("\(recipe):8:\(c.column): error: \(c.message)") } == true, "\(command): \(r.stderr)")
                #expect(!r.stderr.contains("x264 ["), "\(command): \(r.stderr)")
                #expect(!r.stderr.contains("x265 ["), "\(command): \(r.stderr)")
            }
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("good recipes still validate: the shipped ones, and codec options that exist")
    func goodRecipesValidate() throws {
        let dir = Scratch()
        let recipes = try FileManager.default.contentsOfDirectory(atPath: BatchFixture.repo.appendingPathComponent("recipes").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { BatchFixture.repo.appendingPathComponent("recipes/\($0)").path }
        let own = try Self.recipe(dir, """
        recipe: 1
        reader:
          outputs:
            v: { track: video }
            a: { track: audio }
        writer:
          inputs:
            - { source: v, settings: { codec: h264, codec-options: { preset: veryfast, tune: "film,fastdecode", crf: "20" } } }
            - { source: a, settings: { codec: aac, channel-layout: "5.1" } }

        """)
        let r = try Binary.run(["validate"] + recipes + [own], timeLimit: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == (recipes + [own]).map { "\($0): ok\n" }.joined())
    }

    @Test("a copy the container cannot hold, however the copy was asked for: 66 at the line that asked, one 'track #1', nothing written")
    func copyRefusedEveryWay() throws {
        let dir = Scratch()
        let made = try Self.clip(dir, "made.mp4")
        let src = dir.file("pcm.mov")
        let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
        try #require(ffmpeg != nil, "ffmpeg is needed to make a PCM source")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg!)
        p.arguments = ["-v", "error", "-i", made, "-c:v", "copy", "-c:a", "pcm_s16le", src]
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        try FileManager.default.removeItem(atPath: made)
        let ways: [(settings: String, column: Int)] = [
            ("settings: passthrough", 30),                                      // a built-in preset
            ("settings: { codec: copy }", 32),                                   // inline, at the codec key
            ("settings: { base: passthrough, bitrate: 128k }", 38),              // through a base, at its name
        ]
        for w in ways {
            let recipe = try Self.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                v: { track: video }
                a: { track: audio }
            writer:
              inputs:
                - { source: v, settings: passthrough }
                - { source: a, \(w.settings) }

            """)
            for command in ["plan", "run"] {
                let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
                #expect(r.status == 66, "\(command) \(w.settings): \(r.stderr)")
                let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
                #expect(first == "\(recipe):9:\(w.column): error: \(src): track #1: pcm_s16le cannot be copied into mp4 as it is: reencode it instead",
                        "\(command) \(w.settings)")
            }
        }
        #expect(dir.contents == ["pcm.mov", "r.yaml"])
    }

    @Test("-o whose extension contradicts the recipe's format: 64 for run and plan, nothing written; in the recipe's own path: 65 at its line")
    func extensionContradictsFormat() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let recipe = try Self.recipe(dir, """
        recipe: 1
        output: { format: m4a }
        reader:
          outputs:
            a: { track: audio }
        writer:
          inputs:
            - { source: a }

        """)
        for (name, message) in [
            ("x.ogv", "the extension '.ogv' contradicts the format m4a: name the output .m4a"),
            ("x.mp4", "the extension '.mp4' contradicts the format m4a: name the output .m4a, or ask for mp4"),
        ] {
            for command in ["run", "plan"] {
                let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file(name)], timeLimit: 60)
                #expect(r.status == 64, "\(command) \(name): \(r.stderr)")
                #expect(r.stderr == "error: \(dir.file(name)): \(message)\n", "\(command)")
            }
        }
        // The one the format names, and none at all, are fine.
        let ok = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("x.m4a"), "--quiet"], timeLimit: 60)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(dir.contents == ["clip.mp4", "r.yaml", "x.m4a"])

        let own = try Self.recipe(dir, """
        recipe: 1
        output: { path: "{dir}/{stem}.ogv", format: m4a }
        reader:
          outputs:
            a: { track: audio }
        writer:
          inputs:
            - { source: a }

        """, name: "own.yaml")
        let r = try Binary.run(["run", own, "-i", src], timeLimit: 60)
        #expect(r.status == 65)
        #expect(r.stderr == """
        \(own):2:17: error: \(dir.path)/clip.ogv: the extension '.ogv' contradicts the format m4a: name the output .m4a
        output: { path: "{dir}/{stem}.ogv", format: m4a }
                        ^

        """)
        #expect(dir.contents == ["clip.mp4", "own.yaml", "r.yaml", "x.m4a"])
    }

    @Test("-o naming an existing folder: 'is a folder', 73, for run and plan; the folder is untouched")
    func outputIsAFolder() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let folder = dir.file("out.mp4")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let recipe = BatchFixture.recipe
        for command in ["run", "plan"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", folder], timeLimit: 60)
            #expect(r.status == 73, "\(command)")
            #expect(r.stderr == "error: \(folder): is a folder: the output must name a file (such as \(folder)/out.mp4)\n", "\(command)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }
}

extension NegotiationCLITests {
    @Test("a source the encoder cannot take (10x12 for x265): plan refuses it as run would, naming the source, the track and FFmpeg's reason (65), nothing written")
    func sourceTheEncoderRefuses() throws {
        let dir = Scratch()
        let src = dir.file("tiny.mp4")
        var v = GeneratedVideoFormat(width: 10, height: 12, frameRate: FrameRate(frames: 25))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<5 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let recipe = try Self.recipe(dir, """
        recipe: 1
        reader:
          outputs:
            v: { track: video }
        writer:
          inputs:
            - { source: v, settings: { codec: hevc, codec-options: { preset: ultrafast } } }

        """)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 65, "\(command)")
            #expect(r.stderr.hasPrefix("\(recipe):7:30: error: \(src): track #0: cannot open the libx265 encoder: Invalid argument (ffmpeg: [libx265] Image size is too small (10x12).)\n"),
                    "\(command): \(r.stderr)")
        }
        #expect(dir.contents == ["r.yaml", "tiny.mp4"])
    }
}

extension NegotiationCLITests {
    @Test("a level the codec does not have is an error at its line in validate and plan; one too low for this source only in plan; no x265 line on stderr")
    func levels() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)  // 160x120 at 30 fps: HEVC needs level 2, H.264 level 1.1
        for (settings, column, message, validates) in [
            ("{ codec: hevc, level: \"3.5\" }", 45, "HEVC has no level '3.5' (did you mean '3.1'?) (it has 1, 2, 2.1, 3, 3.1, 4, 4.1, 5, 5.1, 5.2, 6, 6.1, 6.2)", false),
            ("{ codec: hevc, level: \"1\" }", 45, "level 1 does not allow 160x120 at 30 fps: the lowest that does is 2", true),
            ("{ codec: h264, level: \"1.0\" }", 45, "level 1.0 does not allow 160x120 at 30 fps: the lowest that does is 1.1", true),
        ] {
            let recipe = try Self.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - { source: v, settings: \(settings) }

            """)
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == (validates ? 0 : 65), "\(settings): \(v.stderr)")
            let p = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(p.status == 65, "\(settings)")
            #expect(p.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):7:\(column): error: \(message)", "\(p.stderr)")
            #expect(!p.stderr.contains("x265 [") && !v.stderr.contains("x265 ["), "\(p.stderr)\(v.stderr)")
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }
}

extension NegotiationCLITests {
    @Test("validate refuses a video track into the m4a its recipe names, with the words plan uses (65)")
    func videoIntoM4A() throws {
        let dir = Scratch()
        let recipe = try Self.recipe(dir, """
        recipe: 1
        output: { path: "{stem}.m4a" }
        reader:
          outputs:
            v: { track: video, decode: false }
        writer:
          inputs:
            - { source: v }

        """)
        let r = try Binary.run(["validate", recipe], timeLimit: 60)
        #expect(r.status == 65)
        #expect(r.stderr == """
        \(recipe):8:17: error: writer input 1 reads a video track ('v'), but an m4a file holds audio and subtitle tracks only
            - { source: v }
                        ^

        """)
        #expect(r.stdout == "")
    }
}

extension NegotiationCLITests {
    /// The corpus file the issue names, where REENCODE_CORPUS is set (skipped otherwise).
    @Test("corpus mp4_sowt-with-video.mov through remux-passthrough to .mp4: 66 at the copy's line, one 'track #1', nothing written",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func corpusSowtToMP4() throws {
        let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
        let src = corpus + "/androidx-media/mp4_sowt-with-video.mov"
        try #require(FileManager.default.fileExists(atPath: src))
        let dir = Scratch()
        let recipe = BatchFixture.repo.appendingPathComponent("recipes/remux-passthrough.yaml").path
        // The copy's line, wherever the recipe's comments put it.
        let text = try String(contentsOfFile: recipe, encoding: .utf8)
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("    sound:") }) + 1
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 66, "\(command)")
            #expect(r.stderr == """
            \(recipe):\(line):5: error: \(src): track #1: pcm_s16le cannot be copied into mp4 as it is: reencode it instead
                sound:   { track: audio, decode: false, optional: true }
                ^

            """, "\(command)")
        }
        #expect(dir.contents == [])
    }
}
