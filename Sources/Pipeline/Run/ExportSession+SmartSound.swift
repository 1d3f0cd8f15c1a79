import Recipe

extension ExportSession {
    /// The sound lane of a smart-rendered output whose frames are copied (`SmartSoundSequence`);
    /// nil where the plan encodes it whole. A copied sound makes no decoded samples for another
    /// output: the compiler plans a sound whose read another output's track takes as encoded
    /// whole (`RecipeCompiler.smartSharingObstacles`), and the run refuses a plan made without it.
    static func smartSoundLane(_ plan: ConversionPlan, output i: Int, env: LaneEnvironment, tee: Tee?) throws(MediaError) -> PacketLane? {
        guard let sound = plan.smartSound[i], case .audio(let settings) = plan.lanes[i].kind else { return nil }
        guard tee?.others.isEmpty ?? true else {
            throw MediaError(.processing, "the plan copies this sound, but its read also makes another output's track")
        }
        let track = plan.lanes[i].track
        if !plan.isComposed { try env.readers.tap(group: 0, output: tee?.readerOutput ?? i).detach() }
        let sequence = try SmartSoundSequence(env: env, sound: sound, sources: plan.sources, settings: settings, track: track.index)
        let input = try env.writer.addPassthroughInput(from: sequence.stream, stampedIn: TimeBase(num: 1, den: Int32(sound.sampleRate)),
                                                       rotation: 0, metadata: track.outputMetadata)
        return PacketLane(env: env, track: track.index, stage: sequence, sink: PacketSink(env: env, output: i, input: input))
    }
}
