import Foundation
import Pipeline
import Recipe
import Testing

/// Chunked encodes of sources whose timestamps start after 0: an MPEG-TS (FFmpeg's muxer starts
/// it at 1.4 s, on a 90 kHz clock whose ticks the microseconds FFmpeg states a file's start in
/// cannot hold: its first picture at 132000/90000 s was read as starting at 1.466667 s, after
/// itself, and left out of the chunks' plan, so the join's check refused every such file) and a
/// Matroska file moved 1.5 s on. Each chunked output shows exactly the frames, at exactly the
/// times, of the one-piece encode.
@Suite("reencode run with chunks: sources that start after 0 (MPEG-TS, MKV)", .serialized)
struct ChunkedStartCLITests {
    /// `src` (an MP4 made by `SmartRenderCLITests.makeSource`) copied into `path` by ffmpeg, with `more` arguments.
    static func remux(_ src: String, into path: String, _ more: [String]) throws {
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-y", "-i", src, "-c", "copy"] + more + [path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Where ffprobe says `file` starts, in seconds.
    static func start(_ file: String) throws -> Double {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", file])
        return Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The chunked output's pictures: frames 0…n-1, one every 1/30 s from the first — exactly,
    /// or `within` that where a file on the way keeps milliseconds (Matroska).
    static func expectFrames(_ out: String, count n: Int, within: MediaTime = .zero) throws {
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<n).map { Optional($0) })
        guard let first = stamps.first?.pts else { return }
        for (k, s) in stamps.enumerated() {
            let off = s.pts - first - MediaTime(value: Int64(k), timescale: 30)
            #expect(off <= within && MediaTime.zero - off <= within, "frame \(k) at \(s.pts), the first at \(first)")
        }
        #expect(try CopiedCompositionCLITests.packets(out).count == n)
    }

    /// The pictures `plan --json` gives each chunk.
    static func plannedPictures(_ dir: Scratch, _ src: String) throws -> [Int] {
        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        let object = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let chunks = try #require((object?["chunks"] as? [String: Any])?["chunks"] as? [[String: Any]], "\(plan.stdout)\(plan.stderr)")
        return chunks.map { $0["pictures"] as? Int ?? 0 }
    }

    @Test("MPEG-TS (H.264 with a B-pyramid, AAC, starting at 1.4 s) in 3 chunks into MP4: frames 0…359 one every 1/30 s at the one-piece encode's times, the sound's bursts in place, 120 pictures a chunk")
    func transportStreamWithSound() throws {
        let dir = Scratch()
        let made = dir.file("made.mp4"), src = dir.file("clip.ts")
        try SmartRenderCLITests.makeSource(made, seconds: 12)
        try Self.remux(made, into: src, ["-f", "mpegts"])
        #expect(try Self.start(src) > 1.3, "the transport stream starts late, as FFmpeg's muxer makes it")
        let (out, _) = try ChunkedEncodeCLITests.compare(dir, src, output: "chunked.mp4", parallel: "{ chunks: 3 }")
        try Self.expectFrames(out, count: 360)
        #expect(try Self.plannedPictures(dir, src) == [120, 120, 120])
    }

    @Test("MPEG-TS without sound (its file start is its first picture's, 132000/90000 s) in 3 chunks into MKV: frames 0…359 at the one-piece encode's times; plan's chunks start at 0, 4 and 8 s")
    func transportStreamSilent() throws {
        let dir = Scratch()
        let made = dir.file("made.mp4"), src = dir.file("clip.ts")
        try SmartRenderCLITests.makeSource(made, seconds: 12)
        try Self.remux(made, into: src, ["-an", "-f", "mpegts"])
        func recipe(_ output: String, parallel: String?) -> String {
            """
            recipe: 1
            output: "{dir}/\(output)"
            reader:
              outputs:
                picture: { track: video }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, quality: 28, codec-options: { preset: ultrafast } } }
            \(parallel.map { "parallel: \($0)\n" } ?? "")
            """
        }
        let whole = try ChunkedEncodeCLITests.run(dir, recipe("whole.mkv", parallel: nil), src)
        #expect(whole.status == 0, "\(whole.stderr)")
        let chunked = try ChunkedEncodeCLITests.run(dir, recipe("chunked.mkv", parallel: "{ chunks: 3 }"), src)
        #expect(chunked.status == 0, "\(chunked.stderr)")
        let a = try CompositionRunCLITests.stamps(dir.file("chunked.mkv")), b = try CompositionRunCLITests.stamps(dir.file("whole.mkv"))
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        try Self.expectFrames(dir.file("chunked.mkv"), count: 360, within: MediaTime(value: 1, timescale: 1000))
        #expect(try CopiedCompositionCLITests.decodeErrors(dir.file("chunked.mkv")) == "")

        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let lines = plan.stdout.split(separator: "\n").drop { !$0.hasPrefix("chunks") }.dropFirst().prefix(3).map(String.init)
        #expect(lines == [
            "  chunk 1  [0.000s, 4.000s)  120 pictures  at 0.000s  ends: keyframe grid (every 60 pictures)",
            "  chunk 2  [4.000s, 8.000s)  120 pictures  at 4.000s  ends: keyframe grid (every 60 pictures)",
            "  chunk 3  [8.000s, 12.000s)  120 pictures  at 8.000s  ends: the end",
        ], "\(plan.stdout)")
    }

    @Test("MKV whose timestamps start at 1.5 s (its sound first) in chunks of 2–3 s (auto) into MP4: frames 0…239 at the one-piece encode's times, the sound's bursts in place")
    func matroskaStartingLate() throws {
        let dir = Scratch()
        let made = dir.file("made.mp4"), src = dir.file("clip.mkv")
        try SmartRenderCLITests.makeSource(made, seconds: 8)
        try Self.remux(made, into: src, ["-output_ts_offset", "1.5"])
        #expect(try Self.start(src) > 1.4)
        let (out, _) = try ChunkedEncodeCLITests.compare(dir, src, output: "chunked.mp4", parallel: "{ chunks: auto, shortest: 2s, longest: 3s }")
        try Self.expectFrames(out, count: 240, within: MediaTime(value: 1, timescale: 1000))
        let pictures = try Self.plannedPictures(dir, src)
        #expect(pictures.count >= 3 && pictures.reduce(0, +) == 240, "\(pictures)")
    }
}
