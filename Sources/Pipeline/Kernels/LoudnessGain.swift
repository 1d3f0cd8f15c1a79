import Foundation

/// The one gain loudness normalisation applies: target − measured, lowered where the true peak
/// would pass the ceiling.
public struct LoudnessGain: Sendable, Hashable {
    /// What the first pass measured of the sound the sink encodes.
    public let measured: LoudnessMeter.Measurement
    public let target: Double
    public let ceiling: Double
    /// dB; 0 for silence.
    public let decibels: Double
    /// The gain was lowered to keep the true peak at the ceiling: `target` is not reached.
    public let peakLimited: Bool
    /// dB the measured true peak is kept further below the ceiling: what a lossy encode of the
    /// gained sound was found to overshoot by (`LoudnessPass`); 0 for a lossless codec.
    public let headroom: Double

    public init(measured: LoudnessMeter.Measurement, target: Double, ceiling: Double, headroom: Double = 0) {
        self.measured = measured
        self.target = target
        self.ceiling = ceiling
        self.headroom = headroom
        guard let loudness = measured.integrated else {
            (decibels, peakLimited) = (0, false)
            return
        }
        let wanted = target - loudness
        let room = measured.truePeak.isFinite ? ceiling - headroom - measured.truePeak : .infinity
        (decibels, peakLimited) = wanted > room ? (room, true) : (wanted, false)
    }

    /// The integrated loudness the output gets; nil for silence.
    public var result: Double? { measured.integrated.map { $0 + decibels } }
    /// The true peak the output gets.
    public var resultPeak: Double { measured.truePeak + decibels }

    static func linear(_ decibels: Double) -> Double { pow(10, decibels / 20) }

    /// `samples[i] *= factor`.
    static func scale(_ samples: UnsafeMutablePointer<Float>, count: Int, by factor: Float) {
        for i in 0..<count { samples[i] *= factor }
    }
}
