import Recipe

/// How one output's video track is encoded in chunks (`parallel:`, `run --chunks`): the
/// output's pictures split on its keyframe grid into chunks encoded apart — on several cores at
/// once — each from the source keyframe before its start, then joined into the output without
/// encoding again, and the join checked (`ChunkJoinCheck`). Every other track is made once,
/// whole, as in a plain run. `ChunkPass` plans it; `ChunkedRun` runs it.
public struct ChunkedEncode: Sendable {
    public struct Chunk: Sendable {
        /// 1-based, as `plan` and messages name it.
        public let number: Int
        /// What of the source it shows (its pictures' source times).
        public let sourceRange: TimeRange
        /// Where it lies on the output (from 0).
        public let outputRange: TimeRange
        /// The pictures it shows.
        public let frames: Int
        /// Why it ends where it ends, in a few words (`plan`).
        public let why: String
        /// Its share of a bitrate-coded output's bits, as a bitrate over its length: set by the
        /// run from the first pass (`ChunkBudgets`); nil in a plan, and for quality-coded chunks.
        public var bitrate: Int? = nil
        /// Where it ends at a scene cut: the cut's difference (`SceneCuts`, 0–255); nil otherwise.
        public var difference: Int? = nil
    }

    /// The output track (lane) chunked (a first pass's own plan has its video as lane 0).
    var lane: Int
    public internal(set) var chunks: [Chunk]
    /// Chunk encoders run at once, and each one's share of the cores.
    public let workers: Int
    public let threadsPerWorker: Int
    /// The keyframe grid the splits lie on, in pictures.
    public let gopFrames: Int
    /// Every output picture's time, in order: what the joined track must show (`ChunkJoinCheck`).
    let frameTimes: [MediaTime]
    /// The chunk files to join, in order: set by the run once every chunk is encoded; nil in a
    /// plan (the run encodes them first).
    var files: [String]?
    /// How the chunks are rate-controlled (`ChunkPass` sets it from the output's video settings).
    public var rate: ChunkRate = .quality

    /// Grid places the scene-cut measure looked at, and those it could not (`SceneCuts`: too far
    /// from a source sync sample, or unreadable), which were split as if no cut were looked for.
    public var placesMeasured = 0, placesUnmeasured = 0
    /// The cores the plan was made for (the workers share them; `ChunkPrediction`).
    public var cores = 1

    public var frames: Int { frameTimes.count }
}

/// How a chunked output's video spends its bits.
public enum ChunkRate: Sendable, Equatable {
    /// Every chunk at the output's constant quality: chunks coded apart make what one encode would.
    case quality
    /// A bitrate over the whole video (`bitrate`, `passes: 2`, `target-size`): a first pass measures
    /// each chunk's complexity, each chunk's budget is the whole's bits by its share of it, and each
    /// chunk is coded to its budget in two passes (`ChunkBudgets`).
    case budgets(bitrate: Int)
}
