/// What `loudness:` in an audio track's settings asks: the programme's integrated loudness
/// (ITU-R BS.1770 / EBU R128) brought to `integrated` LUFS by one gain, which never lifts the
/// true peak above `truePeak` dBTP.
public struct LoudnessTarget: Sendable, Hashable {
    /// LUFS, within `integratedRange`.
    public var integrated: Double
    /// dBTP, within `truePeakRange`.
    public var truePeak: Double

    public static let integratedRange: ClosedRange<Double> = -70...0
    public static let truePeakRange: ClosedRange<Double> = -9...0
    /// The ceiling when a recipe states none (EBU R128's −1 dBTP for delivery).
    public static let defaultTruePeak = -1.0

    public init(integrated: Double, truePeak: Double = LoudnessTarget.defaultTruePeak) {
        self.integrated = integrated
        self.truePeak = truePeak
    }

    /// As a recipe writes it: `-16 LUFS, true peak -1 dBTP`.
    public var description: String {
        "\(Self.decibels(integrated)) LUFS, true peak \(Self.decibels(truePeak)) dBTP"
    }

    /// A level in dB with one decimal (`-16`, `-16.5`, `+3.2` with `sign`).
    public static func decibels(_ value: Double, sign: Bool = false) -> String {
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(format1(rounded))
        return sign && rounded > 0 ? "+" + text : rounded == 0 ? "0" : text
    }

    private static func format1(_ v: Double) -> String {
        let tenths = Int((abs(v) * 10).rounded())
        return (v < 0 ? "-" : "") + "\(tenths / 10).\(tenths % 10)"
    }
}
