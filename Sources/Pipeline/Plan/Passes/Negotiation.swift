import Recipe

/// The planner's last pass: everything the run opens is opened now (`Rehearsal`), so what it
/// would refuse is refused before any decoding; what the encoders really make replaces what was
/// only asked of them; and the formats the stages were opened for become the plan's graph, which
/// the run then builds its stages from.
enum Negotiation {
    static func negotiate(_ plan: inout ConversionPlan) throws(MediaError) {
        plan.graph = nil
        let rehearsal = try Rehearsal.run(plan)
        plan.lanes = zip(plan.lanes, rehearsal.profiles).map { lane, real in lane.withEncoderProfile(real) }
        plan.graph = graph(plan, rehearsal)
        plan.openedEncoders = rehearsal.opened
    }

    /// Per output track: its sources (one node per file's track), a combiner where the track is
    /// made of several, or the chunk encoders and the join where it is encoded in chunks, its
    /// sink, the file.
    static func graph(_ plan: ConversionPlan, _ r: Rehearsal.Outcome) -> PlanGraph {
        var g = PlanGraph()
        let file = g.node(.file(plan.outputPath))
        for (l, lane) in plan.lanes.enumerated() {
            let sink = g.node(.sink(output: l))
            let chunks = plan.chunking.flatMap { $0.lane == l ? $0 : nil }
            let target = chunks.map { g.node(.chunkEncoders(output: l, chunks: $0.chunks.count, workers: $0.workers)) }
                ?? combiner(plan, lane: l).map { g.node(.combiner($0, output: l)) } ?? sink
            for input in plan.chains[l].inputs {
                let source = g.node(.source(file: input.source, track: input.track))
                let track = plan.sources[input.source].track(index: input.track) ?? lane.track
                g.connect(source, target, sourceFormat(track, lane: lane, offered: r.offered[l]), segment: plan.isComposed ? input.segment : nil)
            }
            if chunks != nil, let stream = r.streams[l] {
                // The chunks' streams, joined as they are: the stream the writer stores, all the way.
                let join = g.node(.join(output: l))
                g.connect(target, join, .stream(stream))
                g.connect(join, sink, .stream(stream))
            } else if target != sink, let input = r.sinkInputs[l] {
                g.connect(target, sink, input)
            }
            if let stream = r.streams[l] { g.connect(sink, file, .stream(stream)) }
        }
        return g
    }

    /// What combines a composition's inputs into one track (as the run builds it); nil: one input.
    private static func combiner(_ plan: ConversionPlan, lane l: Int) -> PlanGraph.Combiner? {
        guard plan.isComposed else { return nil }
        switch plan.lanes[l].kind {
        case .video: return plan.videoLayers.isEmpty ? .sequence : .layers
        case .audio: return plan.audioMix == nil ? .sequence : .mix
        case .passthrough, .subtitle: return nil
        }
    }

    /// What a source stage of `lane` gives from `track`: its pictures or sound on the timing the
    /// first source offered (every input of a track is stamped alike), or its compressed samples.
    private static func sourceFormat(_ track: Track, lane: LanePlan, offered: EdgeFormat?) -> EdgeFormat {
        let f = track.format
        switch offered {
        case .pictures(let first)?:
            return .pictures(PictureFormat(width: f.width, height: f.height, pixelFormat: f.pixelFormat ?? "none",
                                           timeBase: first.timeBase, frameRate: first.frameRate))
        case .sound(let first)?:
            return .sound(ExportSession.sound(of: track, rate: first.timeBase.den))
        case .stream?, nil:
            return .stream(StreamFormat(codec: f.codec, profile: f.profile, timeBase: Ratio(Int(track.timeBase.value), Int(track.timeBase.timescale)),
                                        width: f.width, height: f.height, pixelFormat: f.pixelFormat,
                                        sampleRate: f.sampleRate, channelLayout: f.channelLayout))
        }
    }
}
