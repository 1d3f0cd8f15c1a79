import Synchronization

/// A flag any thread may set and every lane checks between samples.
final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    var isCancelled: Bool { flag.load(ordering: .acquiring) }
    func cancel() { flag.store(true, ordering: .releasing) }
}
