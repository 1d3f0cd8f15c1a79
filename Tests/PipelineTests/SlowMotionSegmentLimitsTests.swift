@testable import Pipeline
import Recipe
import Testing

/// Segments given through the public `SlowMotionInfo` (not only from a file's SEF text) are
/// checked before any arithmetic on them: nothing traps or turns infinite.
@Suite("Slow-motion segment limits")
struct SlowMotionSegmentLimitsTests {
    static func info(_ segments: [SlowMotionSegment]) -> SlowMotionInfo {
        SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4, recordingMode: 12, segments: segments)
    }

    @Test("a divisor beyond ÷128 or a segment time that is not a number is refused, naming the file", arguments: [
        (SlowMotionSegment(startMilliseconds: 0, endMilliseconds: 1000, speedDivisor: 1 << 62),
         "segment 0.000s–1.000s ÷4611686018427387904 is slower than ÷128, the slowest speed mode 8 gives"),
        (SlowMotionSegment(startMilliseconds: 0, endMilliseconds: 1000, speedDivisor: 256),
         "segment 0.000s–1.000s ÷256 is slower than ÷128, the slowest speed mode 8 gives"),
        (SlowMotionSegment(start: .zero, end: .positiveInfinity, speedDivisor: 2),
         "segment \(SlowMotionSegment(start: .zero, end: .positiveInfinity, speedDivisor: 2)) has a time that is not a number"),
        (SlowMotionSegment(start: .invalid, end: MediaTime(seconds: 1), speedDivisor: 2),
         "segment \(SlowMotionSegment(start: .invalid, end: MediaTime(seconds: 1), speedDivisor: 2)) has a time that is not a number"),
    ])
    func refused(segment: SlowMotionSegment, why: String) {
        #expect(throws: MediaError(.unsupported, "cannot play its slow motion as the phone does: \(why)", file: "clip.mp4")) {
            try SlowMotionFlattening(Self.info([segment]), file: "clip.mp4")
        }
    }

    @Test("÷128, the slowest a file can say, maps and spans without overflow")
    func slowest() throws {
        let f = try SlowMotionFlattening(Self.info([SlowMotionSegment(startMilliseconds: 1000, endMilliseconds: 2000, speedDivisor: 128)]), file: "clip.mp4")
        // 1 s stored at ÷128 lasts 128 s stored, 16 s real (240 fps → 30 fps is ÷8).
        #expect(f.outputTime(MediaTime(seconds: 2)) == MediaTime(value: 1 + 128, timescale: 8))
        let spans = f.spans
        #expect(spans.map(\.speedDivisor) == [1, 128, 1])
        #expect(spans[1].scale == (16, 1))
    }
}
