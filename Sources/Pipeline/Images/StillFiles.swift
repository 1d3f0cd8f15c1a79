import Dispatch
import Foundation

/// The files of one run of stills, all or none: each is written under a temp name beside its
/// target (`TempFile`) and all are moved into place together only once every one is written; a
/// failure anywhere removes the temp files and the folders this run made.
///
/// Stills are drawn, encoded and written on a queue of their own (`perform`), so that the next
/// picture decodes while this one is encoded: a keyframe still is one decode and one encode of
/// about the same cost, and a lane beside renditions hands its pictures over without waiting.
/// At most `inFlight` pictures wait for it, so it holds a bounded number of decoded pictures.
// SAFETY: `written` and `folders` are touched only on `queue` (the caller's methods reach them
// through `queue.sync`), `failure` only under its lock; the work handed over is the sender's no
// longer (`StillJob`).
final class StillFiles: @unchecked Sendable {
    private let queue = DispatchQueue(label: "reencode.stills")
    private static let inFlight = 2
    private let slots = DispatchSemaphore(value: StillFiles.inFlight)
    private var folders = OutputFolders()
    private var written: [(temp: String, path: String, overwrite: Bool)] = []
    /// The first work that failed: later work is not done, and the next caller meets it. Read
    /// under a lock, not through the queue: that would wait for the work in flight.
    private let failure = Locked<MediaError?>(nil)

    /// Runs `work` on the stills queue once fewer than `inFlight` pictures wait for it; an
    /// earlier work's failure is thrown here instead.
    func perform(_ work: @escaping @Sendable () throws(MediaError) -> Void) throws(MediaError) {
        if let failure = failure.withLock({ $0 }) { throw failure }
        slots.wait()
        queue.async {
            defer { self.slots.signal() }
            guard self.failure.withLock({ $0 }) == nil else { return }
            do throws(MediaError) { try work() } catch { self.failure.withLock { $0 = $0 ?? error } }
        }
    }

    /// Waits for every work handed over; throws the first that failed.
    func drain() throws(MediaError) {
        queue.sync {}
        if let failure = failure.withLock({ $0 }) { throw failure }
    }

    /// Writes one still's bytes to a temp file beside `path`, which may replace a file there
    /// when it is moved into place only with `overwrite`. Only on the stills queue (inside `perform`).
    func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws(MediaError) {
        try folders.make(for: path)
        let temp = TempFile.path(for: path)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ResourceShortage.error(errno, "cannot create the still", otherwise: .cannotCreateOutput, file: path) }
        written.append((temp, path, overwrite))
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ResourceShortage.error(n < 0 ? errno : EIO, "cannot write the still", otherwise: .io, file: path) }
            offset += n
        }
    }

    /// Moves every still written into place, all or none (a file one replaced is put back when
    /// a later one cannot be placed); a stop before leaves `.cancelled` for `discard`.
    func commit(isCancelled: () -> Bool) throws(MediaError) {
        try drain()
        if isCancelled() { throw MediaError.cancelled() }
        try TempFile.commit(unplaced)
        forgetPlaced()
    }

    /// The stills written and not yet in place, for a commit together with other outputs.
    var unplaced: [(temp: String, output: String, overwrite: Bool)] {
        queue.sync { written.map { ($0.temp, $0.path, $0.overwrite) } }
    }

    /// `unplaced` was committed: nothing is left to take back.
    func forgetPlaced() {
        queue.sync { written = [] }
    }

    /// Removes everything this run wrote, once the work handed over is done (a still being
    /// encoded when a lane fails is written, then removed: none is left behind).
    func discard() {
        queue.sync {
            for (temp, _, _) in written { TempFile.remove(temp) }
            written = []
            folders.removeMade()
        }
    }
}
