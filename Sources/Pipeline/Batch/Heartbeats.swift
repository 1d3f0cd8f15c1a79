import Foundation

/// Staleness judged without comparing clocks. On shared storage the times a file carries may be
/// stamped by the server or by each client (sshfs, SMB, some NFS setups), and hosts' clocks
/// disagree: no age computed from an mtime can be trusted. What a host can trust is its own
/// monotonic clock, and whether a heartbeat changed: a claim (or a temp file, a clock probe) is
/// stale when this host has seen its heartbeat unchanged for `timeout` seconds of its own
/// CLOCK_BOOTTIME. A host keeps what it saw in `claims/.seen-HOST` between runs (with its boot
/// id: after a reboot it starts counting again), so a dead owner's claim is taken over by the
/// first run that comes `timeout` after another run of this host first saw it so.
/// Losing a sighting (two runs of one host saving at once) only delays a takeover.
public final class Heartbeats: Sendable {
    public let timeout: TimeInterval
    let file: String
    private let book: Locked<Book>

    struct Sighting: Codable {
        var beat: String
        var since: Double
    }

    struct Book: Codable {
        var boot: String
        var seen: [String: Sighting]
        /// Keys looked at by this run: only those are kept (the others are gone).
        var looked: Set<String> = []

        enum CodingKeys: String, CodingKey { case boot, seen }
    }

    /// `.seen-HOST`, and `.seen-HOST.new-PID` while it is being replaced (one left by kill -9 is
    /// swept once it stops changing).
    static let filePrefix = ".seen-"

    public init(folder: String, host: String, timeout: TimeInterval) {
        self.timeout = timeout
        file = folder + "/" + Self.filePrefix + HostIdentity.fileTag(host)
        let boot = Self.bootID
        var loaded = Book(boot: boot, seen: [:])
        if let data = FileManager.default.contents(atPath: file), let b = try? JSONDecoder().decode(Book.self, from: data), b.boot == boot {
            loaded = b
        }
        book = Locked(loaded)
    }

    /// Whether `key`'s heartbeat has stayed `beat` for `timeout` seconds of this host's clock,
    /// counted from the first time this host saw it so (a first sighting starts the count).
    public func unchanged(_ key: String, beat: String) -> Bool {
        let now = Self.monotonicNow()
        return book.withLock { b in
            b.looked.insert(key)
            if let s = b.seen[key], s.beat == beat, s.since <= now { return now - s.since >= timeout }
            b.seen[key] = Sighting(beat: beat, since: now)
            return false
        }
    }

    /// Writes what this run saw (whole, under a private name, renamed into place).
    public func save() {
        let data = book.withLock { b -> Data? in
            var kept = b
            kept.seen = b.seen.filter { b.looked.contains($0.key) }
            return try? JSONEncoder().encode(kept)
        }
        guard let data else { return }
        let temp = file + ".new-\(getpid())"
        guard FileManager.default.createFile(atPath: temp, contents: data) else { return }
        if rename(temp, file) != 0 { unlink(temp) }
    }

    /// A file's heartbeat as this host sees it: its mtime (to the nanosecond) and size.
    public static func beat(_ st: stat) -> String { "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)/\(st.st_size)" }

    /// Seconds since boot, suspend included: never set, never skewed.
    static func monotonicNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_BOOTTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static let bootID: String = ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
