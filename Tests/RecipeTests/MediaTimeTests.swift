import Recipe
import Testing

@Suite("MediaTime and TimeRange")
struct MediaTimeTests {
    @Test("equal across timescales, exact ordering")
    func comparison() {
        #expect(MediaTime(value: 200, timescale: 2) == MediaTime(value: 400, timescale: 4))
        #expect(MediaTime(value: 1001, timescale: 30000) < MediaTime(value: 1, timescale: 29))
        #expect(MediaTime(value: 1001, timescale: 30000) > MediaTime(value: 1, timescale: 30))
        // Hours at 1/705600000 compared with 1/90000 without overflow or rounding.
        let a = MediaTime(value: 705_600_000 * 3600 * 5, timescale: 705_600_000)
        let b = MediaTime(value: 90000 * 3600 * 5, timescale: 90000)
        #expect(a == b)
        #expect(a + MediaTime(value: 1, timescale: 705_600_000) > b)
        #expect(Set([MediaTime(value: 1, timescale: 2), MediaTime(value: 2, timescale: 4)]).count == 1)
    }

    @Test("special values order as CMTimeCompare")
    func specials() {
        #expect(MediaTime.negativeInfinity < .zero)
        #expect(MediaTime.zero < .positiveInfinity)
        #expect(MediaTime.positiveInfinity < .indefinite)
        #expect((MediaTime.positiveInfinity + MediaTime.negativeInfinity).isValid == false)
        #expect((MediaTime(seconds: 3) + .positiveInfinity).isPositiveInfinity)
        #expect(!MediaTime.invalid.isValid)
    }

    @Test("arithmetic across timescales is exact")
    func arithmetic() throws {
        let d = MediaTime(value: 1001, timescale: 30000)
        let sum = d * 30000
        #expect(sum == MediaTime(seconds: 1001))
        #expect(MediaTime(value: 1, timescale: 3) + MediaTime(value: 1, timescale: 2) == MediaTime(value: 5, timescale: 6))
        #expect(MediaTime(value: 1, timescale: 30).half == MediaTime(value: 1, timescale: 60))
        #expect(try MediaTime(value: 1001, timescale: 30000).converted(to: 90000) == MediaTime(value: 3003, timescale: 90000))
        #expect(try MediaTime(value: 1, timescale: 3).converted(to: 10, rounding: .down).value == 3)
        #expect(try MediaTime(value: 1, timescale: 3).converted(to: 10, rounding: .up).value == 4)
        #expect(try MediaTime(value: -1, timescale: 3).converted(to: 10, rounding: .down).value == -4)
    }

    @Test("time forms people write", arguments: [
        ("2", MediaTime(seconds: 2)),
        ("1.5s", MediaTime(value: 3, timescale: 2)),
        ("250ms", MediaTime(value: 1, timescale: 4)),
        ("00:01:02.500", MediaTime(value: 125, timescale: 2)),
        ("01:02", MediaTime(seconds: 62)),
        ("1001/30000", MediaTime(value: 1001, timescale: 30000)),
        ("0.000000001", MediaTime(value: 1, timescale: 1_000_000_000)),
    ])
    func parseTime(text: String, expected: MediaTime) {
        #expect(TimeParsing.time(text) == expected)
    }

    @Test("malformed times are rejected", arguments: ["", "abc", "1.5x", "1:60", "1/0", "1..2", "00:61:00", ".s", "1.0000000001"])
    func rejectTime(text: String) {
        #expect(TimeParsing.time(text) == nil)
    }

    @Test("frame rates: 29.97 is 30000/1001, never a float")
    func frameRates() {
        #expect(TimeParsing.frameRate("30") == FrameRate(frames: 30))
        #expect(TimeParsing.frameRate("29.97") == FrameRate(frames: 30000, seconds: 1001))
        #expect(TimeParsing.frameRate("59.94") == FrameRate(frames: 60000, seconds: 1001))
        #expect(TimeParsing.frameRate("23.976") == FrameRate(frames: 24000, seconds: 1001))
        #expect(TimeParsing.frameRate("30000/1001") == FrameRate(frames: 30000, seconds: 1001))
        #expect(TimeParsing.frameRate("25.5") == FrameRate(frames: 51, seconds: 2))
        #expect(TimeParsing.frameRate("-3") == nil)
        #expect(TimeParsing.frameRate("0") == nil)
        #expect(FrameRate(frames: 30000, seconds: 1001).frameDuration == MediaTime(value: 1001, timescale: 30000))
    }

    @Test("half-open ranges")
    func ranges() {
        let r = TimeRange(start: MediaTime(value: 3, timescale: 2), duration: MediaTime(seconds: 2))
        #expect(r.end == MediaTime(value: 7, timescale: 2))
        #expect(r.contains(MediaTime(value: 3, timescale: 2)))
        #expect(!r.contains(r.end))
        let whole = TimeRange(start: .zero, duration: MediaTime(seconds: 3))
        #expect(r.intersection(whole) == TimeRange(start: MediaTime(value: 3, timescale: 2), end: MediaTime(seconds: 3)))
        #expect(TimeRange(start: .zero, duration: .positiveInfinity).isValid)
        #expect(!TimeRange(start: .zero, duration: MediaTime(seconds: -1)).isValid)
        #expect(TimeRange.zero.isEmpty)
    }
}
