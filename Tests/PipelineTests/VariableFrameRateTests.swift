import Foundation
import Pipeline
import Recipe
import Testing

/// `frame-rate` with the cap policy on a variable-frame-rate source gives a standard rate — the
/// cap, or the standard rate nearest the source's nominal rate when that is below the cap —
/// never the source's average (which leaked into outputs as 3628800/502589 and the like).
@Suite("Variable-frame-rate sources get standard rates")
struct VariableFrameRateTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// Frame gaps in 1/90000 s, repeated; every `holeEvery`th gap is `hole` instead.
        let gaps: [Int64]
        let holeEvery: Int
        let hole: Int64
        let frames: Int
        let policy: FrameRatePolicy
        let expected: FrameRate
        let rule: String
        var description: String { name }
    }

    static let cases: [Case] = [
        // A 30 fps phone clip with 0.1 s holes (low light): average 26.5.
        Case(name: "30 with holes, cap 30", gaps: [3000], holeEvery: 10, hole: 9000, frames: 90, policy: .cap,
             expected: FrameRate(frames: 30), rule: "frame-rate.vfr-cap"),
        // 24 fps with holes: average about 21; the cap is above the nominal 24.
        Case(name: "24 with holes, cap 30", gaps: [3750], holeEvery: 8, hole: 11250, frames: 72, policy: .cap,
             expected: FrameRate(frames: 24), rule: "frame-rate.vfr-nominal"),
        // 59.94 with jitter and a hole: capped to the 1001 family.
        Case(name: "59.94 with jitter, cap 30", gaps: [1501, 1502, 1502], holeEvery: 30, hole: 6006, frames: 120, policy: .cap,
             expected: FrameRate(frames: 30000, seconds: 1001), rule: "frame-rate.vfr-cap-ntsc"),
        // Divisor on a 50 fps source with holes: 50/2, not average/2.
        Case(name: "50 with holes, divisor 30", gaps: [1800], holeEvery: 12, hole: 5400, frames: 100, policy: .divisor,
             expected: FrameRate(frames: 25), rule: "frame-rate.divisor"),
    ]

    static func times(_ c: Case) -> [MediaTime] {
        var t: Int64 = 0
        var out: [MediaTime] = []
        for i in 0..<c.frames {
            out.append(MediaTime(value: t, timescale: 90000))
            t += (i % c.holeEvery == c.holeEvery - 1) ? c.hole : c.gaps[i % c.gaps.count]
        }
        return out
    }

    @Test("the output rate is a standard one; each output frame shows the nearest source frame", arguments: cases)
    func standardRate(_ c: Case) throws {
        let dir = Scratch()
        let src = dir.file("vfr.mp4")
        let times = Self.times(c)
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        v.timescale = 90000
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: times.count, times: times)

        let out = dir.file("out.mp4")
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30), policy: c.policy)))
        ]))
        #expect(plan.lanes[0].track.format.isVariableFrameRate)
        guard case .video(let resolved) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(resolved.frameRate == c.expected)
        #expect(resolved.decision("frame-rate")?.rule == c.rule)
        try ExportSession(plan: plan).run()

        let rate = try #require(try FFprobe.stream(out, "v:0", "r_frame_rate,avg_frame_rate"))
        #expect(rate["r_frame_rate"] == "\(c.expected.frames)/\(c.expected.seconds)")
        let stamps = try Media.stamps(out)
        let last = times.last! + MediaTime(value: c.gaps[0], timescale: 90000)
        let expected = expectedStamps(times: times, end: last, rate: c.expected)
        #expect(stamps.map(\.stamp) == expected.map { Optional($0) })
        #expect(stamps.map(\.pts) == (0..<stamps.count).map { c.expected.frameDuration * Int64($0) })
    }

    @Test("steady sources are not variable: 29.97 and 25 keep their rates under a 30 cap", arguments: [
        FrameRate(frames: 30000, seconds: 1001), FrameRate(frames: 25), FrameRate(frames: 15),
    ])
    func constantRate(_ r: FrameRate) throws {
        let dir = Scratch()
        let src = dir.file("cfr.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: r)
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 45)
        let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30), policy: .cap)))
        ]))
        #expect(!plan.lanes[0].track.format.isVariableFrameRate)
        guard case .video(let resolved) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(resolved.frameRate == r)
        #expect(resolved.decision("frame-rate")?.rule == "frame-rate.cap-keep")
    }

    /// The corpus files the issue names, and others with uneven frames: a standard rate each.
    @Test("corpus: variable-frame-rate files get standard rates under a 30 fps cap",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil),
          arguments: [
            ("mediabunny/cursed-vfr.mp4", FrameRate(frames: 30)),
            ("androidx-media/mp4_pixel-motion-photo-2-hevc-tracks.mp4", FrameRate(frames: 30)),
            ("androidx-media/mp4_sample_android_slow_motion.mp4", FrameRate(frames: 30)),
            ("androidx-media/mp4_bt601.mov", FrameRate(frames: 30000, seconds: 1001)),
            ("androidx-media/mp4_portrait_4k60.mp4", FrameRate(frames: 30)),
            ("gpmf-parser/hero7.mp4", FrameRate(frames: 30000, seconds: 1001)),
          ])
    func corpus(_ file: String, _ expected: FrameRate) throws {
        let src = (ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? "") + "/" + file
        let dir = Scratch()
        let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30), policy: .cap)))
        ]))
        guard case .video(let resolved) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(resolved.frameRate == expected, "\(file): \(resolved.frameRate.map(\.description) ?? "source")")
    }

    struct RuleCase: Sendable, CustomStringConvertible {
        let average: FrameRate
        /// What the planner measured (median frame duration); nil: not measured.
        let nominal: FrameRate?
        /// r_frame_rate, as 1 / minFrameDuration.
        let base: FrameRate?
        let policy: FrameRatePolicy
        let expected: FrameRate
        let rule: String
        var description: String { "avg \(average), nominal \(nominal.map(\.description) ?? "-"), base \(base.map(\.description) ?? "-"), \(policy)" }
    }

    @Test("the assistant's rules for variable-frame-rate sources (30 fps target)", arguments: [
        RuleCase(average: FrameRate(frames: 3628800, seconds: 502589), nominal: FrameRate(frames: 57600, seconds: 1907), base: FrameRate(frames: 57600),
                 policy: .cap, expected: FrameRate(frames: 30), rule: "frame-rate.vfr-cap"),
        RuleCase(average: FrameRate(frames: 580000, seconds: 21007), nominal: nil, base: FrameRate(frames: 120),
                 policy: .cap, expected: FrameRate(frames: 30), rule: "frame-rate.vfr-cap"),
        // Nothing measured and no usable base rate: the standard rate nearest the average.
        RuleCase(average: FrameRate(frames: 630000, seconds: 47281), nominal: nil, base: FrameRate(frames: 57600),
                 policy: .cap, expected: FrameRate(frames: 15), rule: "frame-rate.vfr-nominal"),
        RuleCase(average: FrameRate(frames: 200, seconds: 9), nominal: FrameRate(frames: 47, seconds: 2), base: nil,
                 policy: .cap, expected: FrameRate(frames: 24000, seconds: 1001), rule: "frame-rate.vfr-nominal"),
        RuleCase(average: FrameRate(frames: 200, seconds: 9), nominal: FrameRate(frames: 25), base: nil,
                 policy: .exact, expected: FrameRate(frames: 30), rule: "frame-rate.exact"),
        RuleCase(average: FrameRate(frames: 100, seconds: 3), nominal: FrameRate(frames: 100), base: nil,
                 policy: .divisor, expected: FrameRate(frames: 25), rule: "frame-rate.divisor"),
    ])
    func rules(_ c: RuleCase) throws {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        f.width = 640; f.height = 360
        f.averageFrameRate = c.average
        f.isVariableFrameRate = true
        f.nominalFrameRate = c.nominal
        f.minFrameDuration = c.base?.frameDuration
        let r = try SettingsAssistant(capabilities: { _ in nil })
            .video(source: f, settings: VideoSettings(frameRate: .rate(FrameRate(frames: 30)), frameRatePolicy: c.policy))
        #expect(r.frameRate == c.expected)
        #expect(r.decision("frame-rate")?.rule == c.rule)
    }
}
