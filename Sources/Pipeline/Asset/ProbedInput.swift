import Foundation

/// The demuxer an asset was probed with, kept for the first reader of that asset: a conversion
/// then opens its source and reads its stream information once, as the ffmpeg command line does.
/// Whoever takes it owns it; if nobody does, it closes when the last copy of the asset goes.
// SAFETY: the one mutable field is only touched under `lock`, and `take` hands the container out
// at most once, so it is never used from two places.
final class ProbedInput: @unchecked Sendable {
    private let lock = NSLock()
    private var input: InputContainer?

    init(_ input: InputContainer) { self.input = input }

    /// The opened container, the first time; nil afterwards.
    func take() -> InputContainer? {
        lock.lock(); defer { lock.unlock() }
        let taken = input
        input = nil
        return taken
    }
}
