/// What each chunk of a chunked run took (`ChunkWorkers`), measured: for `run`'s summary and
/// `--progress json`'s `done` line, so a bench reads the chunks' own times.
public struct ChunkTimes: Sendable {
    public struct Chunk: Sendable {
        /// 1-based, as `plan` names it.
        public let number: Int
        /// The worker that encoded it (0-based).
        public let worker: Int
        /// Seconds from the chunk encodes' start to this chunk's start, and its encode's length
        /// (planning it, decoding and encoding).
        public let start: Double
        public let seconds: Double
    }

    /// In chunk order; only the chunks encoded (a failed run has no times).
    public let chunks: [Chunk]
    /// Seconds from the first chunk's start to the last one's end.
    public let wall: Double
    public let workers: Int
}
