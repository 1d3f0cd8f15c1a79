import Foundation
import Recipe

/// How much longer a stretched range is than its source: the exact rational
/// `target duration / source duration` (8/1 plays at 1/8 speed, 1/2 at double speed).
struct TimeStretchScale: Sendable, Hashable, CustomStringConvertible {
    /// Numerator and denominator in lowest terms, both positive.
    let target: Int64
    let source: Int64

    /// The widest stretch either way: rubberband's tempo range in FFmpeg 5.1 is 0.01…100.
    static let limit: Int64 = 100

    init(target: Int64, source: Int64) throws(MediaError) {
        guard target > 0, source > 0 else {
            throw MediaError(.invalidSettings, "time stretch scale \(target)/\(source) is not positive")
        }
        let g = Self.gcd(target, source)
        let t = target / g, s = source / g
        // t/s within 1/limit…limit, compared without overflow.
        guard Int128(t) <= Int128(s) * Int128(Self.limit), Int128(s) <= Int128(t) * Int128(Self.limit) else {
            throw MediaError(.invalidSettings,
                             "time stretch scale \(t)/\(s) is outside 1/\(Self.limit)…\(Self.limit) (1/\(Self.limit) of the speed to \(Self.limit)× the speed)")
        }
        self.target = t
        self.source = s
    }

    /// The scale that makes `sourceDuration` last `targetDuration`.
    init(targetDuration: MediaTime, sourceDuration: MediaTime) throws(MediaError) {
        guard targetDuration.isNumeric, sourceDuration.isNumeric else {
            throw MediaError(.invalidSettings, "time stretch: durations \(targetDuration) and \(sourceDuration) are not numbers")
        }
        // (vt/tt) / (vs/ts) = vt·ts / (tt·vs), reduced in 128 bits.
        var n = Int128(targetDuration.value) * Int128(sourceDuration.timescale)
        var d = Int128(targetDuration.timescale) * Int128(sourceDuration.value)
        guard n > 0, d > 0 else {
            throw MediaError(.invalidSettings, "time stretch: durations \(targetDuration) and \(sourceDuration) are not positive")
        }
        var a = n, b = d
        while b != 0 { (a, b) = (b, a % b) }
        n /= a; d /= a
        guard let t = Int64(exactly: n), let s = Int64(exactly: d) else {
            throw MediaError(.invalidSettings, "time stretch: the ratio of \(targetDuration) to \(sourceDuration) does not fit in 64 bits")
        }
        try self.init(target: t, source: s)
    }

    var isIdentity: Bool { target == source }

    /// `round(samples × scale)`, half away from zero; nil when it does not fit in 64 bits.
    func stretched(_ samples: Int64) -> Int64? {
        WideArithmetic.checkedMulDiv(samples, target, source, rounding: .nearest)
    }

    /// The playback speed the filters call tempo: source / target (0.125 for 1/8 speed). Only a
    /// filter's setting: the output length is counted from the rational, never from this.
    var tempo: Double { Double(source) / Double(target) }

    var description: String { "\(target)/\(source)" }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var a = a, b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
