import Foundation
import Pipeline
import Recipe
import Testing

/// A trim is cut at frame boundaries: each end the recipe asked for moves to the nearest frame
/// start (ties earlier) — the source's frames with source timing, the output's with a frame-rate
/// conversion — and audio is cut at the same instants.
@Suite("Trims cut at frame boundaries")
struct TrimSnapTests {
    static func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }

    /// 100 stamped frames at 50 fps with audio bursts at frames 30 and 90.
    static func source50(_ dir: Scratch) throws -> String {
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 50))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 100, audio: true)
        return src
    }

    static func request(_ src: String, _ out: String, start: MediaTime, duration: MediaTime,
                        video: VideoSettings = .fast()) -> ConversionRequest {
        var r = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(video)),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        r.timeRange = TimeRange(start: start, duration: duration)
        return r
    }

    struct Case: Sendable, CustomStringConvertible {
        let start: Int64, duration: Int64   // ms
        let firstFrame: Int, endFrame: Int  // source frames kept: firstFrame..<endFrame
        var description: String { "\(start) ms + \(duration) ms" }
    }

    @Test("source timing: the range moves to the nearest source frame starts, no sliver frame, audio in sync", arguments: [
        Case(start: 250, duration: 1000, firstFrame: 12, endFrame: 62),   // ties: 0.25 → 0.24, 1.25 → 1.24
        Case(start: 255, duration: 1000, firstFrame: 13, endFrame: 63),   // 0.255 → 0.26, 1.255 → 1.26
        Case(start: 229, duration: 503, firstFrame: 11, endFrame: 37),    // 0.229 → 0.22, 0.732 → 0.74
        Case(start: 1, duration: 5, firstFrame: 0, endFrame: 1),          // shorter than a frame: the frame it starts on
    ])
    func sourceTiming(_ c: Case) throws {
        let dir = Scratch()
        let src = try Self.source50(dir)
        let out = dir.file("out.mp4")
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(c.start), duration: Self.ms(c.duration)))
        let frame = MediaTime(value: 1, timescale: 50)
        #expect(plan.timeRange == TimeRange(start: frame * Int64(c.firstFrame), end: frame * Int64(c.endFrame)))
        #expect(plan.requestedTimeRange == TimeRange(start: Self.ms(c.start), duration: Self.ms(c.duration)))
        let notice = plan.notices.first { $0.item == "time-range" }
        #expect(notice?.kind == .changed)
        try ExportSession(plan: plan).run()

        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == (c.firstFrame..<c.endFrame).map { Optional($0) })
        #expect(stamps.map(\.pts) == (0..<(c.endFrame - c.firstFrame)).map { frame * Int64($0) })
        // Audio is cut at the same instants: the burst of frame 30 lies where frame 30 is shown.
        if (c.firstFrame...c.endFrame).contains(30) {
            let onsets = try Media.burstOnsets(out)
            let expected = Double(30 - c.firstFrame) * 0.02
            #expect(onsets.count == 1)
            if let o = onsets.first { #expect(abs(o - expected) < 0.002, "burst at \(o), frame 30 at \(expected)") }
        }
        let audio = try #require(try FFprobe.stream(out, "a:0", "duration"))
        #expect(abs((Double(audio["duration"] ?? "") ?? 0) - Double(c.endFrame - c.firstFrame) * 0.02) < 0.0005)
    }

    @Test("a start in the last frame, nearer its end, keeps that frame: a start never goes to the video's end")
    func startInLastFrame() throws {
        let dir = Scratch()
        let src = try Self.source50(dir)
        let out = dir.file("out.mp4")
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(1995), duration: Self.ms(1000)))
        #expect(plan.timeRange.start == MediaTime(value: 99, timescale: 50))
        try ExportSession(plan: plan).run()
        #expect(try Media.stamps(out).map(\.stamp) == [99])
    }

    @Test("a frame-rate conversion snaps to the output's frames, counted from the file's start")
    func outputGrid() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 60))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 120, audio: true)
        let out = dir.file("out.mp4")
        // 0.25 s is slot 7.5 of 30 fps (a tie: 7/30), 1.25 s is slot 37.5 (37/30).
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(250), duration: Self.ms(1000),
                                                 video: .fast(rate: FrameRate(frames: 30), policy: .exact)))
        let slot = MediaTime(value: 1, timescale: 30)
        #expect(plan.timeRange == TimeRange(start: slot * 7, end: slot * 37))
        try ExportSession(plan: plan).run()
        let stamps = try Media.stamps(out)
        // Slot k of the trim is slot 7 + k of the whole: source frame 2·(7 + k).
        #expect(stamps.map(\.stamp) == (0..<30).map { Optional(14 + 2 * $0) })
        #expect(stamps.map(\.pts) == (0..<30).map { slot * Int64($0) })
    }

    @Test("audio alone is cut where asked")
    func audioOnly() throws {
        let dir = Scratch()
        let src = dir.file("src.m4a")
        let source = try FrameSource(path: src, video: nil, audio: GeneratedAudioFormat())
        try source.appendAudio(count: 96000) { _, _ in 0 }
        try source.finish()
        var r = ConversionRequest(source: src, output: dir.file("out.m4a"), tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))])
        r.timeRange = TimeRange(start: Self.ms(250), duration: Self.ms(1001))
        let plan = try Planner.plan(r)
        #expect(plan.timeRange == TimeRange(start: Self.ms(250), duration: Self.ms(1001)))
        #expect(plan.requestedTimeRange == nil)
        #expect(plan.notices.isEmpty)
    }

    @Test("a range on frame starts stays as it is; an untrimmed end is not moved")
    func alreadyOnFrames() throws {
        let dir = Scratch()
        let src = try Self.source50(dir)
        let plan = try Planner.plan(Self.request(src, dir.file("out.mp4"), start: Self.ms(240), duration: Self.ms(60_000)))
        #expect(plan.timeRange.start == Self.ms(240))
        #expect(plan.timeRange.end == plan.source.startTime + plan.source.duration)
        #expect(plan.requestedTimeRange == nil)
        #expect(!plan.notices.contains { $0.item == "time-range" })
    }

    /// gpmf-parser/hero7.mp4 (29.97 fps) through trim-clip's 1 s + 2 s: frames 30…89, the first
    /// one whole.
    @Test("hero7.mp4: a 1 s trim starts on frame 30", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func hero7() throws {
        let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
        let src = corpus + "/gpmf-parser/hero7.mp4"
        let dir = Scratch()
        let out = dir.file("out.mp4")
        var v = VideoSettings.fast()
        v.width = 320; v.height = 240
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(1000), duration: Self.ms(2000), video: v))
        let frame = MediaTime(value: 1001, timescale: 30000)
        #expect(plan.timeRange == TimeRange(start: frame * 30, end: frame * 90))
        try ExportSession(plan: plan).run()
        let r = try SampleReader(path: out, track: .type(.video, 0))
        var pts: [MediaTime] = []
        while let p = try r.nextPicture() { pts.append(p.pts) }
        #expect(pts.count == 60)
        #expect(pts.enumerated().allSatisfy { abs($0.element.seconds - Double($0.offset) * 1001 / 30000) < 0.0001 })
    }
}
