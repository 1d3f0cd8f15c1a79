@testable import Pipeline
import Recipe
import XCTest

/// The time mapping lanes compute with: exact, and counts that add up.
final class TimeMappingTests: XCTestCase {
    private func t(_ v: Int64, _ ts: Int32) -> MediaTime { MediaTime(value: v, timescale: ts) }
    private func range(_ a: MediaTime, _ b: MediaTime) -> TimeRange { TimeRange(start: a, end: b) }

    func testTrimIsOneSegmentAtZeroScaleOne() {
        let m = TimeMapping.trim(range(t(3, 1), t(7, 1)))
        XCTAssertEqual(m.segments.count, 1)
        let s = m.segments[0]
        XCTAssertEqual(s.scale, .identity)
        XCTAssertEqual(s.targetTime(ofSource: t(3, 1)), .zero)
        XCTAssertEqual(s.targetTime(ofSource: t(9, 2)), t(3, 2))
        XCTAssertEqual(s.sourceTime(ofTarget: t(3, 2)), t(9, 2))
        XCTAssertEqual(m.targetDuration, t(4, 1))
        XCTAssertEqual(m.forTrack(2).segments[0].track, 2)
    }

    func testSlowMotionScaleEight() throws {
        // 240 fps range 1 s–2 s played 8× slower after a 1 s segment: 1/240 s of source is 1/30 s of output.
        let eight = try XCTUnwrap(TimeScale(8, 1))
        let m = try TimeMapping.sequence([(0, 0, range(.zero, t(1, 1)), .identity), (0, 0, range(t(1, 1), t(2, 1)), eight)])
        let slow = m.segments[1]
        XCTAssertEqual(slow.targetStart, t(1, 1))
        XCTAssertEqual(slow.targetDuration, t(8, 1))
        XCTAssertEqual(m.targetDuration, t(9, 1))
        XCTAssertEqual(slow.targetTime(ofSource: t(241, 240)), t(31, 30))
        XCTAssertEqual(slow.sourceTime(ofTarget: t(31, 30)), t(241, 240))
        XCTAssertEqual(m.sourceTime(ofTarget: t(5, 1))?.segment, 1)
        XCTAssertEqual(m.sourceTime(ofTarget: t(5, 1))?.time, t(3, 2))
        XCTAssertEqual(m.segment(containingSource: t(3, 2)), 1)
        XCTAssertEqual(m.segment(containingSource: t(1, 2)), 0)
        XCTAssertNil(m.segment(containingSource: t(2, 1)))
        XCTAssertEqual(m.sampleCount(ofSegment: 1, rate: 48000), 8 * 48000)
        // The output's 30 fps slots on the source: every 240 fps frame once.
        let (grid, first) = slow.sourceGrid(frameDuration: t(1, 30))
        XCTAssertEqual(first, 30)
        XCTAssertEqual(grid.start, t(1, 1))
        XCTAssertEqual(grid.frameDuration, t(1, 240))
        XCTAssertEqual(grid.time(240), t(2, 1))
        XCTAssertFalse(grid.inSession(240))
    }

    func testSpeedUpScaleOneHalfAndTwo() throws {
        let half = try XCTUnwrap(TimeScale(1, 2)), two = try XCTUnwrap(TimeScale(4, 2))
        XCTAssertEqual(two, TimeScale(2, 1))
        let m = try TimeMapping.sequence([(0, nil, range(.zero, t(3, 1)), half), (0, nil, range(t(10, 1), t(11, 1)), two)])
        XCTAssertEqual(m.segments[0].targetDuration, t(3, 2))
        XCTAssertEqual(m.segments[1].targetStart, t(3, 2))
        XCTAssertEqual(m.segments[1].targetTime(ofSource: t(21, 2)), t(5, 2))
        XCTAssertEqual(m.targetDuration, t(7, 2))
        XCTAssertEqual(m.segments[0].targetTime(ofSource: t(1, 3)), t(1, 6))
        XCTAssertEqual(m.segments[0].sourceTime(ofTarget: t(1, 6)), t(1, 3))
        XCTAssertNil(TimeScale(0, 1))
        XCTAssertNil(TimeScale(1, -2))
    }

