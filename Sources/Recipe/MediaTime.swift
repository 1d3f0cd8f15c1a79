/// A point or length on a media timeline: an exact rational `value / timescale` seconds, with the
/// non-numeric values CMTime has (invalid, ±infinity, indefinite). No floating point is involved in
/// comparison or arithmetic; intermediates are taken in 128 bits, so 1/705600000 timescales over
/// hours compare exactly.
///
/// Nothing here traps, whatever the values: timestamps near `Int64.min`/`Int64.max` from a hostile
/// file, timescales up to `Int32.max`, any mix. Two ways to do arithmetic:
///
/// - Checked: `adding(_:)`, `subtracting(_:)`, `multiplied(by:)`, `converted(to:rounding:)` and
///   `count(of:from:to:rounding:)` report a result that does not fit in 64 bits as a typed
///   `MediaTimeOverflow`. Timing paths whose output would be wrong with an approximate time use
///   these and turn the error into an error that names the file.
/// - The operators `+`, `-`, `*`, prefix `-`, `negated` and `half` never fail: a result that does
///   not fit *saturates* to +infinity or −infinity, the sign of the exact result (CMTimeMultiply
///   does the same). Infinity rather than `.invalid` because the sign of an overflow is always
///   known: the saturated time still orders after (before) every time of its operands' magnitude,
///   so `min`, `max`, `contains` and `intersection` stay meaningful, and infinity is sticky
///   (∞ + x = ∞), so a saturated time can never wrap back into range.
///
/// A timescale ≤ 0 (an FFmpeg time base of 0/0 from a file) makes `.invalid`, never a trap.
public struct MediaTime: Sendable, Hashable {
    public enum Kind: UInt8, Sendable { case numeric, invalid, positiveInfinity, negativeInfinity, indefinite }

    public let value: Int64
    public let timescale: Int32
    public let kind: Kind

    /// `value / timescale` seconds; `.invalid` when `timescale` is not positive.
    public init(value: Int64, timescale: Int32) {
        guard timescale > 0 else { self = .invalid; return }
        self.value = value
        self.timescale = timescale
        self.kind = .numeric
    }

    private init(kind: Kind) {
        self.value = 0
        self.timescale = 1
        self.kind = kind
    }

    public static let zero = MediaTime(value: 0, timescale: 1)
    public static let invalid = MediaTime(kind: .invalid)
    public static let positiveInfinity = MediaTime(kind: .positiveInfinity)
    public static let negativeInfinity = MediaTime(kind: .negativeInfinity)
    public static let indefinite = MediaTime(kind: .indefinite)

    public init(seconds: Int64) { self.init(value: seconds, timescale: 1) }

    public var isNumeric: Bool { kind == .numeric }
    public var isValid: Bool { kind != .invalid }
    public var isIndefinite: Bool { kind == .indefinite }
    public var isPositiveInfinity: Bool { kind == .positiveInfinity }
    public var isNegativeInfinity: Bool { kind == .negativeInfinity }

    /// For display and progress only; never used on a timing path.
    public var seconds: Double {
        switch kind {
        case .numeric: return Double(value) / Double(timescale)
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .invalid, .indefinite: return .nan
        }
    }

    public enum Rounding: Sendable { case nearest, down, up, towardZero }

    // MARK: Checked arithmetic (throws on overflow)

    /// The same time in another timescale; exact when it can be, else rounded as asked. Throws when
    /// the value does not fit in 64 bits; a timescale ≤ 0 gives `.invalid`.
    public func converted(to newTimescale: Int32, rounding: Rounding = .nearest) throws(MediaTimeOverflow) -> MediaTime {
        guard isNumeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        let q = Wide.divide(Int128(value) * Int128(newTimescale), by: Int128(timescale), rounding: rounding)
        return try Self.fit(q, newTimescale, "\(self) in timescale \(newTimescale)")
    }

    /// `self + other`; exact when the two timescales have a common multiple that fits in Int32,
    /// else rounded to the nearest tick of the finer one. Throws when the sum does not fit.
    public func adding(_ other: MediaTime) throws(MediaTimeOverflow) -> MediaTime {
        if let special = Self.specialSum(self, other) { return special }
        if timescale == other.timescale {
            return try Self.fit(Int128(value) + Int128(other.value), timescale, "\(self) + \(other)")
        }
        let common = Self.commonTimescale(timescale, other.timescale)
        let a = Wide.divide(Int128(value) * Int128(common), by: Int128(timescale), rounding: .nearest)
        let b = Wide.divide(Int128(other.value) * Int128(common), by: Int128(other.timescale), rounding: .nearest)
        return try Self.fit(a + b, common, "\(self) + \(other)")
    }

