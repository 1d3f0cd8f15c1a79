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
        var timeline: TimeMapping
        /// Which segment of the plan's timeline it plays (0 for a plain conversion).
        var segment = 0
        /// Its first picture is shown from the segment's start and its last to its end, however
        /// early the file ends or late it starts: a segment lengthened for a cross-fade beyond
        /// its file holds its edge picture.
        var holdsEdges = false
        /// The mix input it is summed in, when not its composition track's (the sound of a
        /// cross-fade's upper roll); nil: `ConversionPlan.layer(of:)`.
        var mixInput: Int?
    }

    var inputs: [Input]

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

extension ConversionPlan {
    /// The run's readings of its sources (`ReaderPool`): a plain conversion reads its one file
    /// once, output i for lane i, positioned at the time range's start; a composition reads each
    /// timeline segment with its own reader (one output per lane that shows it), positioned at
    /// the segment's source start, opened when a lane reaches it.
    var readerGroups: [ReaderPool.Group] {
        guard isComposed else {
            let streams = lanes.indices.map { chains.indices.contains($0) ? chains[$0].inputs.first?.track ?? lanes[$0].track.index : lanes[$0].track.index }
            return [ReaderPool.Group(source: source, streams: streams, lanes: Array(lanes.indices),
                                     start: timeRange.start > source.startTime ? timeRange.start : nil)]
        }
        // A composition track is known by its mix input and the lanes that read it.
        var tracks: [[Int]: Int] = [:]
        return timeline.segments.enumerated().map { k, segment in
            var streams: [Int] = [], readers: [Int] = []
            // A smart-rendered lane reads its runs with readers of its own (`SmartSequence`).
            for (lane, chain) in chains.enumerated() where smart[lane] == nil {
                for input in chain.inputs where input.segment == k {
                    streams.append(input.track)
                    readers.append(lane)
                }
            }
            var group = ReaderPool.Group(source: sources[segment.source], streams: streams, lanes: readers, start: readingStart(k))
            let key = [layer(of: k), videoLayer(of: k)] + readers
            if tracks[key] == nil { tracks[key] = tracks.count }
            group.track = tracks[key] ?? 0
            return group
        }
    }

    /// Segment k's composition track: 0 the video or audio list, j ≥ 1 mix input j (audio) or layer j (video).
    func layer(of k: Int) -> Int { segmentLayers.indices.contains(k) ? segmentLayers[k] : 0 }

    /// Segment k's video layer (`videoLayers`) when the pictures are drawn as layers; else 0.
    func videoLayer(of k: Int) -> Int { segmentVideoLayers.indices.contains(k) ? segmentVideoLayers[k] : 0 }

    /// Where segment k's reader is positioned: where its chains read it from (its source start,
    /// or earlier for a cross-fade's incoming segment), earlier still for a stretched segment by
    /// the lead-in its stretcher takes before that (`TimeStretchLead.leadInDuration`) — the
    /// sources before are decoded and not shown.
    private func readingStart(_ k: Int) -> MediaTime {
        let starts = chains.flatMap(\.inputs).filter { $0.segment == k }.compactMap { $0.timeline.segments.first?.sourceRange.start }
        let earliest = starts.min() ?? timeline.segments[k].sourceRange.start
        return earliest - stretchLead(k)
    }

    /// How much sound before its start segment k's stretcher is led in with (0: not stretched).
    private func stretchLead(_ k: Int) -> MediaTime {
        let segment = timeline.segments[k]
        guard let stretch = audioStretches[k], let method = TimeStretcher.Method(rawValue: stretch.rawValue), method != .mute,
              !segment.scale.isIdentity else { return .zero }
        return TimeStretchLead.leadInDuration(method: method, source: segment.scale.den, target: segment.scale.num)
    }

    /// Where lane `lane`'s input `input` is read: its reader group and the group's output.
    func readerTap(lane: Int, input: Int) -> (group: Int, output: Int)? {
        guard chains.indices.contains(lane), chains[lane].inputs.indices.contains(input) else { return nil }
        guard isComposed else { return input == 0 ? (0, lane) : nil }
        let segment = chains[lane].inputs[input].segment
        var output = 0
        for (l, chain) in chains.enumerated() where smart[l] == nil {
            for i in chain.inputs.indices where chain.inputs[i].segment == segment {
                if l == lane && i == input { return (segment, output) }
                output += 1
            }
        }
        return nil
    }

    /// The readers a run (or a rehearsal) reads its sources with.
    func makeReaders(rehearsal: Bool = false) -> ReaderPool {
        ReaderPool(groups: readerGroups, takingProbe: !rehearsal, positions: !rehearsal, borrowingProbe: rehearsal)
    }

    /// This plan with its timeline replaced: every lane plays the timeline's segments one after
    /// the other (one chain input per segment, joined by a sequence combiner). The planner makes
    /// it from a composition's resolved segments (`CompositionTimeline`); tests also build it directly.
    /// `tracks[lane][k]`: the track lane `lane` takes from segment k's source (nil: that source has
    /// none — the segment is black or silent in that lane); nil: the lane's own track everywhere.
    func composed(_ timeline: TimeMapping, sources more: [Asset] = [], tracks: [[Int?]]? = nil, layers: [Int] = []) -> ConversionPlan {
        var plan = self
        plan.timeline = timeline
        plan.isComposed = true
        plan.segmentLayers = layers
        plan.extraSources = more
        plan.chains = lanes.enumerated().map { l, lane in
            var inputs: [StageChain.Input] = []
            for (k, segment) in timeline.segments.enumerated() {
                let chosen = tracks.map { $0[l][k] } ?? (segment.track ?? lane.track.index)
                guard let track = chosen else { continue }
                let s = segment.withTrack(track)
                inputs.append(StageChain.Input(source: s.source, track: track, timeline: TimeMapping([s]), segment: k))
            }
            return StageChain(inputs: inputs)
        }
        return plan
    }
}
