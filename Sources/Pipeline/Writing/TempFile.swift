import Foundation
import Recipe

/// Outputs are written beside their target under a hidden temp name and moved into place only
/// when complete, so an output that exists is whole: a failed, interrupted or killed run leaves
/// no output, and a batch can take an existing output as done.
enum TempFile {
    /// Batch runs recognise stale temp files by this marker.
    static let marker = ".reencode-tmp-"

    /// `.NAME.reencode-tmp-HOST-PID-TOKEN` beside `output`: the host and pid say whose it is, so
    /// a later run can tell a dead process's leftover from a live one's work (`removeStale`).
    static func path(for output: String) -> String {
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return FilePaths.join(FilePaths.folder(of: output), prefix(for: output) + "\(host)-\(getpid())-\(token)")
    }

    /// Removes temp files (and chunk folders, `ChunkedRun`) of `output` left by processes of this host that no longer exist (a
    /// kill -9, a crash, a reboot). A live process's file, another host's, or one whose owner
    /// cannot be told is kept. Returns how many were removed.
    @discardableResult
    static func removeStale(for output: String) -> Int {
        let folder = FilePaths.folder(of: output)
        let prefix = prefix(for: output) + host + "-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            // PID-TOKEN after the prefix; another host whose tag starts with this one's and a '-'
            // leaves more parts.
            let rest = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard rest.count == 2, let pid = pid_t(rest[0]), pid > 0, !isAlive(pid) else { continue }
            // A chunked run's folder of chunks goes as its temp file does.
            if (try? FileManager.default.removeItem(atPath: FilePaths.join(folder, name))) != nil { removed += 1 }
        }
        return removed
    }

    private static func prefix(for output: String) -> String {
        "." + FilePaths.name(of: output) + marker
    }

    /// This machine's identity (`HostIdentity`: REENCODE_HOSTNAME, else the host name, as batch
    /// uses) as file names carry it (`HostIdentity.fileTag`).
    static let host: String = HostIdentity.fileTag(HostIdentity.name)

    /// The host tag and pid of a temp name's `HOST-PID-TOKEN` tail (the tag may hold dashes, the
    /// pid and token do not); nil when it has no host (an older reencode's) or cannot be read.
    static func owner(_ tail: String) -> (host: String, pid: Int32)? {
        var parts = tail.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0 else { return nil }
        parts.removeLast(2)
        return (parts.joined(separator: "-"), pid)
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        // EPERM: it exists but belongs to someone else — alive.
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// Makes the temp file durable, then moves it to `output`. Without `overwrite` an output that
    /// appeared meanwhile is not replaced (link fails with EEXIST instead of renaming over it).
    static func commit(_ temp: String, to output: String, overwrite: Bool) throws(MediaError) {
        try flush(temp, output: output)
        try place(temp, at: output, overwrite: overwrite)
        syncDirectory(of: output)
    }

    /// Several outputs of one run moved into place together: every one, or none. All are made
    /// durable first; an output each one replaces is kept under a temp name until the last is in
    /// place, so that a failure part way puts back what was there and removes what was new.
    /// The temp files are gone either way. One output replaces its file by a rename alone:
    /// keeping the old one needs a hard link, which some file systems lack, and nothing else
    /// could fail after it.
    static func commit(_ outputs: [(temp: String, output: String, overwrite: Bool)]) throws(MediaError) {
        if outputs.count == 1, let o = outputs.first { return try commit(o.temp, to: o.output, overwrite: o.overwrite) }
        var placed: [(output: String, replaced: String?)] = []
        do throws(MediaError) {
            for o in outputs { try flush(o.temp, output: o.output) }
            for o in outputs {
                var kept: String?
                if o.overwrite && access(o.output, F_OK) == 0 {
                    let old = path(for: o.output)
                    guard link(o.output, old) == 0 else {
                        let err = errno
                        throw MediaError(.cannotCreateOutput, "cannot keep the output it replaces until every output is in place: \(String(cString: strerror(err)))", file: o.output, code: .errno(err))
                    }
                    kept = old
                }
                do throws(MediaError) { try place(o.temp, at: o.output, overwrite: o.overwrite) } catch {
                    if let kept { unlink(kept) }
                    throw error
                }
                placed.append((o.output, kept))
            }
        } catch {
            for p in placed.reversed() {
                if let old = p.replaced { rename(old, p.output) } else { unlink(p.output) }
            }
            for o in outputs { remove(o.temp) }
            throw error
        }
        for p in placed {
            if let old = p.replaced { unlink(old) }
            syncDirectory(of: p.output)
        }
    }

    /// `temp`'s data on the disk.
    private static func flush(_ temp: String, output: String) throws(MediaError) {
        let fd = open(temp, O_RDONLY)
        if fd < 0, ResourceShortage.cause(ofErrno: errno) != nil {
            throw ResourceShortage.error(errno, "cannot flush the output to disk", otherwise: .io, file: output)
        }
        if fd >= 0 {
            let rc = fsync(fd)
            let err = errno
            close(fd)
            if rc != 0 { throw MediaError(.io, "cannot flush the output to disk: \(String(cString: strerror(err)))", file: output, code: .errno(err)) }
        }
    }

    /// `temp` renamed to `output`; without `overwrite`, linked there (an output that appeared
    /// meanwhile stays: EEXIST) and then unlinked.
    private static func place(_ temp: String, at output: String, overwrite: Bool) throws(MediaError) {
        if overwrite {
            if rename(temp, output) != 0 {
                let err = errno
                throw MediaError(.cannotCreateOutput, "cannot move the finished output into place: \(String(cString: strerror(err)))", file: output, code: .errno(err))
            }
        } else {
            if link(temp, output) != 0 {
                let err = errno
                if err == EEXIST { throw MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: output) }
                throw MediaError(.cannotCreateOutput, "cannot move the finished output into place: \(String(cString: strerror(err)))", file: output, code: .errno(err))
            }
            unlink(temp)
        }
    }

    static func remove(_ temp: String) {
        unlink(temp)
    }

    private static func syncDirectory(of path: String) {
        let fd = open(FilePaths.folder(of: path), O_RDONLY | O_DIRECTORY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
