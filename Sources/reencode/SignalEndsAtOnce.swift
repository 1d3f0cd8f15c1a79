import Foundation
import Pipeline
import Synchronization

/// For a command with nothing to clean up (inspect, plan, validate, presets, help): a termination
/// signal ends the process at once, 128 + n, with a message. A thread of its own takes the held
/// signals with sigwait, not a dispatch source, whose event reaches its handler through two more
/// threads: under load a quick command finished first and exited 0 with a TERM that came as it
/// began. `finish` ends the command: a signal taken, or still pending, by then wins over its status.
// Not Sendable: made, and finished, on the main thread; its listeners share only `Ending`.
final class SignalEndsAtOnce {
    /// What the listeners and `finish` share.
    private final class Ending: Sendable {
        /// The signal the waiting thread took, 0 until then: set before it ends the process, so
        /// that `finish` sees it even when it holds `lock` first.
        let taken = Atomic<Int32>(0)
        /// Held by whoever ends the process: a listener, or `finish`.
        let lock = Mutex(())
    }

    private let ending = Ending()
    /// PIPE from another process arrives through `OutsideSIGPIPE`'s pipe, not as a held signal.
    private let pipeSource: (any DispatchSourceRead)?

    init() {
        let ending = self.ending
        let pipeEnd = OutsideSIGPIPE.readEnd
        pipeSource = pipeEnd >= 0 ? DispatchSource.makeReadSource(fileDescriptor: pipeEnd, queue: .global()) : nil
        pipeSource?.setEventHandler {
            if OutsideSIGPIPE.takeRequest() { ending.lock.withLock { _ in Self.end(SIGPIPE) } }
        }
        pipeSource?.resume()
        // One sent to this (the main) thread itself since `hold` (a tracer's, a tgkill) waits
        // here, where the waiting thread cannot take it, and a PIPE from outside may be in the
        // pipe already: answered now.
        if let early = TerminationSignals.takePending().first { Self.end(early) }
        if OutsideSIGPIPE.takeRequest() { Self.end(SIGPIPE) }
        Thread.detachNewThread {
            var set = TerminationSignals.set()
            var sig: Int32 = 0
            while sigwait(&set, &sig) == 0 {
                ending.taken.store(sig, ordering: .sequentiallyConsistent)
                ending.lock.withLock { _ in Self.end(sig) }
            }
        }
    }

    /// The command's status, unless a termination signal came before it ended.
    func finish(_ status: Int32) -> Int32 {
        ending.lock.withLock { _ in
            let sig = TerminationSignals.takePending().first ?? ending.taken.load(ordering: .sequentiallyConsistent)
            if sig > 0 { Self.end(sig) }
            if OutsideSIGPIPE.takeRequest() { Self.end(SIGPIPE) }
        }
        return status
    }

    private static func end(_ sig: Int32) -> Never {
        Console.shared.abandonStalledWrites()
        printError("cancelled (\(TerminationSignals.name(sig)))")
        _exit(ExitCode.signal(sig))
    }
}
