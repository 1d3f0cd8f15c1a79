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
    /// The file it concerns when that is not the plan's source (another file of a composition).
    public let file: String?

    /// `message` often quotes the source (titles, tag names, file names): its control characters
    /// are written as `\u{1B}`, so that a warning stays one line and a hostile file cannot drive
    /// the terminal it is printed on.
    public init(_ kind: Kind, _ item: String, track sourceTrack: Int? = nil, file: String? = nil, _ message: String) {
        self.kind = kind; self.item = item; self.sourceTrack = sourceTrack; self.message = Self.printable(message)
        self.file = file.map(Self.printable)
    }

    public static func printable(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        return s.unicodeScalars.map { isControl($0) ? "\\u{\(String($0.value, radix: 16, uppercase: true))}" : String($0) }.joined()
    }

    /// C0, DEL and C1 controls.
    private static func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || (0x7F...0x9F).contains(c.value) }

    /// `track #1: ...` or the message alone.
    public var description: String { (sourceTrack.map { "track #\($0): " } ?? "") + message }
}
