import Foundation

/// The shared storage's clock, read from the mtime of a file just touched there. Heartbeats are
/// mtimes stamped by that same storage (over NFS `utimes(NULL)` asks the server for its time), so
/// their age is judged against it, never against this host's clock: hosts disagree by seconds to
/// minutes, and a skewed host must not take over a live claim.
public struct StorageClock: Sendable {
    /// A file of this process in the folder whose clock is read.
    let probe: String
    /// `.clock-HOST-PID`: one left by a killed process is swept once its mtime stops changing.
    static let prefix = ".clock-"

    public init(folder: String, host: String) {
        probe = folder + "/" + Self.prefix + HostIdentity.fileTag(host) + "-\(getpid())"
    }

    /// The storage's "now"; the host's own clock when the probe cannot be touched (no write
    /// access, a dry run).
    public func now() -> Double {
        let fd = open(probe, O_WRONLY | O_CREAT | O_NOFOLLOW, 0o644)
        if fd >= 0 {
            close(fd)
            var st = stat()
            if utimes(probe, nil) == 0, stat(probe, &st) == 0 {
                return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            }
        }
        return HostClock.now()
    }

    public func remove() { unlink(probe) }
}

/// This host's own clock. `REENCODE_TEST_CLOCK_OFFSET` (seconds, may be negative) shifts it: a
/// test hook that fakes a host whose clock is off, documented in docs/batch.md.
public enum HostClock {
    static let offset: Double = ProcessInfo.processInfo.environment["REENCODE_TEST_CLOCK_OFFSET"].flatMap(Double.init) ?? 0

    public static func now() -> Double { Date().timeIntervalSince1970 + offset }

    public static func date() -> Date { Date(timeIntervalSince1970: now()) }
}
