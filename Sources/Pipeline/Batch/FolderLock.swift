import Foundation

/// An exclusive flock on a file: one batch per output folder, host and slice. Held until released
/// or the process ends (the kernel drops it even after kill -9). The holder writes who it is
/// into the file, so a run that finds it taken can say by whom.
public final class FolderLock {
    private let fd: Int32

    /// Who holds a lock: the host, pid and start time (ISO 8601) it wrote.
    public struct Holder: Codable, Sendable, Equatable {
        public var host: String
        public var pid: Int32
        public var since: String
    }

    public enum Outcome {
        case acquired(FolderLock)
        /// Another process holds it; nil when it has not written its name yet.
        case held(by: Holder?)
    }

    public static func acquire(path: String, holder: Holder) throws(MediaError) -> Outcome {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ResourceShortage.error(errno, "cannot create the lock file", otherwise: .cannotCreateOutput, file: path) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            let data = FileManager.default.contents(atPath: path) ?? Data()
            return .held(by: try? JSONDecoder().decode(Holder.self, from: data))
        }
        if let data = try? JSONEncoder().encode(holder) {
            ftruncate(fd, 0)
            _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        return .acquired(FolderLock(fd: fd))
    }

    private init(fd: Int32) { self.fd = fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
