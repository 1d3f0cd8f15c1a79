import CFFmpeg
import Foundation

/// A call that failed for want of something the system lends — memory, a thread or process, a
/// file descriptor — and not for anything in the input, the recipe or the output. Such a failure
/// is `.resources` (75: try again later; a batch spends no attempt on it) wherever it happens,
/// whatever the failing call would otherwise mean (an encoder that will not open is otherwise the
/// recipe's settings, 65; an output that cannot be opened, 73; a demuxer out of memory while
/// opening, a damaged index, 66), and its message names the errno and the limit that applies.
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

    /// `WHAT: the system is short of open files (EMFILE: Too many open files; the open-file
    /// limit, ulimit -n, is 16); try again later`.
    public static func error(_ what: String, errno code: Int32, file: String? = nil, detail: String? = nil) -> MediaError {
        // Room for the way out (messages, removing the temp file) once memory has run out.
        if code == ENOMEM { AddressSpaceReserve.release() }
        return MediaError(.resources, "\(what): \(describe(code)); try again later", file: file, detail: detail, code: .errno(code))
    }

    /// The error an OS call that failed with `code` makes: a shortage as such, else `kind` with
    /// strerror's text after `what`.
    public static func error(_ code: Int32, _ what: String, otherwise kind: MediaError.Kind, file: String? = nil) -> MediaError {
        if let short = cause(ofErrno: code) { return error(what, errno: short, file: file) }
        return MediaError(kind, "\(what): \(String(cString: strerror(code)))", file: file, code: .errno(code))
    }

    /// An allocation that returned nothing: `cannot allocate a packet: the system is short of
    /// memory (ENOMEM: …; the address-space limit, ulimit -v, is 512 MiB); try again later`.
    public static func outOfMemory(_ what: String, file: String? = nil) -> MediaError {
        error("cannot allocate \(what)", errno: ENOMEM, file: file)
    }

    /// `the system is short of open files (EMFILE: Too many open files; the open-file limit,
    /// ulimit -n, is 16)`.
    public static func describe(_ code: Int32) -> String {
        let short = [EAGAIN: "threads or processes", ENOMEM: "memory", EMFILE: "open files", ENFILE: "open files"][code] ?? "resources"
        let name = [EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EMFILE: "EMFILE", ENFILE: "ENFILE"][code] ?? "errno \(code)"
        var limit = ""
        if code == EMFILE { limit = "; the open-file limit, ulimit -n, is \(openFileLimit.map(String.init) ?? "unlimited")" }
        if code == ENFILE { limit = "; the whole system's limit" }
        if code == ENOMEM, let l = addressSpaceLimit { limit = "; the address-space limit, ulimit -v, is \(l >> 20) MiB" }
        return "the system is short of \(short) (\(name): \(String(cString: strerror(code)))\(limit))"
    }

    /// The soft limit on open descriptors; nil when unlimited.
    public static var openFileLimit: UInt64? { limit(RLIMIT_NOFILE) }

    /// The soft limit on address space in bytes; nil when unlimited.
    public static var addressSpaceLimit: UInt64? { limit(RLIMIT_AS) }

    private static func limit(_ resource: __rlimit_resource) -> UInt64? {
        var l = rlimit()
        guard getrlimit(__rlimit_resource_t(resource.rawValue), &l) == 0, l.rlim_cur != rlim_t.max else { return nil }
        return UInt64(l.rlim_cur)
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
