import Recipe

/// How a composition's audio tracks become one (AVAudioMix): input 0 is the composition's sound
/// (its audio list, or the video list's sound), input j its `mix:` input j. Each input's samples
/// are weighted by its volume, summed, and limited.
public struct AudioMix: Sendable, Hashable {
    /// Per input (index = mix input, 0 the composition's own sound): its volume; nil: 1.
    public var volumes: [Keyframes?]
    public var limit: MixLimit
    /// Per input: how long its fade from silence at its start and to silence at its end last
    /// (nil: none). The planner resolves them onto the timeline (`fadeRamps`).
    public var fades: [InputFade]
    /// Per input, the fades as ramps on the timeline (the planner's; a factor on the volume).
    public internal(set) var fadeRamps: [[Ramp]] = []
    /// The whole output's fade (the composition's `fade-in`/`fade-out`), a factor on the sum.
    public internal(set) var master: Keyframes?
    /// The input that carries the sound of the video track's upper roll when it cross-fades
    /// (its segments there; input 0 the others'); nil: none.
    public internal(set) var crossFadeInput: Int?

    /// An input's fades: from silence over its first `in`, to silence over its last `out`.
    public struct InputFade: Sendable, Hashable {
        public var `in`: MediaTime?
        public var out: MediaTime?
        public init(in fadeIn: MediaTime?, out fadeOut: MediaTime?) { self.in = fadeIn; self.out = fadeOut }
    }

    public init(volumes: [Keyframes?], limit: MixLimit = .clip, fades: [InputFade] = []) {
        self.volumes = volumes; self.limit = limit; self.fades = fades
    }

    /// The volume of input `layer` (1 when it states none).
    func volume(of layer: Int) -> Keyframes? { volumes.indices.contains(layer) ? volumes[layer] : nil }

    /// The fade envelope of input `layer` (nil: none).
    func fade(of layer: Int) -> Keyframes? {
        fadeRamps.indices.contains(layer) && !fadeRamps[layer].isEmpty ? Keyframes(ramps: fadeRamps[layer]) : nil
    }

    /// The fades of every input on the timeline: input j plays from `spans[j].start` to
    /// `spans[j].end`; a fade-in from silence over its first `in`, a fade-out over its last `out`
    /// (each at most the input's length; when both are longer than half, they meet).
    mutating func resolveFades(_ spans: [Int: (start: MediaTime, end: MediaTime)]) {
        fadeRamps = volumes.indices.map { j in
            guard fades.indices.contains(j), let span = spans[j] else { return [] }
            return Self.fadeRamps(in: fades[j].in, out: fades[j].out, start: span.start, end: span.end)?.ramps ?? []
        }
    }

    /// A fade from 0 over the first `in` of `[start, end)` and to 0 over its last `out`, linear;
    /// each at most the span (a fade-out longer than what follows the fade-in starts where it ends).
    static func fadeRamps(in fadeIn: MediaTime?, out fadeOut: MediaTime?, start: MediaTime, end: MediaTime) -> Keyframes? {
        guard end > start else { return nil }
        var ramps: [Ramp] = []
        let length = end - start
        if let d = fadeIn { ramps.append(Ramp(start: start, end: start + MediaTime.min(d, length), from: 0, to: 1)) }
        if let d = fadeOut {
            let from = MediaTime.max(end - MediaTime.min(d, length), ramps.last?.end ?? start)
            if from < end { ramps.append(Ramp(start: from, end: end, from: 1, to: 0)) }
        }
        return ramps.isEmpty ? nil : Keyframes(ramps: ramps)
    }

    /// How `plan` says the limit rule.
    public var limitDescription: String {
        switch limit {
        case .clip: return "clip: samples beyond full scale are cut to it"
        case .soft: return "soft: samples above -1 dBFS bend smoothly towards full scale (tanh), never reaching it"
        }
    }
}
