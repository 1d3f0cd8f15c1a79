import Recipe

/// Opens everything a run opens for a plan — the source's decoders, every encoder with its
/// resolved settings, the output container with every stream — and writes the container's
/// header into memory, then closes it all. Whatever the run would refuse before its first frame
/// is refused here, so `plan` and `validate` say it, and nothing is written.
enum Rehearsal {
    /// What an opened encoder really produces, read back from its headers.
    struct Outcome {
        /// Per lane: the profile in the encoder's sequence header, as FFmpeg names it (`High`,
        /// `Constrained Baseline`, `Main 10`); nil for a copied track or when none is stated.
        var profiles: [String?]
        /// Per lane: what its first source offers and its sink takes (nil: a copied or subtitle
        /// track), and the stream the writer stores.
        var offered: [EdgeFormat?]
        var sinkInputs: [EdgeFormat?]
        var streams: [StreamFormat?]
        /// The encoders it opened, kept for the run (`OpenedEncoders`).
        var opened: OpenedEncoders
    }

    static func run(_ plan: ConversionPlan) throws(MediaError) -> Outcome {
        let reader = plan.makeReaders(rehearsal: true)
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(
            lanes: plan.lanes.map { LaneProgress(track: $0.track.index, mediaType: $0.track.mediaType, outputTime: .zero, frames: 0) },
            duration: plan.duration, handler: nil)
        let opened = OpenedEncoders()
        let env = LaneEnvironment(readers: reader, file: plan.source.path, writer: writer,
                                  cutsStart: plan.cutsStart, cutsEnd: plan.cutsEnd, progress: tracker,
                                  cancellation: Cancellation(), selectiveDecode: plan.selectiveDecode,
                                  encoders: EncoderSupply(keeping: opened))
        var lanes: [ExportSession.MadeLane] = []
        for i in plan.lanes.indices { lanes.append(try ExportSession.laneWork(plan, output: i, env: env)) }
        do throws(MediaError) {
            try writer.start(kept: plan.kept, optimizeForNetwork: plan.optimizeForNetwork, fragments: plan.fragments)
        } catch {
            // Which track the container refuses: each is tried alone.
            if let (i, alone) = writer.refusedInput(), plan.lanes.indices.contains(i) {
                let lane = plan.lanes[i]
                // An encoded track is the settings' choice (65, as validate says it of a recipe's
                // own container); a copy is the source's (the container cannot store it as it is).
                let kind: MediaError.Kind
                switch lane.kind { case .video, .audio: kind = .invalidSettings; case .passthrough, .subtitle: kind = .unsupported }
                throw MediaError(kind, "\(plan.format.rawValue) cannot hold \(codecName(of: lane)): \(alone.message)",
                                 file: plan.source.path, track: lane.track.index, detail: alone.detail ?? error.detail)
            }
            throw error.at(file: plan.outputPath)
        }
        var profiles: [String?] = []
        for i in plan.lanes.indices {
            switch plan.lanes[i].kind {
            case .passthrough, .subtitle: profiles.append(nil); continue
            case .video, .audio: break
            }
            profiles.append(writer.statedProfile(ofInput: i))
        }
        return Outcome(profiles: profiles, offered: lanes.map(\.offered), sinkInputs: lanes.map(\.sinkInput),
                       streams: plan.lanes.indices.map { writer.streamFormat(ofInput: $0) }, opened: opened)
    }

    private static func codecName(of lane: LanePlan) -> String {
        switch lane.kind {
        case .video(let v): return v.codec.rawValue
        case .audio(let a): return a.codec.rawValue
        case .passthrough: return lane.track.format.codec
        case .subtitle(let s): return s.encoderName
        }
    }
}
