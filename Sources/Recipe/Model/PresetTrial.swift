/// A recipe that converts a source with one preset alone — its first video track and first audio
/// track, each only where the preset has a part for it — so that `presets -i` asks the planner,
/// not a second set of rules, what the preset would make of that source.
public struct PresetTrial: Sendable {
    public let preset: String
    public let recipe: Recipe
    /// The preset sets audio keys only: a video track is not written (its pictures are dropped).
    public let audioOnly: Bool
    /// The preset sets video keys only: an audio track is not part of the trial (a recipe gives
    /// it settings of its own).
    public let videoOnly: Bool
}

extension Recipe {
    /// Every preset this recipe can name: its own (in name order), then the built-ins.
    public var presetCatalogue: [PresetDefinition] {
        presets.keys.sorted().compactMap { presets[$0] } + BuiltinPresets.all.filter { presets[$0.name] == nil }
    }

    /// `preset` tried on a source into `output` (its extension decides the container). The
    /// trial's tracks are optional: a source without video or audio leaves that input out.
    public func trial(of preset: String, output: String) throws(Diagnostic) -> PresetTrial {
        let at = Mark(line: 0, column: 0)
        let resolved = try resolvePreset(Located(preset, at))
        let audioOnly = !resolved.audioOnlyKeys.isEmpty && resolved.videoOnlyKeys.isEmpty
        let videoOnly = !resolved.videoOnlyKeys.isEmpty && resolved.audioOnlyKeys.isEmpty
        var r = Recipe(file: file, lines: lines)
        r.presets = presets
        r.output.path = Located(output, at)
        r.output.overwrite = true
        var reads: [ReaderOutput] = [], inputs: [WriterInput] = []
        if !audioOnly {
            reads.append(ReaderOutput(name: "picture", track: .kind(.video, 0), optional: true, decode: true, mark: at))
            inputs.append(WriterInput(number: 1, source: Located("picture", at), settings: .preset(Located(preset, at)), mark: at))
        }
        if !videoOnly {
            reads.append(ReaderOutput(name: "sound", track: .kind(.audio, 0), optional: true, decode: true, mark: at))
            inputs.append(WriterInput(number: inputs.count + 1, source: Located("sound", at), settings: .preset(Located(preset, at)), mark: at))
        }
        r.readerOutputs = reads
        r.writerInputs = inputs
        return PresetTrial(preset: preset, recipe: r, audioOnly: audioOnly, videoOnly: videoOnly)
    }
}
