import Foundation

/// The demuxer an asset was probed with, kept for the first reader of that asset: a conversion
/// then opens its source and reads its stream information once, as the ffmpeg command line does.
/// Whoever takes it owns it; if nobody does, it closes when the last copy of the asset goes.
/// A rehearsal borrows it (it only opens decoders from the streams' parameters) so that a plan
/// does not read the stream information a second time.
// SAFETY: the mutable fields are only touched under `lock`. `take` hands the container out at
// most once, and never while it is lent; a borrower reads no packets from it and gives it back
// before a run can take it, so it is never used from two places at once.
final class ProbedInput: @unchecked Sendable {
    private let lock = NSLock()
    private var input: InputContainer?
    private var lent = 0

    /// The file as it was when probed: a demuxer opened on an older version of the file would
    /// read it on as the old one (a truncated file simply ending early), so a changed file is
    /// opened again by its reader, which then says what is wrong with it.
    private let state: FileState?

    init(_ input: InputContainer) {
        self.input = input
        state = FileState(path: input.path)
    }

    /// The opened container, the first time, while the file is as it was probed; nil afterwards,
    /// while it is lent, or once the file has changed (then the container is closed).
    func take() -> InputContainer? {
        lock.lock(); defer { lock.unlock() }
        guard lent == 0, let taken = input else { return nil }
        input = nil
        return state != nil && FileState(path: taken.path) == state ? taken : nil
    }

    /// The container, not taken, for one who reads no packets from it (`giveBack` when done).
    func lend() -> InputContainer? {
        lock.lock(); defer { lock.unlock() }
        guard let input else { return nil }
        lent += 1
        return input
    }

    func giveBack() {
        lock.lock(); defer { lock.unlock() }
        lent -= 1
    }
}

/// Which file a path names and its state: device, inode, size and modification time (a file
/// rewritten in place keeps its inode, not its size or time).
struct FileState: Equatable {
    let device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64

    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev); inode = UInt64(st.st_ino); size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec); modifiedNanoseconds = Int64(st.st_mtim.tv_nsec)
    }
}
