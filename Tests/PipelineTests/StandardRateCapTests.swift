import Pipeline
import Recipe
import Testing

/// A variable-frame-rate source with a 1001-family nominal rate, capped below it, gets a rate
/// from the standard list: the cap's 1001-family twin only where that is itself standard.
@Suite("Variable-frame-rate caps are standard rates")
struct StandardRateCapTests {
    struct Case: Sendable, CustomStringConvertible {
        let nominal: FrameRate, cap: FrameRate, expected: FrameRate, rule: String
        var description: String { "nominal \(nominal), cap \(cap)" }
    }

    @Test("the cap, or its 1001-family twin where that is a standard rate", arguments: [
        // 25000/1001 (24.975) and 50000/1001 (49.95) are nobody's frame rates.
        Case(nominal: FrameRate(frames: 30000, seconds: 1001), cap: FrameRate(frames: 25), expected: FrameRate(frames: 25), rule: "frame-rate.vfr-cap"),
        Case(nominal: FrameRate(frames: 60000, seconds: 1001), cap: FrameRate(frames: 50), expected: FrameRate(frames: 50), rule: "frame-rate.vfr-cap"),
        Case(nominal: FrameRate(frames: 60000, seconds: 1001), cap: FrameRate(frames: 20), expected: FrameRate(frames: 20), rule: "frame-rate.vfr-cap"),
        Case(nominal: FrameRate(frames: 60000, seconds: 1001), cap: FrameRate(frames: 24), expected: FrameRate(frames: 24000, seconds: 1001), rule: "frame-rate.vfr-cap-ntsc"),
        Case(nominal: FrameRate(frames: 120000, seconds: 1001), cap: FrameRate(frames: 60), expected: FrameRate(frames: 60000, seconds: 1001), rule: "frame-rate.vfr-cap-ntsc"),
    ])
    func cap(_ c: Case) throws {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        f.width = 640; f.height = 360
        f.averageFrameRate = FrameRate(frames: 200, seconds: 9)
        f.isVariableFrameRate = true
        f.nominalFrameRate = c.nominal
        let r = try SettingsAssistant(capabilities: { _ in nil })
            .video(source: f, settings: VideoSettings(frameRate: .rate(c.cap), frameRatePolicy: .cap))
        #expect(r.frameRate == c.expected)
        #expect(r.decision("frame-rate")?.rule == c.rule)
    }
}
