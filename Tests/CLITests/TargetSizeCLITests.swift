import Foundation
import Pipeline
import Recipe
import Testing

/// `output: { target-size }` and `passes: 2`: two-pass rate control lands the whole file within
/// ±3 % of the target on sources of different content (noise, flat, motion, a mix of easy and
/// hard, corpus files), each decoding cleanly with every frame; `plan` shows the derived bitrate;
/// one pass at the same bitrate misses by more; bad combinations are refused at their line.
@Suite("Target size and two passes")
struct TargetSizeCLITests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"]

    /// An output with `target-size` (and more output keys in `extra`), video by `video`, sound
    /// (where the source has it) AAC 128k.
    static func recipe(_ ext: String = "mp4", target: String?, video: String = "{ codec: h264 }", audio: Bool = true, extra: String = "") -> String {
        """
        recipe: 1
        output:
          path: "{dir}/{stem}-t.\(ext)"
        \(target.map { "  target-size: \($0)\n" } ?? "")\(extra.isEmpty ? "" : "  \(extra)\n")reader:
          outputs:
            v: { track: video }
        \(audio ? "    a: { track: audio, optional: true }\n" : "")writer:
          inputs:
            - { source: v, settings: \(video) }
        \(audio ? "    - { source: a, settings: { codec: aac, bitrate: 128k } }\n" : "")
        """
    }

    static func size(_ path: String) -> Int { SizeEstimateCLITests.size(path) }

    /// Pictures of `seconds` at 30 fps drawn by `draw(frame, picture)`, with noise for sound when `sound`.
    static func clip(_ path: String, seconds: Int, width: Int = 320, height: Int = 240, sound: Bool = true,
                     draw: (Int, borrowing PictureBuffer) -> Void) throws {
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast", "qp": "0"]
        let s = try FrameSource(path: path, video: v, audio: sound ? GeneratedAudioFormat() : nil)
        for f in 0..<(30 * seconds) {
            try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(f)) { draw(f, $0) }
        }
        if sound {
            try s.appendAudio(count: 48000 * seconds) { _, n in
                let x = UInt64(truncatingIfNeeded: n) &* 6364136223846793005 &+ 1442695040888963407
                return Float(Int64(bitPattern: x) >> 40) / Float(1 << 23) * 0.2
            }
        }
        try s.finish()
    }

    /// Every sample of the picture from a generator seeded by the frame: what no encoder predicts.
    static func noise(_ f: Int, _ p: borrowing PictureBuffer) {
        var state = UInt64(f + 1) &* 0x9E3779B97F4A7C15
        var row = [UInt8](repeating: 0, count: p.width)
        for y in 0..<p.height {
            for x in 0..<p.width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                row[x] = UInt8(truncatingIfNeeded: state >> 56)
            }
            row.withUnsafeBufferPointer { p.setRow(plane: 0, y: y, $0) }
        }
        p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
        p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
    }

    /// Flat grey under a faint grain (±2, new each picture) with a small square gliding across:
    /// what a dark, quiet room looks like; little but the grain to code.
    static func flat(_ f: Int, _ p: borrowing PictureBuffer) {
        var state = UInt64(f + 7) &* 0x9E3779B97F4A7C15
        var row = [UInt8](repeating: 0, count: p.width)
        for y in 0..<p.height {
            for x in 0..<p.width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                row[x] = UInt8(110 + Int(state >> 61) - 4 + 2)
            }
            row.withUnsafeBufferPointer { p.setRow(plane: 0, y: y, $0) }
        }
        p.fill(plane: 0, x: (f * 3) % (p.width - 16), y: p.height / 2, width: 16, height: 16, value: 220)
        p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
        p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
    }

    /// Flat grey with a faint gradient and a small square gliding across it: next to nothing to code.
    static func calm(_ f: Int, _ p: borrowing PictureBuffer) {
        for y in stride(from: 0, to: p.height, by: 8) {
            p.fill(plane: 0, x: 0, y: y, width: p.width, height: min(8, p.height - y), value: 100 + y / 8)
        }
        p.fill(plane: 0, x: (f * 3) % (p.width - 16), y: p.height / 2, width: 16, height: 16, value: 220)
        p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
        p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
    }

    /// The first half calm, the second noise: a one-pass encoder spends by what it has seen.
    static func mixed(seconds: Int) -> (Int, borrowing PictureBuffer) -> Void {
        { f, p in if f < 15 * seconds { calm(f, p) } else { noise(f, p) } }
    }

    /// The pictures ffmpeg decodes from `file`'s first video stream.
    static func frameCount(_ file: String) throws -> Int {
        let lines = try SlowMotionCompositionCLITests.ffprobe(["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
        return Int(lines.first ?? "") ?? -1
    }

    /// Runs `text` on `src`: status, stderr and the output's size.
    static func run(_ dir: Scratch, _ src: String, _ text: String, out: String, args: [String] = []) throws -> (Binary.Result, Int) {
        let recipe = try NegotiationCLITests.recipe(dir, text)
        try? FileManager.default.removeItem(atPath: out)
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none"] + args, timeLimit: 600)
        return (r, size(out))
    }

    /// Within ±3 % of `target`, decoded fully without an error line, with as many pictures as
    /// the same recipe makes without a target.
    static func check(_ dir: Scratch, _ src: String, target: Int, ext: String = "mp4", video: String = "{ codec: h264 }", audio: Bool = true,
                      label: String) throws {
        let out = dir.file("\(FilePaths.stem(of: src))-t.\(ext)")
        let (r, bytes) = try run(dir, src, recipe(ext, target: "\(target)", video: video, audio: audio), out: out)
        #expect(r.status == 0, "\(label): \(r.stderr)")
        let off = Double(bytes - target) / Double(target)
        #expect(abs(off) <= 0.03, "\(label): \(bytes) bytes for a target of \(target) (\(String(format: "%+.2f", off * 100)) %)")
        let decoded = try FileLengthLimitCLITests.decode(out)
        #expect(decoded.0 == 0 && decoded.1.isEmpty, "\(label): \(decoded.1)")
        let frames = try frameCount(out)
        let plain = try run(dir, src, recipe(ext, target: nil, video: video.replacingOccurrences(of: " }", with: ", quality: 30 }"), audio: audio), out: out)
        #expect(plain.0.status == 0, "\(label): \(plain.0.stderr)")
        let without = try frameCount(out)
        #expect(frames > 0 && frames == without, "\(label): \(frames) pictures with the target, \(without) without")
    }

    @Test("run: within ±3 % of the target, container included, on noise, flat grain and half-calm-half-noise sources; decodes cleanly, every frame")
    func generated() throws {
        let dir = Scratch()
        let seconds = 6
        // Targets the encoder can spend (a target above what it spends at its best on easy
        // pictures is not reached); the grain is pictures only, so that they are what is measured.
        // Real motion is the corpus files' (below).
        let sources: [(String, (Int, borrowing PictureBuffer) -> Void, Int, Bool)] = [
            ("noise", Self.noise, 500_000, true),
            ("flat", Self.flat, 300_000, false),
            ("mixed", Self.mixed(seconds: seconds), 400_000, true),
        ]
        for (name, draw, target, sound) in sources {
            let src = dir.file("\(name).mp4")
            try Self.clip(src, seconds: seconds, sound: sound, draw: draw)
            try Self.check(dir, src, target: target, audio: sound, label: name)
        }
    }

    @Test("run: within ±3 % on corpus files (H.264 800x640 and VP9 642x642, pictures only)",
          .enabled(if: corpus != nil))
    func corpusFiles() throws {
        let dir = Scratch()
        let files = [("androidx-media/mp4_bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4", 200_000),
                     ("androidx-media/mkv_bbb_642x642_768kbps_30fps_vp9.webm", 120_000)]
        for (file, target) in files {
            let path = FilePaths.join(try #require(Self.corpus), file)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let src = dir.file(FilePaths.name(of: path))
            try FileManager.default.copyItem(atPath: path, toPath: src)
            try Self.check(dir, src, target: target, audio: false, label: file)
        }
    }

    @Test("run: HEVC (x265's parameter string) and VP9 (FFmpeg's stats_out/stats_in) land within ±3 % too")
    func otherEncoders() throws {
        let dir = Scratch()
        let src = dir.file("motion.mp4")
        try Self.clip(src, seconds: 6) { f, p in TestPattern.draw(index: f, into: p) }
        try Self.check(dir, src, target: 160_000, video: "{ codec: hevc }", label: "hevc")
        let flat = dir.file("flat.mp4")
        try Self.clip(flat, seconds: 6, sound: false, draw: Self.flat)
        try Self.check(dir, flat, target: 300_000, ext: "webm", video: "{ codec: vp9 }", audio: false, label: "vp9")
    }
}

extension TargetSizeCLITests {
    @Test("plan: the derived bitrate and how it was found, text and JSON (4 s at 320x240 30 fps, AAC 128k, 200kB in MP4)")
    func planShowsDerivation() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 4, width: 320, height: 240)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(target: "200kB"))
        let r = try Binary.run(["plan", recipe, "-i", src, "--json"], timeLimit: 120)
        let o = try #require(BatchFixture.json(r.stdout), "\(r.stderr)")
        let t = try #require(o["targetSize"] as? [String: Any])
        // Sound: 128000 × 4 / 8 = 64000 bytes; container: 1500 + (16 × 30 + 6 × 48000 / 1024) × 4 = 4545 bytes;
        // video: (200000 − 64000 − 4545) × 8 / 4 = 262910 b/s, under the source's own 357150 b/s.
        #expect(t["bytes"] as? Int == 200_000 && t["otherBytes"] as? Int == 64_000 && t["overhead"] as? Int == 4_545)
        #expect(t["videoBitrate"] as? Int == 262_910 && t["seconds"] as? Double == 4)
        #expect(t["formula"] as? String == "(200000 − 64000 other tracks − 4545 container) bytes × 8 / 4.000s = 262910 b/s")
        let video = try #require(t["video"] as? [[String: Any]])
        #expect(video.count == 1 && video[0]["output"] as? Int == 1 && video[0]["bitrate"] as? Int == 262_910 && video[0]["passes"] as? Int == 2)
        let tracks = try #require(o["tracks"] as? [[String: Any]])
        let settings = try #require(tracks[0]["settings"] as? [[String: Any]])
        let bitrate = try #require(settings.first { $0["setting"] as? String == "bitrate" })
        #expect(bitrate["value"] as? String == "262910" && bitrate["rule"] as? String == "bitrate.target-size")
        #expect(!settings.contains { $0["setting"] as? String == "quality" })
        #expect(settings.contains { $0["setting"] as? String == "passes" && $0["value"] as? String == "2" })
        let text = try Binary.run(["plan", recipe, "-i", src], timeLimit: 120).stdout
        let lines = text.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("target   ") }, "\(text)")
        #expect(Array(lines[at..<(at + 5)]) == [
            "target   200000 bytes (200.0 kB), the whole file (±3 %)",
            "  video  (200000 − 64000 other tracks − 4545 container) bytes × 8 / 4.000s = 262910 b/s",
            "  track 2  64000 bytes      bitrate: 128 kb/s",
            "  container 4545 bytes (header, index, sample framing)",
            "  track 1  262910 b/s, 2 passes (a statistics pass, then the encode)",
        ])
        #expect(lines.contains("  bitrate         262910       bitrate.target-size: from target-size 200000: (200000 − 64000 other tracks − 4545 container) bytes × 8 / 4.000s"))
        // Above the source's own rate the video is coded at that rate, and a warning says the
        // file comes out smaller (never more than the source has).
        let over = try NegotiationCLITests.recipe(dir, Self.recipe(target: "300kB"), name: "over.yaml")
        let p = try Binary.run(["plan", over, "-i", src], timeLimit: 120)
        #expect(p.stdout.contains("  bitrate         357150       bitrate.target-size-source: the source's own 357150 b/s: target-size's 462910 b/s (from target-size 300000: (300000 − 64000 other tracks − 4545 container) bytes × 8 / 4.000s) would be more than it has"), "\(p.stdout)")
        #expect(p.stdout.contains("warning: track #0: 'target-size' (300000 bytes (300.0 kB)) would code the video at 462910 b/s, more than the source's own 357150 b/s: it is coded at the source's rate (never raised), so the file comes out smaller than the target"), "\(p.stdout)")
        // AV1: SVT-AV1's wrapper has no two passes; the codec table's next AV1 encoder does.
        let av1 = try NegotiationCLITests.recipe(dir, Self.recipe(target: "300kB", video: "{ codec: av1 }"), name: "av1.yaml")
        let a = try Binary.run(["plan", av1, "-i", src], timeLimit: 120).stdout
        #expect(a.contains("  encoder         libaom-av1   encoder.two-pass: SVT-AV1 (libsvtav1) runs one pass only under FFmpeg 5.1: libaom, the AV1 encoder that runs two"), "\(a)")
    }

    @Test("validate, plan, run: each refusal at its line:column (65), nothing written")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 2, width: 320, height: 240)
        let cases: [(String?, String, String, String)] = [
            ("25MB", "", "{ codec: h264, quality: 23 }",
             "4:16: error: 'target-size' sets the video bitrate from the size, but writer input 1 asks for constant 'quality' (11:45): leave one of them out"),
            ("25MB", "", "{ codec: h264, bitrate: 1M }",
             "4:16: error: 'target-size' sets the video bitrate from the size, but writer input 1 asks for a 'bitrate' (11:45): leave one of them out"),
            ("25MB", "", "{ codec: copy }",
             "4:16: error: 'target-size' sets the video bitrate, but writer input 1 copies the video track ('v') as it is: give it a codec to reencode it, or leave 'target-size' out"),
            ("25MB", "file-length-limit: 30MB", "{ codec: h264 }",
             "4:16: error: 'target-size' and 'file-length-limit' (5:22) cannot be used together: the target already makes the whole file that size (±3 %), and a limit under it would cut the end off the pictures the bitrate was spread over: keep one"),
            ("25MB", "", "{ codec: h264, passes: 3 }", "11:53: error: 'passes' must be 1 or 2 (a statistics pass, then the encode), not '3'"),
            ("25MB", "", "{ codec: h264, passes: 0 }", "11:53: error: 'passes' must be 1 or 2 (a statistics pass, then the encode), not '0'"),
            (nil, "", "{ codec: h264, passes: 2 }",
             "10:45: error: 'passes: 2' spends a bitrate in two passes, but writer input 1 has none: give it a 'bitrate', or the output a 'target-size'"),
            ("25 megs", "", "{ codec: h264 }", "4:16: error: 'target-size' must be a size like 50MB, 1.5GB, 700KiB or 1000000 (bytes), not '25 megs'"),
        ]
        for (target, extra, video, message) in cases {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(target: target, video: video, extra: extra))
            for command in ["validate", "plan", "run"] {
                let r = try Binary.run([command, recipe] + (command == "validate" ? [] : ["-i", src]), timeLimit: 120)
                #expect(r.status == 65, "\(command) \(video): \(r.stderr)")
                #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(message)", "\(command) \(video)")
            }
            #expect(dir.contents == ["clip.mp4", "r.yaml"])
        }
    }

    @Test("plan and run: a target the pictures cannot get by on is refused with the smallest that works (65, nothing written); that smallest runs")
    func tooSmall() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 4, width: 320, height: 240)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(target: "5kB"))
        // Sound 64000 bytes, container 4545, the pictures at least 0.01 × 320 × 240 × 30 = 23040 b/s: 11520 bytes in 4 s.
        let message = "\(recipe):4:16: error: 'target-size' is 5000 bytes (5.0 kB): the other tracks take 64000 bytes (64.0 kB) of it and the container 4545 bytes (4.5 kB) over 4.000s, "
            + "leaving the video nothing, less than the 23040 b/s its pictures need at the least (0.01 bits per pixel): the smallest target this output takes is 80065 bytes (80.1 kB)"
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src], timeLimit: 120)
            #expect(r.status == 65 && r.stderr.split(separator: "\n").first.map(String.init) == message, "\(r.stderr)")
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
        let fits = try NegotiationCLITests.recipe(dir, Self.recipe(target: "80065"))
        let r = try Binary.run(["run", fits, "-i", src, "--progress", "none"], timeLimit: 300)
        #expect(r.status == 0, "\(r.stderr)")
        let below = try NegotiationCLITests.recipe(dir, Self.recipe(target: "80064"))
        #expect(try Binary.run(["plan", below, "-i", src], timeLimit: 120).status == 65)
    }

    @Test("run: two passes run — progress says pass 1 then 2; the file differs from one pass at the same bitrate and lands closer to the target")
    func twoPassesRun() throws {
        let dir = Scratch()
        let src = dir.file("mixed.mp4")
        try Self.clip(src, seconds: 6, draw: Self.mixed(seconds: 6))
        let target = 400_000
        let out = dir.file("mixed-t.mp4")
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(target: "\(target)"))
        try? FileManager.default.removeItem(atPath: out)
        // Its own temp folder: the statistics' private folder is made there, and must be gone after.
        let temp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: false)
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "json"], timeLimit: 300, environment: ["TMPDIR": temp])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp).isEmpty)
        let passes = r.stdout.split(separator: "\n").compactMap { BatchFixture.json(String($0)) }
            .filter { $0["type"] as? String == "progress" }.map { "\($0["pass"] ?? "-")/\($0["passes"] ?? "-")" }
        #expect(passes.first == "1/2" && passes.last == "2/2" && passes.contains("1/2") && passes.firstIndex(of: "2/2")! > passes.lastIndex(of: "1/2")!, "\(passes)")
        let two = Self.size(out), twoBytes = try Data(contentsOf: URL(fileURLWithPath: out))
        let (one, oneSize) = try Self.run(dir, src, Self.recipe(target: "\(target)", video: "{ codec: h264, passes: 1 }"), out: out)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) != twoBytes)
        #expect(abs(two - target) < abs(oneSize - target), "two passes \(two), one pass \(oneSize), target \(target)")
        #expect(abs(Double(two - target)) <= 0.03 * Double(target))
    }
}
