/// A frame rate as an exact rational `frames / seconds`. 29.97 is 30000/1001, never a float.
public struct FrameRate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let frames: Int32
    public let seconds: Int32

    public init(frames: Int32, seconds: Int32 = 1) {
        precondition(frames > 0 && seconds > 0, "frame rate must be positive")
        let g = Int32(gcd(Int64(frames), Int64(seconds)))
        self.frames = frames / g
        self.seconds = seconds / g
    }

    /// The duration of one frame: `seconds / frames`.
    public var frameDuration: MediaTime { MediaTime(value: Int64(seconds), timescale: frames) }

    /// The rate whose frame duration is `d`, if `d` is positive and representable.
    public init?(frameDuration d: MediaTime) {
        guard d.isNumeric, d.value > 0, d.value <= Int64(Int32.max) else { return nil }
        self.init(frames: d.timescale, seconds: Int32(d.value))
    }

    /// True for the NTSC "1001" family (23.976, 29.97, 59.94, 119.88 …).
    public var isNTSC: Bool { seconds == 1001 }

    public var framesPerSecond: Double { Double(frames) / Double(seconds) }

    public static func < (a: FrameRate, b: FrameRate) -> Bool {
        Int64(a.frames) * Int64(b.seconds) < Int64(b.frames) * Int64(a.seconds)
    }

    /// `30`, `30000/1001`.
    public var description: String { seconds == 1 ? "\(frames)" : "\(frames)/\(seconds)" }

    /// `29.97`-style rounding for people.
    public var decimalDescription: String {
        if seconds == 1 { return "\(frames)" }
        let centi = (Int64(frames) * 100 + Int64(seconds) / 2) / Int64(seconds)
        let frac = centi % 100
        return "\(centi / 100).\(frac < 10 ? "0" : "")\(frac)"
    }
}
