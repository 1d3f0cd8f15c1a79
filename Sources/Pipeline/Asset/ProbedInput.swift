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

    init(_ input: InputContainer) { self.input = input }

    /// The opened container, the first time; nil afterwards, or while it is lent.
    func take() -> InputContainer? {
        lock.lock(); defer { lock.unlock() }
        guard lent == 0 else { return nil }
        let taken = input
        input = nil
        return taken
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
