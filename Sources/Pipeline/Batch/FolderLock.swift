import Foundation

/// An exclusive flock on a file: one batch per output folder per host. Held until released or
/// the process ends (the kernel drops it even after kill -9).
public final class FolderLock {
    private let fd: Int32

    /// nil when another process holds it.
    public init?(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        guard fd >= 0 else { throw MediaError(.cannotCreateOutput, "cannot create the lock file: \(String(cString: strerror(errno)))", file: path) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
