/// A half-open range `[start, start + duration)` on a media timeline (CMTimeRange semantics).
/// Built on MediaTime's saturating operators, so nothing here traps: an end that does not fit is
/// +infinity (or −infinity). `exactEnd()` is the checked form for paths that must not be approximate.
public struct TimeRange: Sendable, Hashable, CustomStringConvertible {
    public let start: MediaTime
    public let duration: MediaTime

    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    public static let invalid = TimeRange(start: .invalid, duration: .invalid)
    public static let zero = TimeRange(start: .zero, duration: .zero)

    public var end: MediaTime { start + duration }

    /// `start + duration`, or the overflow when it does not fit (where `end` saturates).
    public func exactEnd() throws(MediaTimeOverflow) -> MediaTime { try start.adding(duration) }

    /// Valid: numeric start, and a duration that is numeric and not negative, or +infinity.
    public var isValid: Bool {
        guard start.isNumeric else { return false }
        if duration.isPositiveInfinity { return true }
        return duration.isNumeric && duration >= .zero
    }

    public var isEmpty: Bool { isValid && duration.isNumeric && duration == .zero }
    public var isIndefinite: Bool { start.isIndefinite || duration.isIndefinite }

    /// The end is never inside: `contains(end)` is always false.
    public func contains(_ time: MediaTime) -> Bool {
        isValid && time >= start && time < end
    }

    public func contains(_ other: TimeRange) -> Bool {
        isValid && other.isValid && other.start >= start && other.end <= end
    }

    public func intersection(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        let s = MediaTime.max(start, other.start)
        let e = MediaTime.min(end, other.end)
        return e <= s ? TimeRange(start: s, duration: .zero) : TimeRange(start: s, end: e)
    }

    public var description: String { "[\(start.secondsDescription), \(end.secondsDescription))" }
}
