/// `parallel:` — one output encoded in chunks on several cores (and machines) and joined
/// without encoding again: how many chunks, and how long each may be.
public struct ParallelSpec: Sendable, Hashable {
    public enum Chunks: Sendable, Hashable, CustomStringConvertible {
        /// As many as the output's length and the bounds suggest.
        case auto
        /// Exactly this many (fewer where the output has fewer places to split).
        case count(Int)

        public var description: String {
            switch self {
            case .auto: return "auto"
            case .count(let n): return "\(n)"
            }
        }
    }

    public var chunks: Chunks
    /// The shortest and longest chunk (defaults 2 s and 20 s); the last chunk may be shorter.
    public var shortest: MediaTime
    public var longest: MediaTime
    /// Where `parallel:` is written (nil: `--chunks` on the command line).
    public var mark: Mark?

    public static let defaultShortest = MediaTime(seconds: 2)
    public static let defaultLongest = MediaTime(seconds: 20)

    public init(chunks: Chunks, shortest: MediaTime = ParallelSpec.defaultShortest, longest: MediaTime = ParallelSpec.defaultLongest, mark: Mark? = nil) {
        self.chunks = chunks; self.shortest = shortest; self.longest = longest; self.mark = mark
    }

    /// `auto` or a whole number from 1 to `maxChunks` (`--chunks`, `chunks:`).
    public static func chunks(parsing text: String) -> Chunks? {
        if text == "auto" { return .auto }
        guard let n = Int(text), (1...maxChunks).contains(n) else { return nil }
        return .count(n)
    }

    /// More chunks than any file has keyframe-grid places to split at (a 10-hour film in 2 s chunks).
    public static let maxChunks = 100_000
}
