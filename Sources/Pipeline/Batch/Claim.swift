import Foundation
import Recipe
import Synchronization

/// Who is converting a file, for many machines sharing one output folder over NFS-like storage
/// (no flock across hosts). A claim file is created with O_EXCL; its mtime is the heartbeat. A
/// claim whose heartbeat this host has seen unchanged for the timeout on its own monotonic clock
/// (`Heartbeats`: no clocks are compared, the storage's or another host's), or whose process is
/// gone on this very host, is stale and may be taken over. Ownership is confirmed by re-reading
/// the token after a short pause, so two machines that take over the same stale claim cannot
/// both proceed.
public final class Claim: Sendable {
    public let path: String
    let token: String
    /// The heartbeat, started, cancelled and dropped from whichever thread holds the claim.
    private let timer = Locked<DispatchSourceTimer?>(nil)
    /// The last heartbeat's mtime (whole seconds): each beat is a later second than the last.
    private let lastBeat = Locked<Int>(0)

    struct Content: Codable {
        var host: String
        var pid: Int32
        var token: String
        var started: String
        var source: String
    }

    public enum Outcome {
        case acquired(Claim)
        /// Someone else holds a live claim.
        case busy(host: String, pid: Int32, since: String)
        /// The system is short of something (EMFILE, ENFILE, ENOMEM): nobody's claim, try later.
        case short(MediaError)
    }

    public static func acquire(at path: String, source: String, host: String, watch: Heartbeats,
                               verifyDelay: TimeInterval = 0.2) -> Outcome {
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let content = Content(host: host, pid: getpid(), token: token, started: ISO8601DateFormatter().string(from: HostClock.date()), source: source)
        for attempt in 0..<2 {
            let made: Bool
            do { made = try create(path, content) } catch let e as MediaError { return .short(e) } catch { return busyOutcome(path) }
            if made {
                // O_EXCL alone decides a first claim; after a takeover another machine may have
                // removed the same stale claim and created its own: the token says who won.
                if attempt > 0 {
                    Thread.sleep(forTimeInterval: verifyDelay)
                    guard read(path)?.token == token else { return busyOutcome(path) }
                }
                return .acquired(Claim(path: path, token: token))
            }
            // It exists: live, or stale (take it over once).
            guard isStale(path, host: host, watch: watch) else { return busyOutcome(path) }
            unlink(path)
        }
        return busyOutcome(path)
    }

    private static func busyOutcome(_ path: String) -> Outcome {
        let c = read(path)
        return .busy(host: c?.host ?? "?", pid: c?.pid ?? 0, since: c?.started ?? "?")
    }

    /// Written whole under a private name, then linked into place: `link` fails when the claim
    /// exists and is atomic (on NFS too), so a claim is never seen empty or half-written. A claim
    /// created empty and filled after (a writer killed in between) would look live to every
    /// other run until its heartbeat timed out, leaving its file unconverted that long.
    /// A shortage of the system's while writing it is thrown (`.resources`): taken for "someone
    /// else's claim", it would leave the file unconverted and say another host has it.
    private static func create(_ path: String, _ content: Content) throws -> Bool {
        guard let data = try? JSONEncoder().encode(content) else { return false }
        let host = HostIdentity.fileTag(content.host)
        let temp = path + newSuffix + "\(host)-\(content.pid)-\(content.token)"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = errno
            if let short = ResourceShortage.cause(ofErrno: e) { throw ResourceShortage.error("cannot write a claim", errno: short, file: temp) }
            return false
        }
        defer { unlink(temp) }
        let n = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard n == data.count else { return false }
        if let pause = testPause { Thread.sleep(forTimeInterval: pause) }
        if link(temp, path) == 0 { return true }
        // Over NFS the reply to a link that was made can be lost: the link count tells.
        var st = stat()
        return errno != EEXIST && stat(temp, &st) == 0 && st.st_nlink == 2
    }

    /// Marks a claim being written (`<claim>.new-<host>-<pid>-<token>`); one left by kill -9 is
    /// swept (`isAbandonedTemp`).
    static let newSuffix = ".new-"

    /// A claim being written whose writer is a process of this host that no longer exists, or
    /// which this host has seen unchanged for the timeout (`Heartbeats`).
    static func isAbandonedTemp(_ path: String, host: String, watch: Heartbeats) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        if watch.unchanged(FilePaths.name(of: path), beat: Heartbeats.beat(st)) { return true }
        // host-pid-token: the host may hold dashes, the pid and token do not.
        guard let r = path.range(of: newSuffix, options: .backwards) else { return false }
        var parts = path[r.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]) else { return false }
        parts.removeLast(2)
        let owner = parts.joined(separator: "-")
        return owner == HostIdentity.fileTag(host) && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// `REENCODE_TEST_CLAIM_PAUSE` (seconds): a test hook that holds a claim being written just
    /// before it is put in place, so a test can kill the process there (docs/batch.md).
    static let testPause: Double? = ProcessInfo.processInfo.environment["REENCODE_TEST_CLAIM_PAUSE"].flatMap(Double.init)

    /// nil when absent or not whole (written by an older reencode that filled claims in place):
    /// such a claim is judged by its heartbeat alone.
    static func read(_ path: String) -> Content? {
        guard let d = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(Content.self, from: d)
    }

    /// Stale: its owner is a process of this host that no longer exists (after kill -9 the next
    /// run need not wait), or this host has seen its heartbeat (mtime, size, token) unchanged for
    /// the timeout on its own monotonic clock. Every call counts as a sighting.
    public static func isStale(_ path: String, host: String, watch: Heartbeats) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return true }
        let c = read(path)
        if let c, c.host == host, c.pid != getpid(), kill(c.pid, 0) != 0, errno == ESRCH { return true }
        return watch.unchanged(FilePaths.name(of: path), beat: Heartbeats.beat(st) + "/" + (c?.token ?? ""))
    }

    init(path: String, token: String) {
        self.path = path
        self.token = token
    }

    /// Beats every `interval` seconds while the conversion runs: the claim's mtime is set to
    /// this host's time, or one second past the last beat when that is later, so that every
    /// beat changes it even where the storage keeps whole seconds and the interval is shorter.
    public func startHeartbeat(every interval: TimeInterval) {
        let path = self.path
        let last = lastBeat
        timer.withLock { current in
            current?.cancel()
            let t = DispatchSource.makeTimerSource(queue: .global())
            t.schedule(deadline: .now() + interval, repeating: interval)
            t.setEventHandler {
                let next = last.withLock { l in
                    l = max(Int(HostClock.now()), l + 1)
                    return l
                }
                var times = [timeval(tv_sec: next, tv_usec: 0), timeval(tv_sec: next, tv_usec: 0)]
                utimes(path, &times)
            }
            t.resume()
            current = t
        }
    }

    /// Still ours (not taken over after a stall)?
    public var isHeld: Bool { Claim.read(path)?.token == token }

    public func release() {
        timer.withLock { t in
            t?.cancel()
            t = nil
        }
        if isHeld { unlink(path) }
    }

    deinit { timer.withLock { $0?.cancel() } }
}
