import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Each file of a composition has its stream information read once: the first reader of each
/// file takes over the demuxer its asset was probed with (only the first segment's did: bench (m)
/// read the second and third files' stream information twice, 2.6 % of the run's instructions).
@Suite("Readers take each file's probed demuxer")
struct ReaderProbeTakeTests {
    @Test("three files end to end, then the first again: each file's first reader takes its probe, the repeat opens the file again and reads it from its start")
    func eachFileFirstReaderTakes() throws {
        let dir = Scratch()
        let paths = ConcatTests.clips.indices.map { dir.file("clip\($0).mp4") }
        for (c, p) in zip(ConcatTests.clips, paths) { try c.make(p) }
        var req = ConversionRequest(source: paths[0], output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = Array(paths.dropFirst())
        req.timeline = [0, 1, 2, 0].map { SegmentRequest(source: $0) }
        let plan = try Planner.plan(req)
        let groups = plan.readerGroups
        try #require(groups.count == 4)
        let pool = plan.makeReaders()
        var taps: [PacketTap] = []
        for g in groups.indices {
            taps.append(try pool.tap(group: g, output: 0))
            // The file's probe is gone once its first reader exists (taken, not left open).
            #expect(groups[g].source.probed.take() == nil, "group \(g) (\(groups[g].source.path)) left its file's probed demuxer")
        }
        // The repeat of the first file reads through its own demuxer, from its start.
        #expect(taps[3].stream != taps[0].stream)
        let first = try #require(try taps[3].next())
        #expect(first.pts == 0 || first.dts <= 0)
    }
}

extension ReaderProbeTakeTests {
    @Test("a source rewritten in place between plan and run is opened again, not read on through the probe's demuxer: the run fails naming it, nothing written")
    func sourceRewrittenAfterPlan() throws {
        let dir = Scratch()
        let src = dir.file("a.mp4"), out = dir.file("out.mp4")
        try ConcatTests.clips[0].make(src)
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
        ]))
        // The same inode, cut to its first 2 kB: a demuxer opened before would read on as if the
        // file had ended early.
        let handle = try #require(FileHandle(forWritingAtPath: src))
        try handle.truncate(atOffset: 2048)
        try handle.close()
        #expect(throws: MediaError.self) { try ExportSession(plan: plan).run() }
        do { try ExportSession(plan: plan).run() } catch let e {
            #expect(e.file == src, "\(e)")
            #expect(e.kind == .notMedia, "\(e)")
        }
        #expect(dir.contents.sorted() == ["a.mp4"])
    }
}

extension ReaderProbeTakeTests {
    @Test("a source replaced after the plan by a file without the planned stream (video only, the plan reads its sound): the run fails naming the file and the stream, it does not read past the file's streams")
    func sourceReplacedWithoutPlannedStream() throws {
        let dir = Scratch()
        let src = dir.file("a.mp4"), other = dir.file("b.mp4"), out = dir.file("out.mp4")
        try ConcatTests.clips[0].make(src)
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ]))
        // Video only, renamed over the source (how most tools save a file): one stream, not two.
        let s = try FrameSource(path: other, video: GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 25)), audio: nil)
        for i in 0..<5 { try s.appendPicture(at: FrameRate(frames: 25).frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        try #require(rename(other, src) == 0)
        #expect(throws: MediaError(.notMedia, "stream 1 is not in the file (it has 1): the file has changed since it was planned", file: src, track: 1)) {
            try ExportSession(plan: plan).run()
        }
        #expect(dir.contents.sorted() == ["a.mp4"])
    }
}

extension ReaderProbeTakeTests {
    @Test("a source replaced after the plan by a file whose planned stream is another kind: refused naming the stream and the file, nothing written")
    func sourceReplacedWithOtherKind() throws {
        let dir = Scratch()
        let src = dir.file("a.mp4"), other = dir.file("b.m4a"), out = dir.file("out.mp4")
        try ConcatTests.clips[0].make(src)
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
        ]))
        // Sound only, renamed over the source: its stream 0 is AAC where the plan decodes H.264.
        let s = try FrameSource(path: other, video: nil, audio: GeneratedAudioFormat(sampleRate: 48000))
        try s.appendAudio(count: 48000) { _, n in Float(0.2 * sin(Double(n) / 10)) }
        try s.finish()
        try #require(rename(other, src) == 0)
        #expect(throws: MediaError(.notMedia, "it is now audio aac, planned as video h264: the file has changed since it was planned", file: src, track: 0)) {
            try ExportSession(plan: plan).run()
        }
        #expect(dir.contents.sorted() == ["a.mp4"])
    }
}
