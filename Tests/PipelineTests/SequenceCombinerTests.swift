import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The sequence combiner on a plan built directly (no recipe syntax): a middle section cut out
/// of one frame-stamped source, played as two segments end to end.
@Suite("Sequence of segments: cutting a middle section out keeps A/V sync")
struct SequenceCombinerTests {
    static let rate = FrameRate(frames: 30)

    /// 10 s at 30 fps with audio bursts at frames 30, 90, 150, 210, 270 (1, 3, 5, 7, 9 s).
    func source(_ dir: Scratch) throws -> String {
        let src = dir.file("src.mp4")
        var format = GeneratedVideoFormat(width: 320, height: 180, frameRate: Self.rate)
        format.gop = 30
        try Media.make(src, video: format, frames: 300, audio: true)
        return src
    }

    /// The plan of the whole file, then its timeline replaced by `pieces` end to end.
    func cutPlan(_ src: String, _ out: String, keep pieces: [TimeRange], rate: FrameRate?) throws -> ConversionPlan {
        let req = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: rate))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        let plan = try Planner.plan(req)
        let timeline = try TimeMapping.sequence(pieces.map { (0, nil, $0, .identity) })
        return plan.composed(timeline)
    }

    @Test("two segments of one source (4–6 s cut out): every frame is the right one, bursts stay with their frames",
          arguments: [FrameRate(frames: 30), nil])
    func cutOutKeepsSync(rate: FrameRate?) throws {
        let dir = Scratch()
        let src = try source(dir)
        let out = dir.file("cut.mp4")
        let plan = try cutPlan(src, out, keep: [TimeRange(start: .zero, end: MediaTime(seconds: 4)),
                                                TimeRange(start: MediaTime(seconds: 6), end: MediaTime(seconds: 10))], rate: rate)
        #expect(plan.duration == MediaTime(seconds: 8))
        let result = try ExportSession(plan: plan).run()
        #expect(result.duration == MediaTime(seconds: 8))

        // Pictures: 0–3.967 s show frames 0–119, then 4 s on frames 180–299.
        let stamps = try Media.stamps(out)
        #expect(stamps.count == 240)
        for (k, s) in stamps.enumerated() {
            let want = k < 120 ? k : k + 60
            #expect(s.stamp == want, "output frame \(k) at \(s.pts.seconds) s")
            #expect(s.pts == Self.rate.frameDuration * Int64(k), "output frame \(k)")
        }

        // Sound: bursts at 1, 3 s (before the cut) and at source 7, 9 s → 5, 7 s; the 5 s burst
        // of the source is cut out. Each within a frame of the picture that carries its marker.
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 4, "\(onsets)")
        for (onset, want) in zip(onsets, [1.0, 3.0, 5.0, 7.0]) {
            #expect(abs(onset - want) <= 1.0 / 30, "burst at \(onset) s, its frame at \(want) s")
            let shown = stamps.last { $0.pts.seconds <= onset + 1e-9 }?.stamp
            #expect([30, 90, 210, 270].contains(shown ?? -1), "burst at \(onset) s shows frame \(shown ?? -1)")
        }

        // Audio length: exactly the rational sum of the segments, 8 s of 48 kHz samples.
        #expect(result.lanes[1].unitsOut == 8 * 48000)
    }

    @Test("a segment whose source ends early leaves a gap: black slots and silence, and the next segment lands where the sum says")
    func gapIsBlackAndSilent() throws {
        let dir = Scratch()
        let src = dir.file("short.mp4")
        var format = GeneratedVideoFormat(width: 320, height: 180, frameRate: Self.rate)
        format.gop = 30
        try Media.make(src, video: format, frames: 90, audio: true)  // 3 s, one burst: frame 30 (1 s)
        let out = dir.file("gap.mp4")
        // 2–3.5 s holds only 1 s of material; then 0–2 s from target 1.5 s on.
        let plan = try cutPlan(src, out, keep: [TimeRange(start: MediaTime(seconds: 2), end: MediaTime(value: 7, timescale: 2)),
                                                TimeRange(start: .zero, end: MediaTime(seconds: 2))], rate: Self.rate)
        #expect(plan.duration == MediaTime(value: 7, timescale: 2))
        let result = try ExportSession(plan: plan).run()
        let stamps = try Media.stamps(out)
        #expect(stamps.count == 105)
        // Black: every luma sample at video black (16, limited range), within coding noise.
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0
        while let picture = try reader.nextPicture() {
            let black = picture.luma.allSatisfy { $0 <= 20 }
            #expect(black == (30..<45).contains(k), "output frame \(k) black: \(black)")
            k += 1
        }
        for (k, s) in stamps.enumerated() {
            #expect(s.pts == Self.rate.frameDuration * Int64(k), "output frame \(k)")
            switch k {
            case 0..<30: #expect(s.stamp == 60 + k, "output frame \(k)")
            case 30..<45: break  // black, above
            default: #expect(s.stamp == k - 45, "output frame \(k)")
            }
        }
        // 1 s of sound, 0.5 s of silence, 2 s of sound: the second segment starts on sample
        // 72000 (1.5 s), and its burst (source 1 s) sounds at 2.5 s, with source frame 30.
        #expect(result.lanes[1].unitsOut == 168_000)
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 1, "\(onsets)")
        let onset = try #require(onsets.first)
        #expect(abs(onset - 2.5) <= 1.0 / 30, "burst at \(onset) s")
        #expect(stamps.last { $0.pts.seconds <= onset + 1e-9 }?.stamp == 30)
    }
}
