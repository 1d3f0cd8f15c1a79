/// Something a conversion does that the settings alone do not show: an item of the source the
/// output will not keep, a setting that has no effect, a value changed to fit. Nothing a user
/// cares about disappears silently: `plan` and `run` print every notice as a warning line (and
/// list them in their JSON).
public struct PlanNotice: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Part of the source is not in the output (the container cannot hold it, or the recipe
        /// leaves it out).
        case dropped
        /// A setting the recipe gave has no effect.
        case ignored
        /// Something is kept, but not as it was (e.g. HDR tone-mapped to SDR).
        case changed
    }
    public let kind: Kind
    /// A stable name scripts and tests can rely on: `chapters`, `cover-art`,
    /// `hdr10-mastering-display`, `setting.quality`…
    public let item: String
    /// The source track (stream index) it concerns; nil for the file as a whole.
    public let sourceTrack: Int?
    public let message: String

    public init(_ kind: Kind, _ item: String, track sourceTrack: Int? = nil, _ message: String) {
        self.kind = kind; self.item = item; self.sourceTrack = sourceTrack; self.message = message
    }

    /// `track #1: ...` or the message alone.
    public var description: String { (sourceTrack.map { "track #\($0): " } ?? "") + message }
}
