#if canImport(Glibc)
import Glibc
#endif

/// Random access to a file's bytes for the slow-motion readers: they read a few small pieces
/// (box headers, the SEF trailer) and never more than they asked for, so that a size field
/// that lies cannot make them read the whole file.
protocol SlowMotionBytes {
    var length: Int64 { get }
    /// Exactly `count` bytes at `offset`, or nil when they are not all there.
    func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]?
}

/// A regular file, read with `pread`; closed when dropped.
final class SlowMotionFile: SlowMotionBytes {
    let path: String
    let length: Int64
    private let fd: Int32

    /// nil when `path` is not a regular file (a pipe or device has no trailer to seek to).
    static func regular(path: String) throws(MediaError) -> SlowMotionFile? {
        let file = try SlowMotionFile(path: path)
        return file.isRegular ? file : nil
    }

    private let isRegular: Bool

    init(path: String) throws(MediaError) {
        self.path = path
        // Non-blocking: opening a named pipe nobody writes to would otherwise wait forever.
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if let short = ResourceShortage.cause(ofErrno: code) { throw ResourceShortage.error("cannot open it to read its slow-motion data", errno: short, file: path) }
            throw MediaError(code == ENOENT ? .inputMissing : .io, "cannot open it to read its slow-motion data (\(String(cString: strerror(code))))", file: path, code: .errno(code))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw MediaError(.io, "cannot read its size (\(String(cString: strerror(code))))", file: path, code: .errno(code))
        }
        length = Int64(st.st_size)
        isRegular = (st.st_mode & S_IFMT) == S_IFREG
    }

    deinit { close(fd) }

    func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= length, Int64(count) <= length - offset else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return pread(fd, base + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw MediaError(.io, "reading its slow-motion data failed (\(String(cString: strerror(code))))", file: path, code: .errno(code))
            }
            if n == 0 { return nil }  // the file shrank under us
            done += n
        }
        return out
    }
}

/// Bytes in memory (tests, and anything already read).
struct SlowMotionMemory: SlowMotionBytes {
    let bytes: [UInt8]
    var length: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= length, Int64(count) <= length - offset else { return nil }
        let start = Int(offset)
        return Array(bytes[start..<start + count])
    }
}

/// Little- and big-endian fields of a byte array, bounds-checked (nil past the end).
extension Array where Element == UInt8 {
    func uint32LE(at i: Int) -> UInt32? {
        guard i >= 0, i <= count - 4 else { return nil }
        return UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }

    func uint16LE(at i: Int) -> UInt16? {
        guard i >= 0, i <= count - 2 else { return nil }
        return UInt16(self[i]) | UInt16(self[i + 1]) << 8
    }

    func uint32BE(at i: Int) -> UInt32? {
        guard i >= 0, i <= count - 4 else { return nil }
        return UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }

    func uint64BE(at i: Int) -> UInt64? {
        guard let hi = uint32BE(at: i), let lo = uint32BE(at: i + 4) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }

    func fourCC(at i: Int) -> String? {
        guard i >= 0, i <= count - 4 else { return nil }
        return String(decoding: self[i..<i + 4], as: UTF8.self)
    }
}
