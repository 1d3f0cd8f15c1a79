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

    /// The one segment a single-stage lane converts.
    func onlySegment() throws(MediaError) -> TimeSegment {
        guard inputs.count == 1, let input = inputs.first, input.timeline.segments.count == 1, let s = input.timeline.segments.first else {
            throw MediaError(.unsupported, "this track's kind cannot combine several segments yet")
        }
        return s
    }
}
