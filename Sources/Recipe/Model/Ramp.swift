import Foundation

/// How a ramp moves from its start value to its end value (AVFoundation ramps are linear; these
/// are the curves editors offer).
public enum RampCurve: String, Sendable, Hashable, CaseIterable {
    /// The value moves evenly.
    case linear
    /// The value's square moves evenly: for a volume, the power does, so a cross-fade of two
    /// inputs (one 1 → 0, the other 0 → 1) keeps their summed power constant.
    case equalPower = "equal-power"
    /// Slow at both ends (smoothstep: 3x² − 2x³).
    case easeInOut = "ease-in-out"

    /// The ramp's value at fraction `x` (0…1) of its length.
    public func value(from a: Double, to b: Double, at x: Double) -> Double {
        let x = min(1, max(0, x))
        switch self {
        case .linear: return a + (b - a) * x
        case .easeInOut: return a + (b - a) * (x * x * (3 - 2 * x))
        case .equalPower: return (a * a + (b * b - a * a) * x).squareRoot()
        }
    }
}

/// One ramp: over `[start, end)` of the timeline, from `from` to `to` along `curve`.
public struct Ramp: Sendable, Hashable {
    public let start: MediaTime
    public let end: MediaTime
    public let from: Double
    public let to: Double
    public let curve: RampCurve
    /// Where it was written (its `-`).
    public let mark: Mark

    public init(start: MediaTime, end: MediaTime, from: Double, to: Double, curve: RampCurve = .linear, mark: Mark = Mark(line: 0, column: 0)) {
        self.start = start; self.end = end; self.from = from; self.to = to; self.curve = curve; self.mark = mark
    }
}

/// A value over the timeline: constant, or ramps. Before the first ramp its start value holds,
/// after the last its end value, and between two ramps the earlier one's end value (the guide's
/// rule for AVAudioMix volume ramps and layer opacity ramps).
public struct Keyframes: Sendable, Hashable {
    public let constant: Double
    /// In timeline order, none overlapping (the parser checks).
    public let ramps: [Ramp]
    public let mark: Mark

    public init(constant: Double, mark: Mark = Mark(line: 0, column: 0)) {
        self.constant = constant; self.ramps = []; self.mark = mark
    }

    public init(ramps: [Ramp], mark: Mark = Mark(line: 0, column: 0)) {
        self.constant = ramps.first?.from ?? 1
        self.ramps = ramps
        self.mark = mark
    }

    public var isConstant: Bool { ramps.isEmpty }

    /// The value over `[a, b)` seconds when it is the same all through (no ramp moves inside it);
    /// nil when a ramp does.
    public func constant(fromSeconds a: Double, to b: Double) -> Double? {
        if ramps.isEmpty { return constant }
        for r in ramps where r.start.seconds < b && r.end.seconds > a { return nil }
        return value(atSeconds: a)
    }

    /// `count` values from `t0` seconds, `step` apart, into `out` (resized to `count`), each
    /// multiplied into what is there when `multiplying`: one lookup for a run no ramp moves in.
    public func fill(_ out: inout [Float], from t0: Double, step: Double, count: Int, multiplying: Bool = false) {
        if out.count != count { out = Array(repeating: 1, count: count) }
        if let c = constant(fromSeconds: t0, to: t0 + step * Double(count)) {
            let g = Float(c)
            for i in 0..<count { out[i] = multiplying ? out[i] * g : g }
            return
        }
        for i in 0..<count {
            let g = Float(value(atSeconds: t0 + step * Double(i)))
            out[i] = multiplying ? out[i] * g : g
        }
    }

    /// The value at `t` (seconds on the timeline).
    public func value(atSeconds t: Double) -> Double {
        guard let first = ramps.first else { return constant }
        if t < first.start.seconds { return first.from }
        var held = first.from
        for r in ramps {
            let s = r.start.seconds, e = r.end.seconds
            if t < s { return held }
            if t < e { return r.curve.value(from: r.from, to: r.to, at: (t - s) / (e - s)) }
            held = r.to
        }
        return held
    }
}

/// What a mix does with a sum beyond full scale.
public enum MixLimit: String, Sendable, Hashable, CaseIterable {
    /// Samples beyond ±1 are cut to ±1.
    case clip
    /// Samples above −1 dBFS are bent smoothly towards ±1 (never reaching it); below, untouched.
    case soft
}

/// A colour as a recipe names it (`black`, `white`, `"#RRGGBB"`): 8-bit R'G'B'.
public struct RecipeColor: Sendable, Hashable, CustomStringConvertible {
    public let red: UInt8, green: UInt8, blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) { self.red = red; self.green = green; self.blue = blue }

    public static let black = RecipeColor(red: 0, green: 0, blue: 0)
    public static let white = RecipeColor(red: 255, green: 255, blue: 255)

    /// `black`, `white`, `#RRGGBB` (either case); nil otherwise.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "black": self = .black
        case "white": self = .white
        default:
            guard text.count == 7, text.first == "#", let v = UInt32(text.dropFirst(), radix: 16) else { return nil }
            self.init(red: UInt8(v >> 16), green: UInt8((v >> 8) & 0xFF), blue: UInt8(v & 0xFF))
        }
    }

    public var description: String {
        if self == .black { return "black" }
        if self == .white { return "white" }
        return "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}

/// How a segment of the video list is joined to the one before it.
public struct Transition: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The earlier segment fades to a colour over the half before the cut, the later one from
        /// it over the half after; the sound dips to silence with them.
        case dip
        /// The two segments overlap, one fading into the other (needs layers: not yet).
        case crossFade = "cross-fade"
    }
    public let kind: Kind
    /// Centred on the cut; the timeline's length does not change.
    public let duration: MediaTime
    public let color: RecipeColor
    public let mark: Mark
    public init(kind: Kind, duration: MediaTime, color: RecipeColor = .black, mark: Mark = Mark(line: 0, column: 0)) {
        self.kind = kind; self.duration = duration; self.color = color; self.mark = mark
    }
}
