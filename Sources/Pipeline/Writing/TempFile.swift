import Foundation

/// Outputs are written beside their target under a hidden temp name and moved into place only
/// when complete, so an output that exists is whole (DESIGN §4, §5).
enum TempFile {
    /// Batch runs recognise stale temp files by this marker.
    static let marker = ".reencode-tmp-"

    static func path(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        let dir = url.deletingLastPathComponent().path
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return dir + "/." + url.lastPathComponent + marker + "\(getpid())-\(token)"
    }

    /// Makes the temp file durable, then moves it to `output`. Without `overwrite` an output that
    /// appeared meanwhile is not replaced (link fails with EEXIST instead of renaming over it).
    static func commit(_ temp: String, to output: String, overwrite: Bool) throws(MediaError) {
        let fd = open(temp, O_RDONLY)
        if fd >= 0 {
            let rc = fsync(fd)
            let err = errno
            close(fd)
            if rc != 0 { throw MediaError(.io, "cannot flush the output to disk: \(String(cString: strerror(err)))", file: output) }
        }
        if overwrite {
            if rename(temp, output) != 0 {
                throw MediaError(.cannotCreateOutput, "cannot move the finished output into place: \(String(cString: strerror(errno)))", file: output)
            }
        } else {
            if link(temp, output) != 0 {
                let err = errno
                if err == EEXIST { throw MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: output) }
                throw MediaError(.cannotCreateOutput, "cannot move the finished output into place: \(String(cString: strerror(err)))", file: output)
            }
            unlink(temp)
        }
        syncDirectory(of: output)
    }

    static func remove(_ temp: String) {
        unlink(temp)
    }

    private static func syncDirectory(of path: String) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(dir, O_RDONLY | O_DIRECTORY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
