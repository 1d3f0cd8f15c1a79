import Foundation

/// One journal file of the ledger: lines are appended whole or not at all. Appenders on this
/// machine take turns (flock: they share this machine's view of the file), so a line that did not
/// go in whole can be cut off again before anyone else appends after it.
struct LedgerJournal {
    let path: String

    /// Appends `line` (ending in a newline) and fsyncs it. A write cut short (a full disk, a
    /// file-size limit) is undone and reported with the errno of the call that failed; the end of
    /// a line an earlier writer left unfinished (killed mid-write) is cut off first, so the new
    /// line starts on a line of its own. Returns the number of bytes so cut off.
    @discardableResult
    func append(_ line: [UInt8]) throws -> Int {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("cannot open the ledger", errno, path) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            let e = errno
            guard e == EINTR else { throw Self.failure("cannot lock the ledger", e, path) }
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Self.failure("cannot read the ledger's size", errno, path) }
        let cut = try cutUnfinishedLine(fd, size: Int64(st.st_size))
        let start = off_t(st.st_size) - off_t(cut)
        var written = 0
        while written < line.count {
            let n = line.withUnsafeBytes { write(fd, $0.baseAddress! + written, line.count - written) }
            if n > 0 { written += n; continue }
            let e = n < 0 ? errno : EIO
            if e == EINTR { continue }
            undo(fd, to: start)
            throw Self.failure("cannot write the ledger", e, path)
        }
        guard fsync(fd) == 0 else {
            let e = errno
            undo(fd, to: start)
            throw Self.failure("cannot write the ledger (fsync)", e, path)
        }
        return cut
    }

    /// Cuts a last line that has no newline (its writer was killed mid-write, or the machine went
    /// down): no reader takes a line without its newline for an entry. Returns the bytes cut.
    private func cutUnfinishedLine(_ fd: Int32, size: Int64) throws -> Int {
        guard size > 0 else { return 0 }
        var end = size
        var buffer = [UInt8](repeating: 0, count: 4096)
        while end > 0 {
            let from = max(0, end - Int64(buffer.count))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(end - from), off_t(from)) }
            guard n == Int(end - from) else { throw Self.failure("cannot read the ledger", n < 0 ? errno : EIO, path) }
            if let i = buffer[0..<n].lastIndex(of: UInt8(ascii: "\n")) {
                let keep = from + Int64(i) + 1
                if keep == size { return 0 }
                guard ftruncate(fd, off_t(keep)) == 0 else { throw Self.failure("cannot cut an unfinished ledger line", errno, path) }
                return Int(size - keep)
            }
            end = from
        }
        guard ftruncate(fd, 0) == 0 else { throw Self.failure("cannot cut an unfinished ledger line", errno, path) }
        return Int(size)
    }

    /// Takes a partly written line out again (best effort: if this fails too, the next append
    /// cuts it).
    private func undo(_ fd: Int32, to size: off_t) {
        _ = ftruncate(fd, size)
    }

    /// `errno` is read by the caller right at the failing call, before anything else can change it.
    static func failure(_ what: String, _ code: Int32, _ path: String) -> MediaError {
        MediaError(.io, "\(what): \(String(cString: strerror(code)))", file: path, code: .errno(code))
    }
}
