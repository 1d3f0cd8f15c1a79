import Foundation
import Pipeline
import Recipe
import Testing

/// `plan`'s size estimate: bit-rate-coded outputs within ±2 % of what `run` writes, quality-coded
/// ones from a sample encode within ±10 % on real files of different content, the JSON pinned,
/// `--estimate fast` encoding nothing, a warning when the output would outweigh its source.
@Suite("Size estimate")
struct SizeEstimateCLITests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"]

    static func recipe(_ ext: String, video: String?, audio: String?) -> String {
        ContainerCLITests.recipe(ext, video: video, audio: audio)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// `plan --json` of one output: its estimate and warnings.
    static func planned(_ recipe: String, _ src: String, fast: Bool = false) throws -> (estimate: [String: Any], warnings: [[String: Any]], stderr: String) {
        let r = try Binary.run(["plan", recipe, "-i", src, "--json"] + (fast ? ["--estimate", "fast"] : []), timeLimit: 300)
        let o = try #require(BatchFixture.json(r.stdout), "\(r.stderr)")
        return (try #require(o["estimate"] as? [String: Any]), o["warnings"] as? [[String: Any]] ?? [], r.stderr)
    }

    /// The estimate's bytes and the size `run` wrote.
    static func estimatedAndReal(_ dir: Scratch, _ src: String, _ text: String, out: String) throws -> (Int, Int) {
        let recipe = try NegotiationCLITests.recipe(dir, text)
        let estimate = try Self.planned(recipe, src).estimate
        let r = try Binary.run(["run", recipe, "-i", src, "--overwrite", "--progress", "none"], timeLimit: 300)
        #expect(r.status == 0, "\(r.stderr)")
        return (estimate["bytes"] as? Int ?? -1, Self.size(out))
    }

    /// A frame-stamped clip at 320x240, 30 fps, whose sound is noise: an encoder spends all of
    /// the bit rate it is given on it (on a sine, AAC spends much less).
    static func noisyClip(_ path: String, seconds: Int) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        for f in 0..<(30 * seconds) {
            try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(f)) { TestPattern.draw(index: f, into: $0) }
        }
        try s.appendAudio(count: 48000 * seconds) { _, n in
            let x = UInt64(truncatingIfNeeded: n) &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: x) >> 40) / Float(1 << 23) * 0.2
        }
        try s.finish()
    }

    @Test("bit-rate-coded outputs: within ±2 % of the file run writes (AAC in M4A and MKV, H.264 at a bit rate with AAC in MP4)")
    func bitrateCoded() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.noisyClip(src, seconds: 12)
        let cases: [(String, String?, String?)] = [
            ("m4a", nil, "{ codec: aac, bitrate: 128k }"),
            ("mkv", nil, "{ codec: aac, bitrate: 64k }"),
            ("mp4", "{ codec: h264, bitrate: 80k }", "{ codec: aac, bitrate: 128k }"),
        ]
        for (ext, video, audio) in cases {
            let (estimate, real) = try Self.estimatedAndReal(dir, src, Self.recipe(ext, video: video, audio: audio), out: dir.file("clip-x.\(ext)"))
            #expect(abs(Double(estimate - real)) <= 0.02 * Double(real), "\(ext): estimated \(estimate), wrote \(real)")
        }
    }

    @Test("plan --json: the estimate's fields; sample encode for quality-coded video, bit rate for AAC; fast assumes and encodes nothing")
    func fields() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 2, width: 320, height: 240)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("mp4", video: "{ codec: h264, quality: 23 }", audio: "{ codec: aac, bitrate: 128k }"))
        let (e, _, _) = try Self.planned(recipe, src)
        #expect(Set(e.keys) == ["method", "bytes", "low", "high", "overhead", "sourceBytes", "exceedsSource", "sampled", "tracks"])
        #expect(e["method"] as? String == "sample" && e["sampled"] as? String == "1 span of 2.000s")
        #expect(e["sourceBytes"] as? Int == Self.size(src))
        let tracks = try #require(e["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["basis"] as? String } == ["sample", "bitrate"])
        #expect(tracks.map { $0["output"] as? Int } == [1, 2])
        #expect(tracks.map { Set($0.keys) } == Array(repeating: ["output", "bytes", "basis", "spread", "detail"], count: 2))
        #expect(tracks[1]["bytes"] as? Int == 128_000 * 2 / 8)
        let bytes = e["bytes"] as? Int ?? 0, low = e["low"] as? Int ?? 0, high = e["high"] as? Int ?? 0
        #expect(low < bytes && bytes < high)
        #expect(bytes == tracks.reduce(e["overhead"] as? Int ?? 0) { $0 + ($1["bytes"] as? Int ?? 0) })
        let fast = try Self.planned(recipe, src, fast: true).estimate
        #expect(fast["method"] as? String == "fast" && fast["sampled"] is NSNull)
        let fastTracks = try #require(fast["tracks"] as? [[String: Any]])
        #expect(fastTracks.map { $0["basis"] as? String } == ["assumed", "bitrate"])
        #expect(fastTracks[0]["detail"] as? String == "assumed 0.1 bits per pixel at 320x240")
        // 0.1 bits per pixel of 320x240 at 30 fps for 2 s.
        #expect(fastTracks[0]["bytes"] as? Int == Int(0.1 * 320 * 240 * 30) * 2 / 8)
        let text = try Binary.run(["plan", recipe, "-i", src, "--estimate", "fast"], timeLimit: 60)
        let line = text.stdout.split(separator: "\n").first { $0.hasPrefix("size     ≈ ") }.map(String.init) ?? ""
        #expect(line.hasSuffix(", fast: quality-coded tracks assumed, nothing encoded; the source is \(String(format: "%.1f", Double(Self.size(src)) / 1000)) kB"), "\(text.stdout)")
        let bad = try Binary.run(["plan", recipe, "-i", src, "--estimate", "slow"], timeLimit: 60)
        #expect(bad.status == 64 && bad.stderr.contains("--estimate must be sample or fast, not 'slow'"))
    }

    @Test("plan: an estimate larger than the source is a warning (text and JSON); each output of 'outputs:' has its own estimate")
    func largerThanSource() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 2, width: 320, height: 240)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("mov", video: "{ codec: prores }", audio: "{ codec: pcm }"))
        let (e, warnings, _) = try Self.planned(recipe, src, fast: true)
        #expect(e["exceedsSource"] as? Bool == true)
        let w = try #require(warnings.first { $0["kind"] as? String == "size" })
        #expect((w["message"] as? String ?? "").hasPrefix("the output is estimated at ") && (w["message"] as? String ?? "").hasSuffix(" kB)"))
        let text = try Binary.run(["plan", recipe, "-i", src, "--estimate", "fast"], timeLimit: 60)
        #expect(text.stdout.contains("warning: \(src): the output is estimated at "), "\(text.stdout)")
        let two = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                a: { track: audio }
            outputs:
              - path: "{dir}/{stem}-a.m4a"
                inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ]
              - path: "{dir}/{stem}-b.m4a"
                inputs: [ { source: a, settings: { codec: aac, bitrate: 192k } } ]
            """, name: "two.yaml")
        let r = try Binary.run(["plan", two, "-i", src, "--json"], timeLimit: 60)
        let outputs = try #require(BatchFixture.json(r.stdout)?["outputs"] as? [[String: Any]], "\(r.stderr)")
        let audio = outputs.map { (($0["estimate"] as? [String: Any])?["tracks"] as? [[String: Any]])?.first?["bytes"] as? Int }
        #expect(audio == [64_000 * 2 / 8, 192_000 * 2 / 8])
    }

    /// Ten corpus files of different content: phone, action camera, drone, animation, camera,
    /// web video, a camera's 3GP, a transport stream, an edit-listed clip. (Outputs of a few kB
    /// — a 1.2 s clip, a still screen — are left out: the container's own bytes, modelled per
    /// sample, are half of them, and the estimate is 12–30 % over there.)
    static let corpusFiles = [
        "gpmf-parser/hero7.mp4", "gpmf-parser/karma.mp4", "nom-exif/3gp_640x360.3gp", "nom-exif/webm_480.webm",
        "androidx-media/mp4_iibbibb_editlist_videoonly.mp4", "mediabunny/missing-keyframe-labels.ts",
        "androidx-media/mp4_bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4", "nom-exif/meta.mp4",
        "nom-exif/sony-a7-xavc.MP4", "mediabunny/edts.mp4",
    ]

    @Test("sample encode: within ±10 % of the real size on ten corpus files (a proxy: 640x360 box, quality 23, half-second GOPs)",
          .enabled(if: corpus != nil))
    func corpusWithinTenPercent() throws {
        let dir = Scratch()
        let proxy = """
            recipe: 1
            output: "{dir}/{stem}-proxy.mp4"
            reader:
              outputs:
                v: { track: video }
                a: { track: audio, optional: true }
            writer:
              inputs:
                - { source: v, settings: { codec: h264, quality: 23, width: 640, height: 360, frame-rate: 30, gop: 15, codec-options: { preset: veryfast } } }
                - { source: a, settings: { codec: aac, bitrate: 96k } }
            """
        for name in Self.corpusFiles {
            let src = dir.file(FilePaths.name(of: name))
            try? FileManager.default.removeItem(atPath: src)
            try FileManager.default.copyItem(atPath: (Self.corpus ?? "") + "/" + name, toPath: src)
            let out = dir.file(FilePaths.stem(of: src) + "-proxy.mp4")
            let (estimate, real) = try Self.estimatedAndReal(dir, src, proxy, out: out)
            #expect(real > 0 && abs(Double(estimate - real)) <= 0.1 * Double(real), "\(name): estimated \(estimate), wrote \(real)")
        }
    }
}
