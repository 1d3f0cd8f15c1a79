import Recipe

/// How a composition's audio tracks become one (AVAudioMix): input 0 is the composition's sound
/// (its audio list, or the video list's sound), input j its `mix:` input j. Each input's samples
/// are weighted by its volume, summed, and limited.
public struct AudioMix: Sendable, Hashable {
    /// Per input (index = mix input, 0 the composition's own sound): its volume; nil: 1.
    public var volumes: [Keyframes?]
    public var limit: MixLimit

    public init(volumes: [Keyframes?], limit: MixLimit = .clip) {
        self.volumes = volumes; self.limit = limit
    }

    /// The volume of input `layer` (1 when it states none).
    func volume(of layer: Int) -> Keyframes? { volumes.indices.contains(layer) ? volumes[layer] : nil }

    /// How `plan` says the limit rule.
    public var limitDescription: String {
        switch limit {
        case .clip: return "clip: samples beyond full scale are cut to it"
        case .soft: return "soft: samples above -1 dBFS bend smoothly towards full scale (tanh), never reaching it"
        }
    }
}
