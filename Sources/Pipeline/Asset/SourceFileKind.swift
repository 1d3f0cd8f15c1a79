import Foundation

/// What a path names, checked with stat(2) before anything opens it. Only regular files are media
/// inputs: opening a FIFO for reading blocks until a writer comes (and a blocked open ignores
/// SIGTERM), and devices, sockets and folders are never media.
enum SourceFileKind {
    /// Throws `inputMissing` (66) when the path names nothing readable, `notMedia` (66) when it
    /// names something other than a regular file, `io` (74) when stat itself fails at the OS level.
    static func checkRegularFile(_ path: String) throws(MediaError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw MediaError(.inputMissing, "no such file", file: path, code: .errno(code))
            case EACCES: throw MediaError(.inputMissing, "cannot read: permission denied", file: path, code: .errno(code))
            case ELOOP: throw MediaError(.inputMissing, "cannot read: too many levels of symbolic links", file: path, code: .errno(code))
            case ENAMETOOLONG: throw MediaError(.inputMissing, "cannot read: the path is too long", file: path, code: .errno(code))
            default: throw MediaError(.io, "cannot read: \(String(cString: strerror(code)))", file: path, code: .errno(code))
            }
        }
        if let what = nonRegularFileKind(st.st_mode) {
            throw MediaError(.notMedia, "is \(what), not a media file", file: path)
        }
        guard access(path, R_OK) == 0 else {
            throw MediaError(.inputMissing, "cannot read: permission denied", file: path, code: .errno(errno))
        }
    }
}

/// What a non-regular file is, with its article, for messages: "a directory", "a FIFO (named
/// pipe)", …; nil for a regular file. The one wording for sources, outputs, recipes and the
/// batch's skipped files, so one kind of file reads the same everywhere.
public func nonRegularFileKind(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO (named pipe)"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "a special file"
    }
}