    /// `self - other`, as `adding(_:)`.
    public func subtracting(_ other: MediaTime) throws(MediaTimeOverflow) -> MediaTime {
        if other.isNumeric && other.value == .min {
            // −Int64.min does not fit; subtract in two halves (each exact) instead.
            let half = MediaTime(value: Int64.min / 2, timescale: other.timescale)
            return try subtracting(half).subtracting(half)
        }
        return try adding(other.negated)
    }

    /// `self · n`, exact. Throws when the product does not fit.
    public func multiplied(by n: Int64) throws(MediaTimeOverflow) -> MediaTime {
        guard isNumeric else { return n == 0 ? .invalid : (n < 0 ? negated : self) }
        return try Self.fit(Int128(value) * Int128(n), timescale, "\(self) × \(n)")
    }

    /// How many whole `unit`s lie from `a` to `b` (negative when `b` is before `a`), rounded as
    /// asked, computed exactly; nil when a time is not numeric, `unit` is not positive, or the count
    /// does not fit in 64 bits.
    public static func count(of unit: MediaTime, from a: MediaTime, to b: MediaTime, rounding: Rounding) -> Int64? {
        guard a.isNumeric, b.isNumeric, unit.isNumeric, unit.value > 0 else { return nil }
        // (b − a) / unit = (b.v·a.ts − a.v·b.ts)·u.ts / (a.ts·b.ts·u.v): |numerator| < 2^126 and
        // the denominator < 2^125, so both fit in Int128.
        let difference = Int128(b.value) * Int128(a.timescale) - Int128(a.value) * Int128(b.timescale)
        let q = Wide.divide(difference * Int128(unit.timescale),
                            by: Int128(a.timescale) * Int128(b.timescale) * Int128(unit.value), rounding: rounding)
        return Int64(exactly: q)
    }

    // MARK: Saturating arithmetic (never fails)

    /// Half of this time, exact (doubles the timescale when the value is odd and it fits, else
    /// rounds toward zero).
    public var half: MediaTime {
        guard isNumeric else { return self }
        if value % 2 == 0 { return MediaTime(value: value / 2, timescale: timescale) }
        if timescale <= Int32.max / 2 { return MediaTime(value: value, timescale: timescale * 2) }
        return MediaTime(value: value / 2, timescale: timescale)
    }

    /// Saturates to ±infinity on overflow; see `multiplied(by:)`.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        do { return try lhs.multiplied(by: rhs) } catch { return error.saturated }
    }

    /// −Int64.min saturates to +infinity.
    public var negated: MediaTime {
        switch kind {
        case .numeric:
            return value == .min ? .positiveInfinity : MediaTime(value: -value, timescale: timescale)
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        default: return self
        }
    }

    public static prefix func - (t: MediaTime) -> MediaTime { t.negated }

    /// Saturates to ±infinity on overflow; see `adding(_:)`.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        do { return try lhs.adding(rhs) } catch { return error.saturated }
    }

    /// Saturates to ±infinity on overflow; see `subtracting(_:)`.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        do { return try lhs.subtracting(rhs) } catch { return error.saturated }
    }

    /// The sum when either side is not numeric (CMTime's rules), else nil.
    private static func specialSum(_ lhs: MediaTime, _ rhs: MediaTime) -> MediaTime? {
        switch (lhs.kind, rhs.kind) {
        case (.invalid, _), (_, .invalid): return .invalid
        case (.indefinite, _), (_, .indefinite): return .indefinite
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        case (.numeric, .numeric): return nil
        }
    }

    private static func fit(_ v: Int128, _ timescale: Int32, _ expression: @autoclosure () -> String) throws(MediaTimeOverflow) -> MediaTime {
        guard let x = Int64(exactly: v) else {
            throw MediaTimeOverflow(saturated: v < 0 ? .negativeInfinity : .positiveInfinity, expression: expression())
        }
        return MediaTime(value: x, timescale: timescale)
    }

    /// lcm when it fits in Int32 (exact), else the finer of the two (rounded).
    static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32 {
        let l = Int64(a) / gcd(Int64(a), Int64(b)) * Int64(b)
        return l <= Int64(Int32.max) ? Int32(l) : Swift.max(a, b)
    }

    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a <= b ? a : b }
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a >= b ? a : b }
}

/// A time computation whose exact result does not fit in a 64-bit value.
public struct MediaTimeOverflow: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the saturating operators give instead: +infinity or −infinity, the sign of the result.
    public let saturated: MediaTime
    /// The computation, `9000000000000000000/1 + 1/90000`.
    public let expression: String

    public init(saturated: MediaTime, expression: String) {
        self.saturated = saturated; self.expression = expression
    }

    public var description: String { "time out of range: \(expression) does not fit in 64 bits" }
}

