/// Instants on an output's timeline, every `interval` from 0, where each video track of the
/// output starts a closed GOP with an IDR: where its fragments (and later its segments) begin.
/// The keyframe goes on the first picture whose time is at or after the instant: a segment
/// never starts before its instant, and every output of a recipe with the same grid and frame
/// rate has its keyframes on the same source frames. Keyframes between grid instants (a scene
/// cut, the GOP length) stay allowed.
public struct KeyframeGrid: Sendable, Hashable {
    /// Longer than 0.
    public let interval: MediaTime
    /// What starts at each instant, as messages name it: `fragment` (`fragment:` on a file) or
    /// `segment` (a streaming package's `segment:`).
    public let unit: String

    public init(every interval: MediaTime, unit: String = "fragment") {
        precondition(interval > .zero, "a keyframe grid needs an interval longer than 0")
        self.interval = interval
        self.unit = unit
    }

    /// Instant `k` (0, interval, 2·interval, …).
    public func instant(_ k: Int64) -> MediaTime { interval * k }

    /// `every 2s`, as `plan` says it.
    public var description: String { "every \(interval.secondsDescription)" }
}

/// How an encoder is told that a picture must start a closed GOP with an IDR (`KeyframeGrid`).
public enum KeyframeForcing: Sendable {
    /// By the picture's type (I), with these options and entries of its parameter string, which
    /// make such a picture an IDR that opens a closed GOP (x264's and x265's `forced-idr`: without
    /// it x264 with `open-gop` makes a recovery point, x265 a plain I picture; x265 with its
    /// default `open-gop` makes a CRA even of a forced IDR). An encoder whose every keyframe is
    /// a closed random access point (VP9, AV1) needs none.
    case pictureType(options: [String: String], parameters: [String] = [])
    /// The encoder cannot be told: why, as a message says it.
    case refused(String)
}
