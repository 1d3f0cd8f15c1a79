import CFFmpeg
import Foundation

/// A call that failed for want of something the system lends — memory, a thread or process, a
/// file descriptor — and not for anything in the input, the recipe or the output. Such a failure
/// is `.resources` (75: try again later; a batch spends no attempt on it) wherever it happens,
/// whatever the failing call would otherwise mean (an encoder that will not open is otherwise the
/// recipe's settings, 65; a demuxer out of memory while opening, a damaged index, 66).
public enum ResourceShortage {
    /// The errno of the shortage behind FFmpeg's code `rc`, or nil when `rc` is not one.
    static func cause(ofFFmpegCode rc: Int32) -> Int32? {
        if rc == FFmpeg.external {
            // x264 and x265 say only "external library failed" when they cannot start their threads.
            return threadsAreShort() ? EAGAIN : nil
        }
        return cause(ofErrno: -rc)
    }

    /// `code` itself when it is a shortage (ENOMEM only while memory is short indeed: a damaged
    /// file's impossible size fails an allocation too, and that is the file's), else nil.
    public static func cause(ofErrno code: Int32) -> Int32? {
        switch code {
        case EAGAIN, EMFILE, ENFILE: return code
        case ENOMEM: return memoryIsShort() ? code : nil
        default: return nil
        }
    }

    /// `WHAT: the system is short of open files (EMFILE: Too many open files); try again later`.
    public static func error(_ what: String, errno code: Int32, file: String? = nil, detail: String? = nil) -> MediaError {
        let short = [EAGAIN: "threads or processes", ENOMEM: "memory", EMFILE: "open files (this process's limit)",
                     ENFILE: "open files (the system's limit)"][code] ?? "resources"
        let name = [EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EMFILE: "EMFILE", ENFILE: "ENFILE"][code] ?? "errno \(code)"
        return MediaError(.resources, "\(what): the system is short of \(short) (\(name): \(String(cString: strerror(code)))); try again later",
                          file: file, detail: detail)
    }

    /// An allocation of FFmpeg's that returned nothing (its contexts: a codec's, a container's).
    static func outOfMemory(_ what: String, file: String? = nil) -> MediaError {
        error(what, errno: ENOMEM, file: file)
    }

    /// Whether 64 MiB of address space cannot be had now: malloc does not touch it, so only a
    /// limit on address space (ulimit -v) or strict overcommit refuses it — what makes FFmpeg's
    /// allocations fail. A refusal of an impossible size (over FFmpeg's 2 GiB cap) leaves it be.
    static func memoryIsShort() -> Bool {
        guard let block = malloc(64 << 20) else { return true }
        free(block)
        return false
    }

    /// Whether a thread cannot be started now (a limit on processes, ulimit -u, or on a
    /// container's pids).
    static func threadsAreShort() -> Bool {
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { _ in nil }, nil)
        if rc == 0 {
            pthread_join(thread, nil)
            return false
        }
        return rc == EAGAIN
    }
}
