import Foundation
import Pipeline
import Recipe
import Testing

@Suite("Frame rate policies end to end")
struct FrameRatePolicyTests {
    struct Case: Sendable, CustomStringConvertible {
        let source: FrameRate
        let target: FrameRate
        let policy: FrameRatePolicy
        let expected: FrameRate
        let frames: Int
        var description: String { "\(source) → \(target) (\(policy)) = \(expected)" }
    }

    @Test("output frame k shows the source frame nearest to k·D", arguments: [
        Case(source: FrameRate(frames: 60), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 30), frames: 120),
        Case(source: FrameRate(frames: 60000, seconds: 1001), target: FrameRate(frames: 30), policy: .cap,
             expected: FrameRate(frames: 30000, seconds: 1001), frames: 120),
        Case(source: FrameRate(frames: 50), target: FrameRate(frames: 30), policy: .divisor, expected: FrameRate(frames: 25), frames: 100),
        Case(source: FrameRate(frames: 24), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 24), frames: 48),
        Case(source: FrameRate(frames: 24), target: FrameRate(frames: 30), policy: .exact, expected: FrameRate(frames: 30), frames: 48),
    ])
    func policy(_ c: Case) throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: c.source)
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: c.frames)
        let out = dir.file("out.mp4")
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: c.target, policy: c.policy)))
        ]))
        guard case .video(let resolved) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(resolved.frameRate == c.expected)
        try ExportSession(plan: plan).run()

        let stamps = try Media.stamps(out)
        let times = frameTimes(c.frames, rate: c.source)
        let expected = expectedStamps(times: times, end: c.source.frameDuration * Int64(c.frames), rate: c.expected)
        #expect(stamps.map(\.stamp) == expected.map { Optional($0) })
        for (k, s) in stamps.enumerated() {
            #expect(s.pts == c.expected.frameDuration * Int64(k))
        }
        if let n = try FFprobe.frameCount(out, "v:0") { #expect(n == expected.count) }
    }

    @Test("a variable-frame-rate source converts to 30 fps with no drift over 60 s")
    func variableFrameRate() throws {
        let dir = Scratch()
        let src = dir.file("vfr.mp4")
        // Gaps of 1/60, 1/30, 1/24 and an occasional 0.2 s hole, on a 1/90000 timeline.
        var times: [MediaTime] = []
        var t: Int64 = 0
        var i = 0
        while t < 60 * 90000 {
            times.append(MediaTime(value: t, timescale: 90000))
            let gaps: [Int64] = [1500, 3000, 3750, 1500, 1500, 3000]
            t += (i % 97 == 96) ? 18000 : gaps[i % gaps.count]
            i += 1
        }
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 40))
        v.timescale = 90000
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: times.count, times: times)
        let out = dir.file("out.mp4")
        try runConversion(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30), policy: .exact)))
        ]))
        let stamps = try Media.stamps(out)
        // Each frame lasts until the next; the last one a nominal 1/40 s.
        let expected = expectedStamps(times: times, end: times.last! + MediaTime(value: 1, timescale: 40), rate: FrameRate(frames: 30))
        #expect(stamps.count == expected.count)
        #expect(stamps.map(\.stamp) == expected.map { Optional($0) })
        #expect(stamps.last?.pts == MediaTime(value: Int64(stamps.count - 1), timescale: 30))
    }
}
