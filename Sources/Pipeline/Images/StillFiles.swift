import Foundation

/// The files of one run of stills, all or none: each is written under a temp name beside its
/// target (`TempFile`) and all are moved into place together only once every one is written; a
/// failure anywhere removes the temp files and the folders this run made.
final class StillFiles {
    private var folders = OutputFolders()
    private var written: [(temp: String, path: String, overwrite: Bool)] = []

    /// Writes one still's bytes to a temp file beside `path`, which may replace a file there
    /// when it is moved into place only with `overwrite`.
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
        if isCancelled() { throw MediaError.cancelled() }
        try TempFile.commit(unplaced)
        forgetPlaced()
    }

    /// The stills written and not yet in place, for a commit together with other outputs.
    var unplaced: [(temp: String, output: String, overwrite: Bool)] { written.map { ($0.temp, $0.path, $0.overwrite) } }

    /// `unplaced` was committed: nothing is left to take back.
    func forgetPlaced() {
        written = []
    }

    /// Removes everything this run wrote.
    func discard() {
        for (temp, _, _) in written { TempFile.remove(temp) }
        written = []
        folders.removeMade()
    }
}
