import Recipe

/// One segment of a composed plan as `plan` shows it: the source range it reads (on the file's
/// timeline) and where, how long, it plays on the output's.
public struct PlannedSegment: Sendable, Hashable {
    public let sourceRange: TimeRange
    public let targetStart: MediaTime
    public let targetDuration: MediaTime
    /// The speed it plays at (`1/8`), as the recipe writes speeds.
    public let speed: String
    /// A scaled segment with sound: the `audio-stretch:` method its sound takes (nil: unscaled,
    /// or no sound).
    public let audioStretch: AudioStretch?
}

extension ConversionPlan {
    /// A composition's segments, in order; nil for a plain conversion (its range is `timeRange`).
    public var composedSegments: [PlannedSegment]? {
        guard isComposed else { return nil }
        return timeline.segments.enumerated().map { i, s in
            PlannedSegment(sourceRange: s.sourceRange, targetStart: s.targetStart, targetDuration: s.targetDuration,
                           speed: s.scale.inverse.description, audioStretch: audioStretches[i])
        }
    }
}
