import Foundation
import Pipeline

/// Whether the open-file limit (`ulimit -n`) leaves `run` and `batch` the descriptors they need
/// before they need them. Checked first thing, before anything uses libdispatch: libdispatch
/// traps (SIGILL) when it cannot make its own descriptors, so a shortage must be found by us, and
/// said (75), before that. Later shortages (a composition of many files, a batch's lanes) are
/// errors where they happen (`ResourceShortage`).
enum DescriptorHeadroom {
    /// What the process holds once it listens for stops: libdispatch's event loop (an epoll and
    /// an eventfd), one signalfd per termination signal.
    static var listening: Int { 2 + TerminationSignals.all.count }

    /// What one conversion opens at least: the recipe, the source (and a second reader of it),
    /// the output's folder, its temp file and that file again to flush it, and the folder again
    /// to flush the rename.
    static let perConversion = 7

    /// What a batch holds besides its conversions: the folder lock, the ledger, the storage-clock
    /// probe, a source being fingerprinted and a claim being written per job.
    static func batch(jobs: Int) -> Int { listening + 3 + jobs * (perConversion + 2) }

    static var run: Int { listening + perConversion }

    /// Nil when `needed` descriptors are free under the limit; else the message that refuses.
    static func shortfall(needed: Int) -> String? {
        guard let limit = ResourceShortage.openFileLimit, limit < 65_536 else { return nil }
        let open = (0..<Int32(limit)).filter { fcntl($0, F_GETFD) != -1 }.count
        let free = Int(limit) - open
        guard free < needed else { return nil }
        return "error: \(ResourceShortage.describe(EMFILE)): reencode needs \(needed) free descriptors, \(free) free; raise the limit"
    }
}
