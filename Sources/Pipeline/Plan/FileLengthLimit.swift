import Recipe

/// The most bytes an output file may have, its index included (a recipe's `file-length-limit`):
/// the run ends the output at the last point where it still fits (`LengthCut`).
public struct FileLengthLimit: Sendable, Hashable {
    public let bytes: Int64
    /// Where the recipe states it (`recipe.yaml:4:22`), for a refusal the run finds.
    public let origin: String?
    public init(bytes: Int64, origin: String? = nil) { self.bytes = bytes; self.origin = origin }

    /// `50000000 bytes (50.0 MB)`.
    public var description: String { ByteCount.describe(bytes) }
}

/// Where an output with a file-length limit was ended, and why: what `run` warns of.
public struct LimitStop: Sendable, Hashable {
    /// Every track ends here (sound within one of its frames).
    public let end: MediaTime
    /// When its last picture starts (nil: no pictures).
    public let lastFrame: MediaTime?
    /// The file's size.
    public let bytes: Int64
    public let limit: FileLengthLimit

    public var message: String {
        "stopped at \(end.secondsDescription)" + (lastFrame.map { " (last frame at \($0.secondsDescription))" } ?? "")
            + ": with what follows, the file would be larger than its file-length-limit of \(limit.description); it has \(ByteCount.describe(bytes))"
    }
}
