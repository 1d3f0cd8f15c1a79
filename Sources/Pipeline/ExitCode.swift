import Foundation

/// Every exit code reencode uses, in one place (the sysexits convention). `run`, `plan`,
/// `validate`, `inspect` and `batch` exit with these, and the batch ledger records a failed
/// file's code as `run` would have exited with it.
public enum ExitCode {
    public static let ok: Int32 = 0
    /// A conversion failed (decoding, encoding or muxing; nothing in the file we can convert).
    public static let failure: Int32 = 1
    /// A bad command line: unknown option, missing argument, an output whose extension
    /// contradicts the recipe's format (EX_USAGE).
    public static let usage: Int32 = 64
    /// The recipe is invalid, or its settings cannot be met for this source (EX_DATAERR).
    public static let invalidRecipe: Int32 = 65
    /// The input is missing, not media, or lacks a track the recipe needs (EX_NOINPUT).
    public static let noInput: Int32 = 66
    /// The output exists, cannot be created, or would replace the source (EX_CANTCREAT).
    public static let cannotCreate: Int32 = 73
    /// Reading or writing failed at the OS level, stdout or stderr included (EX_IOERR).
    public static let io: Int32 = 74
    /// The system is short, for now, of what the work needs — memory, threads or processes, open
    /// files — in a container at its limit, or a machine under load: nothing is wrong with the
    /// input, the recipe or the output; try again later (EX_TEMPFAIL). A batch spends no attempt on it.
    public static let temporaryFailure: Int32 = 75

    /// Stopped by signal `n`: 128 + n, as a shell reports it (130 SIGINT, 143 SIGTERM, 141 SIGPIPE).
    public static func signal(_ n: Int32) -> Int32 { 128 + n }

    /// Stopped on request without a known signal: as Ctrl-C.
    public static let cancelled: Int32 = signal(SIGINT)
}

extension MediaError.Kind {
    /// The exit code an error of this kind ends a run with.
    public var exitCode: Int32 {
        switch self {
        case .inputMissing, .notMedia: return ExitCode.noInput
        case .outputExists, .cannotCreateOutput: return ExitCode.cannotCreate
        case .io: return ExitCode.io
        case .resources: return ExitCode.temporaryFailure
        case .processing, .unsupported: return ExitCode.failure
        case .invalidSettings: return ExitCode.invalidRecipe
        case .usage: return ExitCode.usage
        case .cancelled: return ExitCode.cancelled
        }
    }
}
