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
            case ENOENT, ENOTDIR: throw MediaError(.inputMissing, "no such file", file: path)
            case EACCES: throw MediaError(.inputMissing, "cannot read: permission denied", file: path)
            case ELOOP: throw MediaError(.inputMissing, "cannot read: too many levels of symbolic links", file: path)
            case ENAMETOOLONG: throw MediaError(.inputMissing, "cannot read: the path is too long", file: path)
            default: throw MediaError(.io, "cannot read: \(String(cString: strerror(code)))", file: path)
            }
        }
        if let what = describe(st.st_mode) {
            throw MediaError(.notMedia, "is \(what), not a media file", file: path)
        }
        guard access(path, R_OK) == 0 else {
            throw MediaError(.inputMissing, "cannot read: permission denied", file: path)
        }
    }

    /// nil for a regular file; else what it is, with its article.
    static func describe(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "a special file"
        }
    }
}
