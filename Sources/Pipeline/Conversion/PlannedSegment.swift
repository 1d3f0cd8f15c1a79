import Recipe

/// One segment of a composed plan as `plan` shows it: the source range it reads (on the file's
/// timeline) and where, how long, it plays on the output's.
public struct PlannedSegment: Sendable, Hashable {
    public let sourceRange: TimeRange
    public let targetStart: MediaTime
    public let targetDuration: MediaTime
    /// The speed it plays at (`1/8`), as the recipe writes speeds.
    public let speed: String
    /// A piece of a `slow-motion: from-source` segment: the divisor the phone stored for it (1
    /// between its slowed segments, where it plays in real time); nil for any other segment.
    public let slowMotionDivisor: Int?
}

extension ConversionPlan {
    /// A composition's segments, in order; nil for a plain conversion (its range is `timeRange`).
    public var composedSegments: [PlannedSegment]? {
        guard isComposed else { return nil }
        return timeline.segments.map {
            PlannedSegment(sourceRange: $0.sourceRange, targetStart: $0.targetStart, targetDuration: $0.targetDuration,
                           speed: $0.scale.inverse.description, slowMotionDivisor: $0.slowMotion?.speedDivisor)
        }
    }
}