extension MediaTime: Comparable {
    /// Total order as CMTimeCompare: -infinity < numeric < +infinity < indefinite < invalid.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        // Equal times in different timescales must hash alike: hash the reduced fraction. The gcd
        // divides the timescale, so it is ≤ Int32.max and the divisions cannot trap.
        hasher.combine(kind)
        guard isNumeric else { return }
        let g = Int64(gcdMagnitude(value.magnitude, UInt64(timescale)))
        hasher.combine(value / Swift.max(g, 1))
        hasher.combine(Int64(timescale) / Swift.max(g, 1))
    }

    public static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
        func rank(_ k: Kind) -> Int {
            switch k {
            case .negativeInfinity: return 0
            case .numeric: return 1
            case .positiveInfinity: return 2
            case .indefinite: return 3
            case .invalid: return 4
            }
        }
        if a.kind != .numeric || b.kind != .numeric {
            return rank(a.kind) < rank(b.kind) ? -1 : (rank(a.kind) > rank(b.kind) ? 1 : 0)
        }
        if a.timescale == b.timescale { return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0) }
        let l = Int128(a.value) * Int128(b.timescale)
        let r = Int128(b.value) * Int128(a.timescale)
        return l < r ? -1 : (l > r ? 1 : 0)
    }
}

extension MediaTime: CustomStringConvertible {
    /// `1001/30000` style for people who debug timing; `+inf`, `-inf`, `indefinite`, `invalid`.
    public var description: String {
        switch kind {
        case .numeric: return "\(value)/\(timescale)"
        case .invalid: return "invalid"
        case .indefinite: return "indefinite"
        case .positiveInfinity: return "+inf"
        case .negativeInfinity: return "-inf"
        }
    }

    /// `12.345s` with millisecond precision, for messages; any value (128-bit, cannot overflow).
    public var secondsDescription: String {
        guard isNumeric else { return description }
        let ms = Wide.divide(Int128(value) * 1000, by: Int128(timescale), rounding: .nearest)
        let sign = ms < 0 ? "-" : ""
        let a = ms.magnitude
        let frac = String(a % 1000)
        return "\(sign)\(a / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)s"
    }
}

/// Greatest common divisor of two magnitudes (0 when both are 0).
func gcdMagnitude(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

/// gcd of two values whose gcd fits in Int64 (any pair but (Int64.min, 0 or Int64.min)), positive
/// or 0. Callers pass timescales and frame-rate terms, which are positive Int32s.
func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    Int64(clamping: gcdMagnitude(a.magnitude, b.magnitude))
}

/// 128-bit division with the rounding modes of `MediaTime.Rounding`.
enum Wide {
    /// `n / d` rounded as asked; `d` > 0 (callers pass timescales and positive units).
    static func divide(_ n: Int128, by d: Int128, rounding: MediaTime.Rounding) -> Int128 {
        let q = n / d, r = n % d  // truncates toward zero; r has the sign of n
        if r == 0 { return q }
        switch rounding {
        case .towardZero: return q
        case .down: return n < 0 ? q - 1 : q
        case .up: return n > 0 ? q + 1 : q
        case .nearest: // half away from zero
            return r.magnitude * 2 >= d.magnitude ? (n < 0 ? q - 1 : q + 1) : q
        }
    }
}

/// `value · num / den` through a 128-bit intermediate, rounded as asked; the one rescale every
/// timing path uses. Never traps: `checkedMulDiv` says when the result does not fit, `mulDiv`
/// clamps it.
public enum WideArithmetic {
    /// Exact (up to the rounding); nil when `den` ≤ 0 or the result does not fit in Int64.
    public static func checkedMulDiv(_ value: Int64, _ num: Int64, _ den: Int64, rounding: MediaTime.Rounding = .nearest) -> Int64? {
        guard den > 0 else { return nil }
        return Int64(exactly: Wide.divide(Int128(value) * Int128(num), by: Int128(den), rounding: rounding))
    }

    /// As `checkedMulDiv`, with a result beyond Int64 clamped to `Int64.min`/`Int64.max` (and 0
    /// for `den` ≤ 0): for bounds and counts where a clamped answer is the right one.
    public static func mulDiv(_ value: Int64, _ num: Int64, _ den: Int64, rounding: MediaTime.Rounding = .nearest) -> Int64 {
        guard den > 0 else { return 0 }
        return Int64(clamping: Wide.divide(Int128(value) * Int128(num), by: Int128(den), rounding: rounding))
    }
}
