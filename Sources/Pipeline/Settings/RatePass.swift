import Recipe

/// Which of two passes a video lane's encoder runs (`passes: 2`, `target-size`), and the file its
/// statistics are kept in, in the run's private temp folder (`TwoPassRun`).
public enum RatePass: Sendable, Hashable {
    /// The statistics pass: the pictures are analysed and coded at the bitrate, the packets dropped.
    case statistics(file: String)
    /// The encode that spends the bitrate by the first pass's statistics.
    case final(file: String)

    public var file: String {
        switch self {
        case .statistics(let f), .final(let f): return f
        }
    }
}
