import Foundation

/// ITU-R BS.1770-4 / EBU R128 integrated loudness and true peak of planar float sound, fed in
/// blocks as it is decoded. Each channel is K-weighted (`Biquad.kShelf`, `Biquad.rlbHighPass`)
/// and its mean square taken over 100 ms steps; a gating block is four steps (400 ms, 75 %
/// overlap), its loudness −0.691 + 10·log10 Σ Gᵢ·zᵢ with the channel weights Gᵢ (1.0 for left,
/// right and centre, 1.41 for surrounds, none for LFE). Blocks below −70 LUFS are gated out,
/// then blocks more than 10 LU below the loudness of those left; the integrated loudness is
/// that of the blocks passing both gates. A step's power is kept (8 bytes per 100 ms: 280 kB
/// an hour), so the relative gate needs no second pass over the sound.
public struct LoudnessMeter: Sendable {
    public struct Measurement: Sendable, Hashable {
        /// LUFS; nil when every block is below the absolute gate (silence, or under 400 ms).
        public let integrated: Double?
        /// dBTP; −∞ for digital silence.
        public let truePeak: Double
        /// The loudness range (EBU Tech 3342) in LU; nil with fewer than two short-term blocks above the gates.
        public let range: Double?
    }

    public static let absoluteGate = -70.0
    public static let relativeGate = -10.0

    private let weights: [Double]
    private var filters: [(shelf: Biquad, highPass: Biquad)]
    private var truePeak: TruePeakMeter
    /// Where each 100 ms step ends, in samples from the start: round(k · rate / 10), exact at any rate.
    private let rate: Double
    private var stepIndex = 0
    private var stepEnd: Int
    private var position = 0
    /// The weighted sum of squares of the step being filled.
    private var stepSum = 0.0
    /// Each finished step's weighted mean square.
    private var steps: [Double] = []

    /// `channels`: the layout's channel names as FFmpeg gives them (`FL`, `FR`, `FC`, `LFE`, `BL`, `SL` …).
    public init(sampleRate: Int, channels: [String]) {
        rate = Double(sampleRate)
        weights = channels.map(Self.weight)
        filters = channels.map { _ in (Biquad.kShelf(rate: Double(sampleRate)), Biquad.rlbHighPass(rate: Double(sampleRate))) }
        truePeak = TruePeakMeter(channels: channels.count)
        stepEnd = Self.boundary(1, rate: Double(sampleRate))
    }

    /// BS.1770's weight of a channel: surrounds 1.41 (+1.5 dB), the LFE left out, the rest 1.0.
    static func weight(_ name: String) -> Double {
        switch name {
        case "LFE", "LFE2", "LFE1": return 0
        case "BL", "BR", "SL", "SR", "BC", "TBL", "TBR", "LSD", "RSD": return 1.41
        default: return 1
        }
    }

    private static func boundary(_ k: Int, rate: Double) -> Int { Int((Double(k) * rate / 10).rounded()) }

    /// Takes `count` samples of every channel (`planes[c]` points at channel c's).
    public mutating func add(_ planes: [UnsafePointer<Float>], count: Int) {
        for (c, p) in planes.enumerated() where c < weights.count { truePeak.add(p, count: count, channel: c) }
        var done = 0
        while done < count {
            let n = min(count - done, stepEnd - position)
            for (c, p) in planes.enumerated() where c < weights.count && weights[c] > 0 {
                var f = filters[c], sum = 0.0
                for i in done..<(done + n) {
                    let y = f.highPass.process(f.shelf.process(Double(p[i])))
                    sum += y * y
                }
                filters[c] = f
                stepSum += weights[c] * sum
            }
            done += n
            position += n
            if position == stepEnd { finishStep() }
        }
    }

    private mutating func finishStep() {
        let length = stepEnd - Self.boundary(stepIndex, rate: rate)
        steps.append(length > 0 ? stepSum / Double(length) : 0)
        stepSum = 0
        stepIndex += 1
        stepEnd = Self.boundary(stepIndex + 1, rate: rate)
    }

    /// Loudness of a mean-square power.
    static func lufs(_ power: Double) -> Double { -0.691 + 10 * log10(power) }

    /// The power of each whole block of `length` steps, one starting at every `hop` steps.
    private func blocks(length: Int, hop: Int) -> [Double] {
        guard steps.count >= length else { return [] }
        return stride(from: 0, through: steps.count - length, by: hop).map { s in steps[s..<(s + length)].reduce(0, +) / Double(length) }
    }

    /// The measurement of everything given so far (an unfinished step or block is not counted).
    public var measurement: Measurement {
        let peak = truePeak.peak > 0 ? 20 * log10(truePeak.peak) : -Double.infinity
        return Measurement(integrated: Self.gatedLoudness(blocks(length: 4, hop: 1)), truePeak: peak, range: loudnessRange)
    }

    /// BS.1770's two gates over gating blocks' powers: the loudness of what passes, or nil.
    static func gatedLoudness(_ powers: [Double]) -> Double? {
        let loud = powers.filter { $0 > 0 && lufs($0) > absoluteGate }
        guard !loud.isEmpty else { return nil }
        let relative = lufs(loud.reduce(0, +) / Double(loud.count)) + relativeGate
        let kept = loud.filter { lufs($0) > relative }
        guard !kept.isEmpty else { return nil }
        return lufs(kept.reduce(0, +) / Double(kept.count))
    }

    /// EBU Tech 3342: short-term (3 s) loudness every 100 ms, gated at −70 LUFS and 20 LU below
    /// their own mean power; the spread between the 10th and 95th percentile.
    private var loudnessRange: Double? {
        let shortTerm = blocks(length: 30, hop: 1).filter { $0 > 0 }.map(Self.lufs).filter { $0 > Self.absoluteGate }
        guard shortTerm.count >= 2 else { return nil }
        let mean = shortTerm.map { pow(10, ($0 + 0.691) / 10) }.reduce(0, +) / Double(shortTerm.count)
        let kept = shortTerm.filter { $0 > Self.lufs(mean) - 20 }.sorted()
        guard kept.count >= 2 else { return nil }
        func percentile(_ p: Double) -> Double { kept[min(kept.count - 1, Int((Double(kept.count - 1) * p).rounded()))] }
        return percentile(0.95) - percentile(0.10)
    }
}
