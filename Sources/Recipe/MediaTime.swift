/// A point or length on a media timeline: an exact rational `value / timescale` seconds, with the
/// non-numeric values CMTime has (invalid, ±infinity, indefinite). No floating point is involved in
/// comparison or arithmetic; products are taken in 128 bits, so 1/705600000 timescales over hours
/// compare exactly.
public struct MediaTime: Sendable, Hashable {
    public enum Kind: UInt8, Sendable { case numeric, invalid, positiveInfinity, negativeInfinity, indefinite }

    public let value: Int64
    public let timescale: Int32
    public let kind: Kind

    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
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

    /// The same time in another timescale; exact when it can be, else rounded as asked.
    public func converted(to newTimescale: Int32, rounding: Rounding = .nearest) -> MediaTime {
        guard isNumeric else { return self }
        if newTimescale == timescale { return self }
        let q = WideArithmetic.mulDiv(value, Int64(newTimescale), Int64(timescale), rounding: rounding)
        return MediaTime(value: q, timescale: newTimescale)
    }

    /// Half of this time, exact (doubles the timescale when the value is odd and it fits).
    public var half: MediaTime {
        guard isNumeric else { return self }
        if value % 2 == 0 { return MediaTime(value: value / 2, timescale: timescale) }
        if timescale <= Int32.max / 2 { return MediaTime(value: value, timescale: timescale * 2) }
        return MediaTime(value: value / 2, timescale: timescale)
    }

    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        guard lhs.isNumeric else { return rhs == 0 ? .invalid : (rhs < 0 ? lhs.negated : lhs) }
        let (product, overflow) = lhs.value.multipliedReportingOverflow(by: rhs)
        precondition(!overflow, "MediaTime multiplication overflows")
        return MediaTime(value: product, timescale: lhs.timescale)
    }

    public var negated: MediaTime {
        switch kind {
        case .numeric: return MediaTime(value: -value, timescale: timescale)
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        default: return self
        }
    }

    public static prefix func - (t: MediaTime) -> MediaTime { t.negated }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        switch (lhs.kind, rhs.kind) {
        case (.invalid, _), (_, .invalid): return .invalid
        case (.indefinite, _), (_, .indefinite): return .indefinite
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        case (.numeric, .numeric): break
        }
        if lhs.timescale == rhs.timescale {
            return MediaTime(value: lhs.value + rhs.value, timescale: lhs.timescale)
        }
        let common = commonTimescale(lhs.timescale, rhs.timescale)
        let a = lhs.converted(to: common), b = rhs.converted(to: common)
        return MediaTime(value: a.value + b.value, timescale: common)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { lhs + rhs.negated }

    /// lcm when it fits in Int32 (exact), else the finer of the two (rounded).
    static func commonTimescale(_ a: Int32, _ b: Int32) -> Int32 {
        let l = Int64(a) / Int64(gcd(Int64(a), Int64(b))) * Int64(b)
        return l <= Int64(Int32.max) ? Int32(l) : Swift.max(a, b)
    }

    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a <= b ? a : b }
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a >= b ? a : b }
}

extension MediaTime: Comparable {
    /// Total order as CMTimeCompare: -infinity < numeric < +infinity < indefinite < invalid.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    public func hash(into hasher: inout Hasher) {
        // Equal times in different timescales must hash alike: hash the reduced fraction.
        hasher.combine(kind)
        guard isNumeric else { return }
        let g = gcd(Swift.abs(value), Int64(timescale))
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
        let l = a.value.multipliedFullWidth(by: Int64(b.timescale))
        let r = b.value.multipliedFullWidth(by: Int64(a.timescale))
        if l.high != r.high { return l.high < r.high ? -1 : 1 }
        return l.low < r.low ? -1 : (l.low > r.low ? 1 : 0)
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

    /// `12.345s` with millisecond precision, for messages.
    public var secondsDescription: String {
        guard isNumeric else { return description }
        let ms = converted(to: 1000).value
        let sign = ms < 0 ? "-" : ""
        let a = Swift.abs(ms)
        let frac = String(a % 1000)
        return "\(sign)\(a / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)s"
    }
}

func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (Swift.abs(a), Swift.abs(b))
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

/// value * num / den in 128 bits with the asked rounding. `den` > 0.
/// Exact `value * num / den` through a 128-bit intermediate; the one rescale every timing path uses.
public enum WideArithmetic {
    public static func mulDiv(_ value: Int64, _ num: Int64, _ den: Int64, rounding: MediaTime.Rounding = .nearest) -> Int64 {
        precondition(den > 0)
        let negative = (value < 0) != (num < 0)
        let a = value.magnitude, b = num.magnitude
        let product = a.multipliedFullWidth(by: b)
        precondition(product.high < UInt64(den), "MediaTime conversion overflows")
        let (q, r) = UInt64(den).dividingFullWidth(product)
        var mag = q
        switch rounding {
        case .towardZero: break
        case .nearest: if r >= UInt64(den) - r { mag += 1 }  // half away from zero
        case .down: if negative && r != 0 { mag += 1 }
        case .up: if !negative && r != 0 { mag += 1 }
        }
        precondition(mag <= UInt64(Int64.max), "MediaTime conversion overflows")
        return negative ? -Int64(mag) : Int64(mag)
    }
}
