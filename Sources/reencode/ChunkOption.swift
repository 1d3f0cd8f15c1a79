import Pipeline
import Recipe

/// `--chunks N|auto` (`run`, `plan`): the recipe's `parallel: chunks` replaced from the command line.
enum ChunkOption {
    static let help = """
          --chunks N|auto      Encode the video in N chunks (auto: by its length and the
                               cores) on several cores at once, then join them without
                               encoding again and check the join (as the recipe's
                               'parallel: { chunks: N }'; its bounds, if any, are kept).
        """

    static func parse(_ a: ArgumentScanner, usage: String) throws(UsageError) -> ParallelSpec.Chunks? {
        guard let c = try a.value("--chunks") else { return nil }
        guard let parsed = ParallelSpec.chunks(parsing: c) else {
            throw UsageError(message: "--chunks must be auto or a whole number from 1 to \(ParallelSpec.maxChunks), not '\(c)'", usage: usage)
        }
        return parsed
    }

    /// `r` with the command line's count and the recipe's bounds. A refusal then names the
    /// command line (no recipe mark): a usage error.
    static func applied(_ chunks: ParallelSpec.Chunks?, to r: Recipe) -> Recipe {
        guard let chunks else { return r }
        var r = r
        var spec = r.parallel ?? ParallelSpec(chunks: chunks)
        spec.chunks = chunks
        spec.mark = nil
        r.parallel = spec
        return r
    }
}
