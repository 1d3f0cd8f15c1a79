import CFFmpeg
import Foundation
import Recipe

/// The one choke point for FFmpeg return codes: every call whose result can fail goes through
/// `check`, which turns a negative code into a `MediaError` with FFmpeg's message and log line.
enum FFmpeg {
    static let eagain = rx_averror_eagain()
    static let eof = rx_averror_eof()
    static let noPTS = rx_nopts()
    static let external = rx_averror_external()

    /// Returns `rc` when it is not negative; else throws.
    @discardableResult
    static func check(_ rc: Int32, _ what: @autoclosure () -> String,
                      kind: MediaError.Kind? = nil) throws(MediaError) -> Int32 {
        if rc >= 0 { return rc }
        throw error(rc, what(), kind: kind)
    }

    /// A shortage of the system's (memory, threads, open files) is `.resources` whatever `kind`
    /// the call site expected: `ResourceShortage`.
    static func error(_ rc: Int32, _ what: String, kind: MediaError.Kind? = nil) -> MediaError {
        if let cause = ResourceShortage.cause(ofFFmpegCode: rc) {
            var e = ResourceShortage.error(what, errno: cause, detail: takeLastLogLine())
            e.code = .ffmpeg(rc)
            return e
        }
        let k = kind ?? classify(rc)
        return MediaError(k, "\(what): \(describe(rc))", detail: takeLastLogLine(), code: .ffmpeg(rc))
    }

    /// Sets `key` to `value` in a dictionary FFmpeg takes (options, metadata; `what` names it:
    /// `the encoder options`). FFmpeg refuses an entry only when it cannot allocate it.
    static func set(_ dict: inout OpaquePointer?, _ key: String, _ value: String, in what: @autoclosure () -> String) throws(MediaError) {
        let rc = av_dict_set(&dict, key, value, 0)
        if rc < 0 { throw entryError(rc, key: key, in: what()) }
    }

    /// The error of an entry FFmpeg refused: FFmpeg's error number beside its message.
    static func entryError(_ rc: Int32, key: String, in what: String) -> MediaError {
        error(rc, "cannot set '\(key)' in \(what) (FFmpeg error \(rc))")
    }

    static func classify(_ rc: Int32) -> MediaError.Kind {
        switch -rc {
        case ENOSPC, EIO, EDQUOT, EFBIG, EROFS: return .io
        case ENOENT, EACCES, EISDIR: return .inputMissing
        default: return .processing
        }
    }

    static func describe(_ rc: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 256)
        if av_strerror(rc, &buf, buf.count) < 0 { return "error \(rc)" }
        return String(cChars: buf)
    }

    /// FFmpeg's last warning or error line since the last call, if any.
    static func takeLastLogLine() -> String? { FFmpegLog.takeLast() }

    static func clearLog() { _ = FFmpegLog.takeLast() }

    static var installLog: Void { FFmpegLog.install }
}
