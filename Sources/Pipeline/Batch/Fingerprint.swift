import Foundation

/// FNV-1a, 64 bits: stable across runs and machines (shards, claim names, recipe hashes).
public enum FNV1a {
    public static func hash<S: Sequence>(_ bytes: S, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 where S.Element == UInt8 {
        var h = seed
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    public static func hex(_ s: String) -> String { String(format: "%016llx", hash(Array(s.utf8))) }
}

/// A source file's identity for the ledger: size, mtime and a content fingerprint (FNV-1a over
/// the first and last MiB and the size: cheap on large videos, and a copy-in that replaced the
/// middle of a file still changes its size or mtime).
public struct SourceIdentity: Sendable, Hashable, Codable {
    public let size: Int64
    /// Seconds since 1970, to the microsecond.
    public let mtime: Double

    public static func of(_ path: String) -> SourceIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let m = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec / 1000) / 1e6
        return SourceIdentity(size: Int64(st.st_size), mtime: m)
    }

    /// Two readings of one file time, perhaps by different clients of one storage: equal to the
    /// microsecond, or to the second where either reading is whole seconds (sshfs and other SFTP
    /// v3 clients stamp to the second, the host itself to the nanosecond).
    public static func sameTime(_ a: Double, _ b: Double) -> Bool {
        if abs(a - b) < 1e-5 { return true }
        let whole = { (t: Double) in t == t.rounded(.down) }
        return (whole(a) || whole(b)) && a.rounded(.down) == b.rounded(.down)
    }

    /// "unreadable" when the file cannot be read: a partial hash would look like a real one. A
    /// shortage of the system's (EMFILE, ENFILE, ENOMEM) is thrown (`.resources`): the file is
    /// not unreadable, and judging it so would convert a done file again.
    public static func fingerprint(_ path: String, size: Int64) throws -> String {
        // O_NONBLOCK: a FIFO put in the file's place must not hang the batch; only a regular
        // file is read.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return try unreadable(errno, path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return try unreadable(errno, path) }
        guard st.st_mode & S_IFMT == S_IFREG else { return "unreadable" }
        let chunk = 1 << 20
        var hash = FNV1a.hash(withUnsafeBytes(of: size.littleEndian, Array.init))
        var buffer = [UInt8](repeating: 0, count: chunk)
        var spans: [Int64] = [0]
        if size > Int64(chunk) * 2 { spans.append(size - Int64(chunk)) }
        for start in spans {
            var got = 0
            while got < chunk {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, chunk - got, off_t(start) + off_t(got)) }
                if n > 0 { got += n; continue }
                if n == 0 { break }
                if errno == EINTR { continue }
                return try unreadable(errno, path)
            }
            hash = FNV1a.hash(buffer[0..<got], seed: hash)
        }
        return String(format: "%016llx", hash)
    }

    private static func unreadable(_ code: Int32, _ path: String) throws -> String {
        if let short = ResourceShortage.cause(ofErrno: code) { throw ResourceShortage.error("cannot read the source", errno: short, file: path) }
        return "unreadable"
    }
}
