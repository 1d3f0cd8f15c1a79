import Foundation
import Pipeline
import Recipe
import Testing

/// A chunked output coded at a bitrate (`parallel:` with `bitrate`, `passes: 2`, `target-size`):
/// a first pass measures each chunk's complexity, each chunk gets the whole's bits by its share
/// of it and is coded to that budget in two passes. The whole file lands within ±3 % of the asked
/// bitrate; busy chunks get more bits than still ones; the pictures and their times are those of a
/// one-piece encode; a `max-bitrate` output is refused for chunking, naming why.
@Suite("reencode run with chunks at a bitrate: per-chunk budgets from a first pass", .serialized)
struct ChunkBudgetCLITests {
    static let seconds = 12

    /// 12 s at 30 fps, 320×180, frame-stamped (`TestPattern`'s band): below the band a flat grey
    /// for the first 6 s, then noise drawn anew every picture (112…143: what costs an encoder the most,
    /// yet within what 400 kb/s codes above x264's coarsest quantizer);
    /// a 1 kHz burst at every half second, as `SmartRenderCLITests.makeSource` has.
    static func makeSource(_ path: String) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat(width: 320, height: 180, frameRate: rate)
        video.gop = 30
        video.quality = 12
        video.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat())
        func tone(_ n: Int64) -> Float {
            let t = Double(n) / 48000, into = t - t.rounded(.down) - 0.5
            return into >= 0 && into < 0.08 ? Float(0.5 * sin(2 * Double.pi * 1000 * into)) : 0
        }
        var seed: UInt32 = 12345, samplesDone = 0
        for i in 0..<(30 * seconds) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { p in
                TestPattern.draw(index: i, into: p)
                let band = max(2, (p.height / 8) & ~1)
                var row = [UInt8](repeating: 128, count: p.width)
                for y in band..<p.height {
                    if i >= 30 * seconds / 2 {
                        for x in 0..<p.width {
                            seed = seed &* 1_664_525 &+ 1_013_904_223
                            row[x] = UInt8(112 + (seed >> 27))
                        }
                    }
                    row.withUnsafeBufferPointer { p.setRow(plane: 0, y: y, $0) }
                }
            }
            let until = (i + 1) * 48000 / 30
            try s.appendAudio(count: until - samplesDone) { _, n in tone(n) }
            samplesDone = until
        }
        try s.finish()
    }

    static func recipe(output: String, video: String, parallel: String?, outputExtra: String = "") -> String {
        """
        recipe: 1
        output: { path: "{dir}/\(output)"\(outputExtra) }
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: { codec: h264, \(video), codec-options: { preset: veryfast } } }
            - { source: sound, settings: aac-stereo }
        \(parallel.map { "parallel: \($0)\n" } ?? "")
        """
    }

    /// The video stream's packets: presentation time (seconds) and size.
    static func videoPackets(_ file: String) throws -> [(time: Double, bytes: Int)] {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,size",
                                                          "-of", "csv=p=0", file])
        return r.stdout.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count >= 2, let t = Double(f[0]), let b = Int(f[1]) else { return nil }
            return (t, b)
        }
    }

    /// Bytes of the video's pictures in each 4 s span (the chunks of `chunks: 3`).
    static func perChunk(_ packets: [(time: Double, bytes: Int)]) -> [Int] {
        var bytes = [0, 0, 0]
        for p in packets { bytes[min(2, max(0, Int((p.time + 1e-6) / 4)))] += p.bytes }
        return bytes
    }

    /// The video's bitrate: its pictures' bytes over its length.
    static func bitrate(_ packets: [(time: Double, bytes: Int)]) -> Double {
        Double(packets.map(\.bytes).reduce(0, +)) * 8 / Double(seconds)
    }

    @Test("bitrate: 400k in 3 chunks over half flat grey, half noise: the whole video within ±3 % of 400 kb/s, the noisy chunks with most of the bits, the frames and times of a one-piece encode; progress says 3 passes; plan states the budget rule")
    func bitrateInThreeChunks() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src)
        let whole = try ChunkedEncodeCLITests.run(dir, Self.recipe(output: "whole.mp4", video: "bitrate: 400k", parallel: nil), src)
        #expect(whole.status == 0, "\(whole.stderr)")
        let recipe = Self.recipe(output: "chunked.mp4", video: "bitrate: 400k", parallel: "{ chunks: 3 }")
        try recipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let temp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: false)
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", src, "--progress", "json"], timeLimit: 300, cwd: dir.path, environment: ["TMPDIR": temp])
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("chunked.mp4")

        let packets = try Self.videoPackets(out)
        let rate = Self.bitrate(packets)
        #expect(abs(rate - 400_000) <= 0.03 * 400_000, "the chunked video is coded at \(rate) b/s; per chunk \(Self.perChunk(packets).map { $0 * 8 / 4 }) b/s")
        // The still chunk costs next to nothing; the one all noise gets about twice the half-noisy one.
        let chunks = Self.perChunk(packets)
        #expect(chunks[0] * 20 < chunks[1] && Double(chunks[2]) > 1.5 * Double(chunks[1]), "bytes per chunk: \(chunks)")

        // The same pictures at the same times as the one-piece encode, the sound beside them, no decode error.
        let a = try CompositionRunCLITests.stamps(out), b = try CompositionRunCLITests.stamps(dir.file("whole.mp4"))
        #expect(a.map(\.stamp) == Array(0..<(30 * Self.seconds)).map { Optional($0) })
        #expect(a.map(\.stamp) == b.map(\.stamp) && a.map(\.pts) == b.map(\.pts))
        #expect(try CompositionRunCLITests.burstOnsets(out) == CompositionRunCLITests.burstOnsets(dir.file("whole.mp4")))
        #expect(try CopiedCompositionCLITests.decodeErrors(out) == "")
        // Each chunk starts with a keyframe, at 0, 4 and 8 s.
        let keys = try CopiedCompositionCLITests.packets(out).filter(\.key).map(\.pts)
        for t in [4, 8] { #expect(keys.contains(keys[0] + t * 15360), "\(keys)") }

        // Progress: the first pass, the chunks, then the join; nothing left behind.
        let passes = r.stdout.split(separator: "\n").compactMap { BatchFixture.json(String($0)) }
            .filter { $0["type"] as? String == "progress" }.map { "\($0["pass"] ?? "-")/\($0["passes"] ?? "-")" }
        #expect(passes.first == "1/3" && passes.last == "3/3" && passes.contains("2/3"), "\(passes)")
        #expect(passes.firstIndex(of: "2/3")! > passes.lastIndex(of: "1/3")! && passes.firstIndex(of: "3/3")! > passes.lastIndex(of: "2/3")!, "\(passes)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".reencode-tmp-") } == [])

        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let lines = plan.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  budgets  400 kb/s over the whole video, shared by the chunks as a first pass measures them "
                               + "(each chunk coded fast at one quality: its share of the bits is its share of those bytes); each chunk coded to its budget in two passes"),
                "\(plan.stdout)")
        let json = try Binary.run(["plan", dir.file("r.yaml"), "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let rule = try #require((object?["chunks"] as? [String: Any])?["rate"] as? [String: Any])
        #expect(rule["kind"] as? String == "budgets" && rule["bitrate"] as? Int == 400_000 && rule["chunkPasses"] as? Int == 2, "\(rule)")
    }

    @Test("AV1 at a bitrate by SVT-AV1, which runs one pass only, is refused for chunking at parallel (65), nothing written")
    func oneEncoderPass() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 3)
        let text = Self.recipe(output: "out.mp4", video: "bitrate: 400k", parallel: "{ chunks: 2 }")
            .replacingOccurrences(of: "codec: h264", with: "codec: av1").replacingOccurrences(of: "preset: veryfast", with: "preset: '12'")
        let r = try ChunkedEncodeCLITests.run(dir, text, src)
        #expect(r.status == 65)
        #expect(r.stderr.contains("r.yaml:11:11: error: the output cannot be encoded in chunks: its video is coded at a bitrate by libsvtav1, which runs one pass only, "
                                  + "and each chunk is coded to its budget in two: add 'passes: 2' (another encoder then codes it) or set a 'quality'"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.mp4", "r.yaml"])
    }

    @Test("target-size 750000 bytes in 3 chunks: the whole file within ±3 % of it; passes: 2 with a bitrate likewise lands within ±3 %")
    func targetSizeAndTwoPasses() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src)
        let target = 750_000
        let sized = try ChunkedEncodeCLITests.run(dir, Self.recipe(output: "sized.mp4", video: "passes: 2", parallel: "{ chunks: 3 }",
                                                                   outputExtra: ", target-size: \(target)")
            .replacingOccurrences(of: "passes: 2, ", with: ""), src)
        #expect(sized.status == 0, "\(sized.stderr)")
        var info = stat()
        #expect(stat(dir.file("sized.mp4"), &info) == 0)
        #expect(abs(Double(info.st_size) - Double(target)) <= 0.03 * Double(target), "\(info.st_size) bytes")

        let two = try ChunkedEncodeCLITests.run(dir, Self.recipe(output: "two.mp4", video: "bitrate: 300k, passes: 2", parallel: "{ chunks: 3 }"), src)
        #expect(two.status == 0, "\(two.stderr)")
        let rate = Self.bitrate(try Self.videoPackets(dir.file("two.mp4")))
        #expect(abs(rate - 300_000) <= 0.03 * 300_000, "the chunked video is coded at \(rate) b/s")
        #expect(try CompositionRunCLITests.stamps(dir.file("two.mp4")).map(\.stamp) == Array(0..<(30 * Self.seconds)).map { Optional($0) })
    }
}
