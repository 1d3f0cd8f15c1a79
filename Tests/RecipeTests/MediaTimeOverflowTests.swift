import Recipe
import Testing

/// MediaTime arithmetic at the edges of 64 bits: the checked forms throw `MediaTimeOverflow`, the
/// operators saturate to ±infinity, and nothing traps (issue 10: huge recipe times and hostile
/// timestamps died with SIGILL in `WideArithmetic.mulDiv`, `MediaTime.+` and `*`).
@Suite("MediaTime overflow: typed errors and saturation, never a trap")
struct MediaTimeOverflowTests {
    static let maxSeconds = MediaTime(value: .max, timescale: 1)
    static let minSeconds = MediaTime(value: .min, timescale: 1)
    static let finest = MediaTime(value: 1, timescale: .max)

    @Test("sums that do not fit: + saturates to the sign of the exact result, adding(_:) throws")
    func sums() {
        let tick = MediaTime(value: 1, timescale: 90000)
        #expect((Self.maxSeconds + tick).isPositiveInfinity)
        #expect((Self.maxSeconds + MediaTime(seconds: 1)).isPositiveInfinity)
        #expect((Self.minSeconds - MediaTime(seconds: 1)).isNegativeInfinity)
        #expect((Self.minSeconds + tick.negated).isNegativeInfinity)
        // The recipe: end 9e18 s plus a source start in a 1/90000 time base.
        let huge = MediaTime(seconds: 9_000_000_000_000_000_000)
        #expect((huge + tick).isPositiveInfinity)
        #expect(throws: MediaTimeOverflow(saturated: .positiveInfinity, expression: "9000000000000000000/1 + 1/90000")) {
            try huge.adding(tick)
        }
        #expect(throws: MediaTimeOverflow.self) { try Self.minSeconds.subtracting(MediaTime(seconds: 1)) }
    }

    @Test("results that fit are exact, even when an operand alone would overflow the common timescale")
    func exactNearTheEdge() throws {
        // 9e18/1 − 9e18/2 = 4.5e18 = 9e18/2: the first operand does not fit in timescale 2.
        let a = MediaTime(seconds: 9_000_000_000_000_000_000)
        let b = MediaTime(value: 9_000_000_000_000_000_000, timescale: 2)
        #expect(try a.subtracting(b) == b)
        #expect(a - b == b)
        #expect(try Self.maxSeconds.adding(Self.minSeconds) == MediaTime(seconds: -1))
        #expect(try Self.minSeconds.subtracting(Self.minSeconds) == .zero)
        #expect(try MediaTime.zero.subtracting(Self.minSeconds.adding(MediaTime(seconds: 1))) == Self.maxSeconds)
        #expect(throws: MediaTimeOverflow.self) { try MediaTime.zero.subtracting(Self.minSeconds) }
        #expect(try Self.maxSeconds.subtracting(MediaTime(seconds: 1)).adding(MediaTime(seconds: 1)) == Self.maxSeconds)
    }

    @Test("negating Int64.min saturates; multiplication saturates or throws")
    func negationAndProducts() {
        #expect(Self.minSeconds.negated.isPositiveInfinity)
        #expect((-Self.minSeconds).isPositiveInfinity)
        #expect(Self.maxSeconds.negated == MediaTime(value: -Int64.max, timescale: 1))
        let big = MediaTime(value: 4_611_686_018_427_387_904, timescale: 1)  // 2^62: the duration
        #expect((big * 2).isPositiveInfinity)
        #expect((big * -2) == MediaTime(value: .min, timescale: 1))
        #expect((big * -3).isNegativeInfinity)
        #expect((Self.minSeconds * -1).isPositiveInfinity)
        #expect(throws: MediaTimeOverflow(saturated: .positiveInfinity, expression: "4611686018427387904/1 × 2")) {
            try big.multiplied(by: 2)
        }
        #expect((MediaTime.positiveInfinity * -1).isNegativeInfinity)
        #expect(!(MediaTime.positiveInfinity * 0).isValid)
    }

    @Test("timescale conversions: huge values throw, Int32.max timescales are exact")
    func conversions() throws {
        #expect(throws: MediaTimeOverflow(saturated: .positiveInfinity, expression: "9223372036854775807/1 in timescale 90000")) {
            try Self.maxSeconds.converted(to: 90000)
        }
        #expect(throws: MediaTimeOverflow(saturated: .negativeInfinity, expression: "-9223372036854775808/1 in timescale 2")) {
            try Self.minSeconds.converted(to: 2)
        }
        #expect(try Self.finest.converted(to: 1, rounding: .up) == MediaTime(seconds: 1))
        #expect(try Self.finest.converted(to: 1, rounding: .down) == .zero)
        #expect(try Self.finest.negated.converted(to: 1, rounding: .down) == MediaTime(seconds: -1))
        #expect(try MediaTime(value: .max, timescale: .max).converted(to: 1, rounding: .towardZero) == MediaTime(seconds: 4_294_967_298))
        #expect(try MediaTime(value: .min, timescale: .max).converted(to: .max) == MediaTime(value: .min, timescale: .max))
        // A timescale that is not positive is invalid, never a trap.
        #expect(!(try Self.maxSeconds.converted(to: 0)).isValid)
        #expect(!MediaTime(value: 1, timescale: 0).isValid)
        #expect(!MediaTime(value: 1, timescale: -5).isValid)
    }

    @Test("comparison, hashing and messages at the extremes")
    func orderAndText() {
        #expect(Self.minSeconds < Self.finest.negated)
        #expect(MediaTime(value: .max, timescale: .max) < MediaTime(value: .max, timescale: .max - 1))
        #expect(MediaTime(value: .min, timescale: 2) == MediaTime(value: .min / 2, timescale: 1))
        #expect(Set([MediaTime(value: .min, timescale: 2), MediaTime(value: .min / 2, timescale: 1)]).count == 1)
        #expect(Self.minSeconds.secondsDescription == "-9223372036854775808.000s")
        #expect(Self.maxSeconds.secondsDescription == "9223372036854775807.000s")
        #expect(Self.finest.secondsDescription == "0.000s")
        #expect(MediaTime(value: .min, timescale: 3).secondsDescription == "-3074457345618258602.667s")
        #expect(MediaTime(value: .min, timescale: 1).half == MediaTime(value: .min / 2, timescale: 1))
        #expect(MediaTime(value: .max, timescale: .max).half == MediaTime(value: .max / 2, timescale: .max))
    }

    @Test("time ranges with huge values: end, intersection and contains saturate instead of trapping")
    func ranges() throws {
        // The recipe ranges against a source that starts late in a 1/90000 time base.
        let source = TimeRange(start: MediaTime(value: 900_000, timescale: 90000), duration: MediaTime(value: 2 * 90000, timescale: 90000))
        let openEnded = TimeRange(start: MediaTime(value: .max - 1, timescale: 90000), duration: MediaTime(seconds: 4_611_686_018_427_387_904))
        #expect(openEnded.end.isPositiveInfinity)
        #expect(throws: MediaTimeOverflow.self) { try openEnded.exactEnd() }
        #expect(openEnded.isValid)
        #expect(openEnded.intersection(source).isEmpty)
        let huge = TimeRange(start: .zero, end: MediaTime(seconds: 9_000_000_000_000_000_000))
        #expect(huge.intersection(source) == source)
        #expect(huge.contains(source))
        let backwards = TimeRange(start: Self.maxSeconds, end: Self.minSeconds)
        #expect(backwards.duration.isNegativeInfinity)
        #expect(!backwards.isValid)
        #expect(!backwards.intersection(source).isValid)
        #expect(try TimeRange(start: MediaTime(seconds: 1), duration: MediaTime(seconds: 2)).exactEnd() == MediaTime(seconds: 3))
    }

    @Test("count(of:from:to:) is exact where a 64-bit product would overflow")
    func counts() {
        let frame = MediaTime(value: 1001, timescale: 30000)
        #expect(MediaTime.count(of: frame, from: .zero, to: MediaTime(seconds: 1001), rounding: .down) == 30000)
        // 2^62 seconds / (1/2147483647 s): does not fit.
        #expect(MediaTime.count(of: Self.finest, from: .zero, to: MediaTime(seconds: 1 << 62), rounding: .down) == nil)
        // From Int64.min to Int64.max seconds is 2^64 − 1 s: the difference fits in 128 bits only.
        #expect(MediaTime.count(of: MediaTime(value: .max, timescale: 1), from: Self.minSeconds, to: Self.maxSeconds, rounding: .down) == 2)
        #expect(MediaTime.count(of: MediaTime(value: .max, timescale: 1), from: Self.minSeconds, to: Self.maxSeconds, rounding: .up) == 3)
        #expect(MediaTime.count(of: .zero, from: .zero, to: MediaTime(seconds: 1), rounding: .down) == nil)
        #expect(MediaTime.count(of: frame, from: .zero, to: .positiveInfinity, rounding: .down) == nil)
        #expect(MediaTime.count(of: frame, from: MediaTime(seconds: 1), to: .zero, rounding: .down) == -30)
    }

    @Test("WideArithmetic: checked form says nil, clamping form clamps, den ≤ 0 never traps")
    func wide() {
        #expect(WideArithmetic.checkedMulDiv(.max, .max, 1) == nil)
        #expect(WideArithmetic.mulDiv(.max, .max, 1) == .max)
        #expect(WideArithmetic.mulDiv(.min, .max, 1) == .min)
        #expect(WideArithmetic.checkedMulDiv(.max, .max, .max) == .max)
        #expect(WideArithmetic.checkedMulDiv(.min, .min, .max) == nil)
        #expect(WideArithmetic.checkedMulDiv(.min, -1, 1) == nil)
        #expect(WideArithmetic.checkedMulDiv(.min, 1, 1) == .min)
        #expect(WideArithmetic.checkedMulDiv(5, 1, 0) == nil)
        #expect(WideArithmetic.checkedMulDiv(5, 1, -2) == nil)
        #expect(WideArithmetic.mulDiv(5, 1, 0) == 0)
        #expect(WideArithmetic.checkedMulDiv(-5, 1, 2, rounding: .nearest) == -3)
        #expect(WideArithmetic.checkedMulDiv(-5, 1, 2, rounding: .towardZero) == -2)
        #expect(WideArithmetic.checkedMulDiv(-5, 1, 2, rounding: .up) == -2)
        #expect(WideArithmetic.checkedMulDiv(-5, 1, 2, rounding: .down) == -3)
    }

    @Test("time parsing of numbers beyond 64 bits gives nil, not a trap", arguments: [
        "922337203685477580.9", "9223372036854775808", "99999999999999999999ms", "9223372036854775807/1s",
        "153722867280912931:00", "2562047788015215:30:08", "99999999999999999999:00:00", "-9223372036854775809",
    ])
    func hugeTimeText(text: String) {
        #expect(TimeParsing.time(text) == nil)
    }

    @Test("time parsing at the edges that fit")
    func edgeTimeText() {
        #expect(TimeParsing.time("9223372036854775807") == Self.maxSeconds)
        #expect(TimeParsing.time("-9223372036854775807") == Self.maxSeconds.negated)
        #expect(TimeParsing.time("1/2147483647") == Self.finest)
        #expect(TimeParsing.time("153722867280912930:07") == MediaTime(seconds: 9_223_372_036_854_775_807))
    }

    /// Exact reference arithmetic on fractions in 128 bits (values < 2^63, timescales < 2^31, so
    /// cross products < 2^94 and sums < 2^95).
    static func exactSum(_ a: MediaTime, _ b: MediaTime) -> (num: Int128, den: Int128) {
        (Int128(a.value) * Int128(b.timescale) + Int128(b.value) * Int128(a.timescale), Int128(a.timescale) * Int128(b.timescale))
    }

    static func extreme(_ rng: inout SeededRandom) -> MediaTime {
        let values: [Int64] = [.max, .min, .max - 1, .min + 1, 0, 1, -1, 1 << 62, -(1 << 62), 4_611_686_018_427_387_904]
        let scales: [Int32] = [1, 2, 3, 1000, 1001, 30000, 48000, 90000, 705_600_000, .max, .max - 1, 1 << 30]
        let value = Bool.random(using: &rng) ? values.randomElement(using: &rng)! : Int64.random(in: .min ... .max, using: &rng)
        let scale = Bool.random(using: &rng) ? scales.randomElement(using: &rng)! : Int32.random(in: 1 ... .max, using: &rng)
        return MediaTime(value: value, timescale: scale)
    }

    @Test("random extreme values: no trap; sums, differences and products exact where they fit, saturated where not")
    func randomExtremes() throws {
        var rng = SeededRandom(seed: 10)
        var exactCount = 0, saturatedCount = 0
        for _ in 0..<20_000 {
            let a = Self.extreme(&rng), b = Self.extreme(&rng)
            let n = Bool.random(using: &rng) ? Int64.random(in: -3...3, using: &rng) : Int64.random(in: .min ... .max, using: &rng)

            // Products are exact in the operand's timescale or saturate with the right sign.
            let exactProduct = Int128(a.value) * Int128(n)
            let p = a * n
            if let v = Int64(exactly: exactProduct) {
                #expect(p == MediaTime(value: v, timescale: a.timescale))
                #expect(try a.multiplied(by: n) == p)
            } else {
                #expect(p == (exactProduct < 0 ? MediaTime.negativeInfinity : .positiveInfinity))
                #expect(throws: MediaTimeOverflow.self) { try a.multiplied(by: n) }
            }

            // In one timescale a sum is exact or saturates with the sign of the exact sum.
            let c = MediaTime(value: b.value, timescale: a.timescale)
            let sameScale = Int128(a.value) + Int128(c.value)
            if let v = Int64(exactly: sameScale) {
                #expect(a + c == MediaTime(value: v, timescale: a.timescale)); exactCount += 1
            } else {
                #expect((a + c) == (sameScale < 0 ? MediaTime.negativeInfinity : .positiveInfinity)); saturatedCount += 1
            }

            // Across timescales: the checked sum is within half a tick of the exact one (exact
            // when the timescales share a multiple in Int32), or it throws and + saturates.
            let (num, den) = Self.exactSum(a, b)
            do {
                let s = try a.adding(b)
                #expect(a + b == s)
                #expect(s.isNumeric)
                // |s − exact| ≤ 1/s.timescale: |s.value·den − num·s.timescale| ≤ den.
                let error = Int128(s.value) * den - num * Int128(s.timescale)
                #expect(error.magnitude <= den.magnitude, "\(a) + \(b) = \(s)")
                if Int64(a.timescale) * Int64(b.timescale) / gcd(Int64(a.timescale), Int64(b.timescale)) <= Int64(Int32.max) {
                    #expect(error == 0, "\(a) + \(b) = \(s) should be exact")
                }
            } catch {
                let sum = a + b
                #expect(sum == error.saturated)
                #expect(sum.isPositiveInfinity == (num > 0) && sum.isNegativeInfinity == (num < 0), "\(a) + \(b)")
            }
            // Differences never trap either, and agree with the checked form.
            do { #expect(try a.subtracting(b) == a - b) } catch { #expect(a - b == error.saturated) }

            // Ordering matches exact cross-multiplication.
            let l = Int128(a.value) * Int128(b.timescale), r = Int128(b.value) * Int128(a.timescale)
            #expect((a < b) == (l < r))

            // Conversion to the other timescale is exact-rounded or throws.
            if let v = try? a.converted(to: b.timescale, rounding: .down) {
                // v ≤ a < v + 1 tick: v.value·a.ts ≤ a.value·b.ts < (v.value + 1)·a.ts
                let lhs = Int128(v.value) * Int128(a.timescale), mid = Int128(a.value) * Int128(b.timescale)
                #expect(lhs <= mid && mid < lhs + Int128(a.timescale))
            } else {
                let q = Int128(a.value) * Int128(b.timescale) / Int128(a.timescale)
                #expect(Int64(exactly: q) == nil || Int64(exactly: q - 1) == nil)
            }
            _ = a.half; _ = a.negated; _ = a.secondsDescription; _ = a.hashValue
            _ = TimeRange(start: a, duration: b).intersection(TimeRange(start: b, end: a))
        }
        #expect(exactCount > 1000 && saturatedCount > 1000)
    }
}

private func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
