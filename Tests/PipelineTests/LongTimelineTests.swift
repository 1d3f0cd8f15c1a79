import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Many segments do not drift: 500 pieces of a 5-minute file, each 0.5 s with 0.1 s cut out
/// after it, joined. Every count comes from absolute positions on the timeline, so the output
/// ends on the sample and slot the rational sum says, and the sound stays with its pictures to
/// the last segment.
@Suite("A 500-segment timeline")
struct LongTimelineTests {
    static let rate = FrameRate(frames: 30)

    @Test("cut every 0.6 s of a 5-minute file to 0.5 s, 500 segments: 250 s exactly, every frame right, every burst within a frame of its picture")
    func fiveHundredSegments() throws {
        let dir = Scratch()
        let src = dir.file("long.mp4")
        // 300 s at 30 fps; a burst at frame 18k + 7 (0.2333 s into each 0.6 s piece).
        var format = GeneratedVideoFormat(width: 96, height: 64, frameRate: Self.rate)
        format.gop = 30
        format.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: format, frames: 9000, audio: true, markers: Media.Markers(firstMarker: 7, markerEvery: 18))

        let piece = MediaTime(value: 1, timescale: 2), step = MediaTime(value: 3, timescale: 5)
        var req = ConversionRequest(source: src, output: dir.file("joined.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(frameRate: .rate(Self.rate), codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.timeline = (0..<500).map { k in SegmentRequest(start: step * Int64(k), end: step * Int64(k) + piece) }
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 250))
        #expect(plan.composedSegments?.count == 500)
        let result = try ExportSession(plan: plan).run()

        // Sound: exactly 250 s of samples, the sum of the segments.
        #expect(result.lanes[1].unitsOut == 250 * 48000)
        // Pictures: 7500 slots; slot n is in piece n/15, frame n%15 of it: source frame 18·(n/15) + n%15.
        let stamps = try Media.stamps(dir.file("joined.mp4"))
        #expect(stamps.count == 7500)
        var wrong: [String] = []
        for (n, s) in stamps.enumerated() {
            let want = 18 * (n / 15) + n % 15
            if s.stamp != want || s.pts != Self.rate.frameDuration * Int64(n) {
                wrong.append("frame \(n) at \(s.pts.seconds): \(s.stamp.map(String.init) ?? "none"), want \(want)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong: \(wrong.prefix(5))")
        // Bursts: one per piece, at 0.5·k + 7/30 s, each within one frame — the last as the first.
        let onsets = try Media.burstOnsets(dir.file("joined.mp4"))
        #expect(onsets.count == 500)
        var late: [String] = []
        for (k, onset) in onsets.enumerated() {
            let want = 0.5 * Double(k) + 7.0 / 30
            if abs(onset - want) > 1.0 / 30 { late.append("burst \(k) at \(onset) s, want \(want)") }
        }
        #expect(late.isEmpty, "\(late.count) off: \(late.prefix(5))")
        if let last = onsets.last { #expect(abs(last - (0.5 * 499 + 7.0 / 30)) <= 1.0 / 48000 * 64, "last burst at \(last) s") }
    }
}
