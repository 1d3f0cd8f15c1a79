import Recipe

/// An error a conversion can end with. It names the file, and where they apply the track and the
/// media time, and carries FFmpeg's own last log line. Its kind gives the exit code (`ExitCode`).
public struct MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input does not exist or cannot be opened for reading (66).
        case inputMissing
        /// The input exists but is not media we can read, or lacks the tracks asked for (66).
        case notMedia
        /// The output exists and overwriting was not asked for (73).
        case outputExists
        /// The output cannot be created (73).
        case cannotCreateOutput
        /// Reading or writing failed at the OS level: disk full, I/O error (74).
        case io
        /// The system is short of memory, threads or open files for now (75): try again later.
        case resources
        /// Decoding, encoding or muxing failed (1).
        case processing
        /// Nothing we can do with this input under these settings (1).
        case unsupported
        /// The settings cannot be satisfied (65 when they come from a recipe).
        case invalidSettings
        /// The command line contradicts itself or the recipe: `-o x.webm` for an m4a recipe (64).
        case usage
        /// Stopped on request (130).
        case cancelled
    }

    public var kind: Kind
    public var message: String
    public var file: String?
    /// The source stream index the error concerns.
    public var track: Int?
    public var time: MediaTime?
    /// FFmpeg's last warning or error line when the error came from FFmpeg.
    public var detail: String?
    /// The settings key whose value caused the error (`pixel-format`, `sample-rate`), so that a
    /// recipe can point at the line that set it.
    public var setting: String?
    /// The segment field of a composition whose value caused the error, so that a recipe can
    /// point at the line that wrote it.
    public var segment: SegmentField?
    /// The number the failing call returned, kept beside the message (which says it in words):
    /// what a script or a bug report can match on, whatever the wording.
    public var code: Code?

    /// A failed call's own number.
    public enum Code: Sendable, Equatable {
        /// FFmpeg's return code (negative: an AVERROR, `-errno` for the OS's reasons).
        case ffmpeg(Int32)
        /// The OS's errno.
        case errno(Int32)

        /// `ffmpegError` or `errno`: the key `--progress json` gives it under.
        public var jsonKey: String {
            switch self {
            case .ffmpeg: return "ffmpegError"
            case .errno: return "errno"
            }
        }

        public var value: Int32 {
            switch self {
            case .ffmpeg(let n), .errno(let n): return n
            }
        }
    }

    public init(_ kind: Kind, _ message: String, file: String? = nil, track: Int? = nil,
                time: MediaTime? = nil, detail: String? = nil, setting: String? = nil, segment: SegmentField? = nil,
                code: Code? = nil) {
        self.kind = kind; self.message = message; self.file = file
        self.track = track; self.time = time; self.detail = detail; self.setting = setting; self.segment = segment
        self.code = code
    }

    /// A time computed from the file's timing (timestamps, start, duration, time base) that does
    /// not fit in 64 bits: the file is not something we can convert, and no output is written.
    public init(_ overflow: MediaTimeOverflow, file: String? = nil, track: Int? = nil) {
        self.init(.unsupported, "its timing is out of range (\(overflow.expression) does not fit in 64 bits)", file: file, track: track)
    }

    public static func cancelled(file: String? = nil) -> MediaError {
        MediaError(.cancelled, "cancelled", file: file)
    }

    /// The same error, placed: fields already set are kept.
    public func at(file: String? = nil, track: Int? = nil, time: MediaTime? = nil) -> MediaError {
        var e = self
        e.file = e.file ?? file
        e.track = e.track ?? track
        if e.time == nil, let time, time.isNumeric { e.time = time }
        return e
    }

    public var exitCode: Int32 { kind.exitCode }

    /// `FILE: track #N at 12.345s: message (ffmpeg: detail)`; `#N` is the source's stream index,
    /// as `inspect` and `plan` number source tracks.
    public var description: String {
        var s = ""
        if let file { s += "\(file): " }
        if let track { s += "track #\(track)" + (time != nil ? " " : ": ") }
        if let time { s += "at \(time.secondsDescription): " }
        s += message
        if let detail, !detail.isEmpty, !message.contains(detail) { s += " (ffmpeg: \(detail))" }
        return s
    }
}
