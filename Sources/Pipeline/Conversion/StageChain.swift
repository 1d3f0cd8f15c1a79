import Recipe

/// How one output track is made, as a value: the source stages it reads — each one source's
/// track over its segments of the timeline — then (with several) a combiner, then the sink its
/// lane kind decides (encode video, encode audio, copy, subtitles). A plain conversion is one
/// source stage into its sink.
struct StageChain: Sendable {
    struct Input: Sendable {
        /// Which of the plan's sources (`ConversionPlan.sources`).
        let source: Int
        /// The source's track index.
        let track: Int
        /// Where this input's material goes on the output's timeline.
        let timeline: TimeMapping
    }

    let inputs: [Input]

    /// The chain of a single-source lane: its track over the plan's timeline.
    static func single(track: Int, timeline: TimeMapping) -> StageChain {
        StageChain(inputs: [Input(source: 0, track: track, timeline: timeline.forTrack(track))])
    }

    /// Each input's one segment, in order (a sequence: one segment per input).
    func segments() throws(MediaError) -> [TimeSegment] {
        var out: [TimeSegment] = []
        for input in inputs {
            guard input.timeline.segments.count == 1, let s = input.timeline.segments.first else {
                throw MediaError(.unsupported, "a chain input plays exactly one segment")
            }
            out.append(s)
        }
        guard !out.isEmpty else { throw MediaError(.processing, "the plan says nothing of how to make this track") }
        return out
    }

    /// The one segment a single-stage lane converts.
    func onlySegment() throws(MediaError) -> TimeSegment {
        guard inputs.count == 1, let input = inputs.first, input.timeline.segments.count == 1, let s = input.timeline.segments.first else {
            throw MediaError(.unsupported, "this track's kind cannot combine several segments yet")
        }
        return s
    }
}

/// One output of the run's reader (a tap on one stream): which chain input it feeds.
struct ReaderTap: Sendable {
    /// The lane (consumer) that reads it.
    let lane: Int
    /// Which of the lane's chain inputs.
    let input: Int
    /// The source stream index.
    let stream: Int
    /// Where its material starts when the reader is not positioned there (a later segment).
    let start: MediaTime?
}

extension ConversionPlan {
    /// Every chain input's reader output: output i is lane i's first input (a plain conversion
    /// reads exactly its lanes' tracks, in order), then the further inputs lane by lane, each
    /// starting at its segment. Every output belongs to its lane: a lane never waits on itself.
    var readerOutputs: [ReaderTap] {
        var outputs = lanes.indices.map { i in
            ReaderTap(lane: i, input: 0, stream: chains.indices.contains(i) ? chains[i].inputs.first?.track ?? lanes[i].track.index
                                                                             : lanes[i].track.index, start: nil)
        }
        for (i, chain) in chains.enumerated() where i < lanes.count {
            for j in chain.inputs.indices.dropFirst() {
                outputs.append(ReaderTap(lane: i, input: j, stream: chain.inputs[j].track,
                                            start: chain.inputs[j].timeline.segments.first?.sourceRange.start))
            }
        }
        return outputs
    }

    /// The reader output of lane `lane`'s input `input`.
    func readerOutput(lane: Int, input: Int) -> Int? {
        readerOutputs.firstIndex { $0.lane == lane && $0.input == input }
    }

    /// The reader a run (or a rehearsal) reads the source with.
    func makeReader(takingProbe: Bool = true) throws(MediaError) -> AssetReader {
        let outputs = readerOutputs
        return try AssetReader(asset: source, streams: outputs.map(\.stream), consumers: outputs.map(\.lane),
                               starts: outputs.map(\.start), takingProbe: takingProbe)
    }

    /// This plan with its timeline replaced: every lane plays the timeline's segments one after
    /// the other (one chain input per segment, joined by a sequence combiner). The planner makes
    /// it from a composition's resolved segments (`CompositionTimeline`); tests also build it directly.
    func composed(_ timeline: TimeMapping) -> ConversionPlan {
        var plan = self
        plan.timeline = timeline
        plan.isComposed = true
        plan.chains = lanes.map { lane in
            StageChain(inputs: timeline.segments.map { segment in
                let s = segment.track == nil ? segment.withTrack(lane.track.index) : segment
                return StageChain.Input(source: s.source, track: s.track ?? lane.track.index, timeline: TimeMapping([s]))
            })
        }
        return plan
    }
}
