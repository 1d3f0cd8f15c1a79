import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A chunked output's join fails closed (`ChunkJoin`, `ChunkJoinCheck`): a chunk that lost
/// pictures, or whose pictures do not decode cleanly, fails the run with a message naming the
/// chunk, and nothing is written — not the output, not its temp file.
@Suite("chunk join: a damaged chunk fails the run and names it", .serialized)
struct ChunkJoinCheckTests {
    /// 9 s at 30 fps (stamped, with sound) and its plan in 3 chunks of 3 s, the chunks encoded.
    static func chunked(_ dir: Scratch) throws -> (plan: ConversionPlan, folder: String) {
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30)), frames: 270, audio: true)
        let recipe = try RecipeParser.parse("""
            recipe: 1
            output: \(dir.file("out.mp4"))
            parallel: { chunks: 3 }
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, quality: 28, gop: 30, codec-options: { preset: ultrafast } } }
                - { source: sound, settings: aac-stereo }
            """, file: dir.file("r.yaml")).get()
        let plan = try RecipeCompiler.compile(recipe, input: src).plan
        let chunking = try #require(plan.chunking)
        #expect(chunking.chunks.map(\.frames) == [90, 90, 90])
        let folder = try ChunkedRun.makeFolder(for: plan)
        for k in chunking.chunks.indices { try ExportSession(plan: try ChunkedRun.chunkPlan(plan, chunk: k, folder: folder)).run() }
        return (plan, folder)
    }

    static func chunkFile(_ folder: String, _ number: Int) -> String { folder + "/" + String(format: "chunk-%05d.mp4", number) }

    /// What the run left in `dir` besides the source.
    static func left(_ dir: Scratch, folder: String) -> [String] {
        dir.contents.filter { $0 != "src.mp4" && $0 != (folder as NSString).lastPathComponent }
    }

    @Test("the chunks joined as they are: the output shows frames 0…269 at k/30")
    func joinsWhole() throws {
        let dir = Scratch()
        let (plan, folder) = try Self.chunked(dir)
        defer { ChunkedRun.removeFolder(folder) }
        try ExportSession(plan: ChunkedRun.joinPlan(plan, folder: folder)).run()
        let stamps = try Media.stamps(dir.file("out.mp4"))
        #expect(stamps.map(\.stamp) == Array(0..<270).map { Optional($0) })
        #expect(stamps.enumerated().allSatisfy { $1.pts == MediaTime(value: Int64($0), timescale: 30) })
    }

    @Test("chunk 2 cut short (its last 20 pictures gone): the run fails naming chunk 2, nothing written")
    func shortChunk() throws {
        let dir = Scratch()
        let (plan, folder) = try Self.chunked(dir)
        defer { ChunkedRun.removeFolder(folder) }
        let file = Self.chunkFile(folder, 2), cut = folder + "/cut.mp4"
        _ = try AudioCodecTests.ffmpeg(["-i", file, "-frames:v", "70", "-c", "copy", cut])
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.moveItem(atPath: cut, toPath: file)
        // Named by the chunk's file, at the time in it its last picture is shown.
        #expect(throws: MediaError(.processing, "chunk 2 holds 70 pictures, the plan 90", file: file, track: 0, time: MediaTime(value: 69, timescale: 30))) {
            try ExportSession(plan: ChunkedRun.joinPlan(plan, folder: folder)).run()
        }
        #expect(Self.left(dir, folder: folder) == [])
    }

    @Test("chunk 3's pictures damaged (bytes of its slices overwritten): the check's decode fails naming chunk 3, nothing written")
    func damagedChunk() throws {
        let dir = Scratch()
        let (plan, folder) = try Self.chunked(dir)
        defer { ChunkedRun.removeFolder(folder) }
        // Overwrite a run of bytes in the middle of each of chunk 3's larger samples.
        let file = Self.chunkFile(folder, 3)
        let lines = String(decoding: try FFprobe.output(of: "/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pos,size",
                                                                                   "-of", "csv=p=0", file]), as: UTF8.self).split(separator: "\n")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        for line in lines {
            let f = line.split(separator: ",").compactMap { Int($0) }
            guard f.count == 2, f[0] > 0, f[1] > 64 else { continue }
            for i in (f[1] + f[0] / 2 - 8)..<(f[1] + f[0] / 2 + 8) where i < bytes.count { bytes[i] = 0xff }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        do {
            try ExportSession(plan: ChunkedRun.joinPlan(plan, folder: folder)).run()
            Issue.record("a damaged chunk was joined")
        } catch {
            #expect(error.message.hasPrefix("the joined output fails its check: chunk 3 does not decode cleanly at "), "\(error.message)")
            #expect(error.file == dir.file("out.mp4"))
        }
        #expect(Self.left(dir, folder: folder) == [])
    }

    /// `plan` with its pictures' planned times moved: `moved(k, t)` is picture k's new time.
    static func retimed(_ plan: ConversionPlan, _ moved: (Int, MediaTime) -> MediaTime) throws -> ConversionPlan {
        var p = plan
        let c = try #require(plan.chunking)
        var r = ChunkedEncode(lane: c.lane, chunks: c.chunks, workers: c.workers, threadsPerWorker: c.threadsPerWorker, gopFrames: c.gopFrames,
                              frameTimes: c.frameTimes.enumerated().map { moved($0, $1) }, files: c.files)
        r.rate = c.rate
        p.chunking = r
        return p
    }

    @Test("a picture off its planned time by a millisecond: the check names it in the track's ticks (1/15360), both times told apart; the first picture may sit up to a millisecond early in MP4 (the empty edit's rounding), not 2 ms")
    func timesInTicks() throws {
        let dir = Scratch()
        let (plan, folder) = try Self.chunked(dir)
        defer { ChunkedRun.removeFolder(folder) }
        try ExportSession(plan: ChunkedRun.joinPlan(plan, folder: folder)).run()
        let out = dir.file("out.mp4"), ms = MediaTime(value: 1, timescale: 1000)
        try ChunkJoinCheck.verify(out, plan: plan)
        // Picture 101 (in chunk 2, at 100/30 s: tick 51200) planned 1 ms later (tick 51215.36).
        #expect(throws: MediaError(.processing, "the joined output fails its check: picture 101 is at tick 51200 of 1/15360 (3.333s), "
                                   + "the plan puts it at tick 51215 (3.334s) (chunk 2); nothing is written", file: out)) {
            try ChunkJoinCheck.verify(out, plan: try Self.retimed(plan) { k, t in k == 100 ? t + ms : t })
        }
        // Every picture planned 0.9 ms later: the written track starts within the MP4 edit's millisecond.
        try ChunkJoinCheck.verify(out, plan: try Self.retimed(plan) { _, t in t + MediaTime(value: 9, timescale: 10000) })
        // 2 ms later: picture 1 is off.
        #expect(throws: MediaError(.processing, "the joined output fails its check: picture 1 is at tick 0 of 1/15360 (0.000s), "
                                   + "the plan puts it at tick 31 (0.002s) (chunk 1); nothing is written", file: out)) {
            try ChunkJoinCheck.verify(out, plan: try Self.retimed(plan) { _, t in t + ms + ms })
        }
        // 0.9 ms later, and picture 101 a millisecond more: named with the start's move.
        #expect(throws: MediaError(.processing, "the joined output fails its check: picture 101 is at tick 51200 of 1/15360 (3.333s), "
                                   + "the plan puts it at tick 51229 (3.335s), moved -14 ticks with the track's start (chunk 2); nothing is written", file: out)) {
            try ChunkJoinCheck.verify(out, plan: try Self.retimed(plan) { k, t in t + MediaTime(value: 9, timescale: 10000) + (k == 100 ? ms : .zero) })
        }
    }
}