    /// NTSC times at a scale whose exact result needs a finer timescale stay exact.
    func testExactWithOddTimescales() throws {
        let s = TimeSegment(source: 0, track: 0, sourceRange: range(t(1001, 30000), t(1001 * 100, 30000)), targetStart: t(1, 3),
                            scale: try XCTUnwrap(TimeScale(5, 7)))
        let at = s.targetTime(ofSource: t(1001 * 8, 30000))
        // 1/3 + (7·1001/30000)·5/7 = 1/3 + 5005/30000
        XCTAssertEqual(at, t(10000 + 5005, 30000))
        XCTAssertEqual(s.sourceTime(ofTarget: at), t(1001 * 8, 30000))
    }

    /// 500 consecutive half-second-ish segments (NTSC-frame lengths, so no sample boundary lines
    /// up): their sample counts add up to the whole timeline's, and the end is the rational sum.
    func testFiveHundredSegmentsSumToTheWhole() throws {
        var pieces: [(source: Int, track: Int?, range: TimeRange, scale: TimeScale)] = []
        var sum = MediaTime.zero
        for i in 0..<500 {
            let start = t(Int64(i) * 30030, 30000)  // every 1.001 s
            let length = t(15015 + Int64(i % 7) * 1001, 30000)  // 0.5005 s + up to 6 frames
            pieces.append((0, 0, TimeRange(start: start, duration: length), i % 5 == 0 ? TimeScale(3, 2)! : .identity))
            sum = sum + (i % 5 == 0 ? TimeScale(3, 2)!.apply(length) : length)
        }
        let m = try TimeMapping.sequence(pieces)
        XCTAssertEqual(m.targetDuration, sum)
        for rate: Int32 in [48000, 44100, 8000] {
            var total: Int64 = 0
            for i in m.segments.indices { total += try XCTUnwrap(m.sampleCount(ofSegment: i, rate: rate)) }
            let whole = try XCTUnwrap(TimeMapping.sampleCount(in: TimeRange(start: .zero, end: sum), rate: rate))
            XCTAssertEqual(total, whole, "rate \(rate)")
            // And the whole is the end's own sample position: within one sample of end × rate.
            XCTAssertEqual(whole, MediaTime.count(of: t(1, rate), from: .zero, to: sum, rounding: .up))
        }
    }

    func testSampleWindowKeepsTheSamplesInTheSourceRange() {
        let s = TimeSegment(source: 0, track: 0, sourceRange: range(t(1, 1), t(2, 1)), targetStart: .zero, scale: .identity)
        // 1024 samples at 48 kHz from 0.99 s: the first 480 are before the start.
        XCTAssertEqual(s.sourceSampleWindow(runStart: t(99, 100), count: 1024, rate: 48000), 480..<1024)
        XCTAssertEqual(s.sourceSampleWindow(runStart: t(199, 100), count: 1024, rate: 48000), 0..<480)
        XCTAssertTrue(s.sourceSampleWindow(runStart: t(3, 1), count: 1024, rate: 48000).isEmpty)
        XCTAssertEqual(try s.targetSample(ofSource: t(3, 2), rate: 48000), 24000)
    }

    func testHostileTimesSaturateInsteadOfTrapping() {
        let s = TimeSegment(source: 0, track: 0, sourceRange: range(t(-Int64.max, 1), t(0, 1)), targetStart: .zero, scale: TimeScale(8, 1)!)
        XCTAssertTrue(s.targetTime(ofSource: t(Int64.max, 1)).isPositiveInfinity)
        XCTAssertTrue(s.targetDuration.isPositiveInfinity)
        XCTAssertThrowsError(try s.targetEnd())
        XCTAssertThrowsError(try s.targetSample(ofSource: t(Int64.max, 1), rate: 48000))
    }
}
