import Foundation

/// The files of one run of stills, all or none: each is written under a temp name beside its
/// target (`TempFile`) and moved into place only once every one is written; a failure anywhere
/// removes the temp files, the stills already moved into place by this run and the folders it made.
final class StillFiles {
    private var folders = OutputFolders()
    private var written: [(temp: String, path: String)] = []
    private var placed: [String] = []

    /// Writes one still's bytes to a temp file beside `path`.
    func write(_ bytes: [UInt8], to path: String) throws(MediaError) {
        try folders.make(for: path)
        let temp = TempFile.path(for: path)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ResourceShortage.error(errno, "cannot create the still", otherwise: .cannotCreateOutput, file: path) }
        written.append((temp, path))
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ResourceShortage.error(n < 0 ? errno : EIO, "cannot write the still", otherwise: .io, file: path) }
            offset += n
        }
    }

    /// Moves every still written into place; a stop meanwhile (`isCancelled`) leaves `.cancelled`
    /// for `discard` to take back what was placed.
    func commit(overwrite: Bool, isCancelled: () -> Bool) throws(MediaError) {
        for (temp, path) in written {
            if isCancelled() { throw MediaError.cancelled() }
            try TempFile.commit(temp, to: path, overwrite: overwrite)
            placed.append(path)
        }
        written = []
    }

    /// Removes everything this run wrote.
    func discard() {
        for (temp, _) in written { TempFile.remove(temp) }
        for path in placed { unlink(path) }
        written = []
        placed = []
        folders.removeMade()
    }
}
