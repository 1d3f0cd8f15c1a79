import Foundation
import Recipe

/// `--move-done`: a converted source moved into another folder, mirrored. Several runs may try
/// the same source (a retry on every host that finds it done): whichever moves it first wins, the
/// others find it gone and say nothing.
enum SourceMove {
    /// Moves `source` to `target`: nil when moved, or gone already (moved by another run); else
    /// why not, in words with the failing path.
    static func move(_ source: String, to target: String) -> String? {
        if let why = makeFolders(FilePaths.folder(of: target)) { return why }
        if rename(source, target) == 0 { return nil }
        let err = errno
        if err == ENOENT, !exists(source) { return nil }
        guard err == EXDEV else { return "cannot move it to \(target): \(String(cString: strerror(err)))" }
        return copyAcross(source, to: target)
    }

    /// Another filesystem: a copy under a hidden name, made durable, linked into place (never over
    /// a file another run put there), then the source removed.
    private static func copyAcross(_ source: String, to target: String) -> String? {
        let temp = FilePaths.join(FilePaths.folder(of: target), "." + FilePaths.name(of: target) + ".reencode-move-\(getpid())")
        unlink(temp)
        defer { unlink(temp) }
        do { try FileManager.default.copyItem(atPath: source, toPath: temp) } catch {
            if !exists(source) { return nil }
            return "cannot copy it to \(target) (another filesystem): the copy failed"
        }
        let fd = open(temp, O_RDONLY)
        guard fd >= 0, fsync(fd) == 0 else {
            let err = errno
            if fd >= 0 { close(fd) }
            return "cannot flush the copy at \(temp): \(String(cString: strerror(err)))"
        }
        close(fd)
        if link(temp, target) != 0, errno != EEXIST { return "cannot put the copy at \(target): \(String(cString: strerror(errno)))" }
        if unlink(source) != 0, errno != ENOENT { return "copied to \(target), but cannot remove it: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// mkdir -p, said as the failing folder and errno.
    private static func makeFolders(_ path: String) -> String? {
        var missing: [String] = []
        var dir = path
        while !dir.isEmpty, dir != "/", dir != ".", !exists(dir) {
            missing.append(dir)
            dir = FilePaths.folder(of: dir)
        }
        for d in missing.reversed() where mkdir(d, 0o755) != 0 && errno != EEXIST {
            return "cannot create the folder \(d): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    private static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }
}
