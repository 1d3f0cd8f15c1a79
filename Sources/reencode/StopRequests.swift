import Dispatch
import Foundation
import Pipeline

/// Every catchable signal whose default action ends the process, but two. `run` and `batch`
/// handle them alike (clean up, exit 128 + n), so an ssh disconnect (HUP), a timeout's ALRM or a
/// scheduler's USR1 leaves nothing behind, as INT and TERM do. Not here: PIPE and PROF, which
/// libdispatch never blocks in its threads (so a dispatch source cannot hear them reliably):
/// PIPE is ignored (a reader that went away shows as EPIPE, a lost stream: `Console`), and PROF
/// is ignored unless a profiler installed a handler. Nor the faults (SEGV, BUS, ILL, FPE, ABRT,
/// TRAP, SYS), which are bugs, nor XFSZ, ignored so a file-size limit fails a write with EFBIG.
enum TerminationSignals {
    static let all: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGSTKFLT,
                               SIGXCPU, SIGVTALRM, SIGIO, SIGPWR]
        + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())

    /// `SIGHUP`, `SIGRTMIN+3`.
    static func name(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGALRM: "SIGALRM",
                                      SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2", SIGSTKFLT: "SIGSTKFLT",
                                      SIGXCPU: "SIGXCPU", SIGVTALRM: "SIGVTALRM", SIGIO: "SIGIO", SIGPWR: "SIGPWR"]
        if let n = names[signal] { return n }
        let min = __libc_current_sigrtmin()
        if signal >= min && signal <= __libc_current_sigrtmax() { return signal == min ? "SIGRTMIN" : "SIGRTMIN+\(signal - min)" }
        return "signal \(signal)"
    }
}

/// Why work stops before its end: a termination signal, or the reader of stdout or stderr gone.
enum StopReason: Sendable, Equatable {
    case signal(Int32)
    case lost(StreamLoss)

    var exitCode: Int32 {
        switch self {
        case .signal(let s): return ExitCode.signal(s)
        case .lost(let l): return l.exitCode
        }
    }
}

/// Hears every request to stop — each of `TerminationSignals.all` (through dispatch signal
/// sources; the signals are blocked and caught by a handler that does nothing, so none kills the
/// process mid-write) and each
/// console stream found lost — and passes it to `handler` on another thread, which decides what
/// it means at that moment.
// Not Sendable: made, and closed, on the main thread; only `handler` runs elsewhere.
final class StopRequests {
    private let sources: [DispatchSourceSignal]

    init(handler: @escaping @Sendable (StopReason) -> Void) {
        // Blocked on this (the main) thread, then caught: a signal stays pending until the
        // source's signalfd takes it, even one that comes before the source is registered, and
        // none ever takes its default action. Dispatch's own threads block them too.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in TerminationSignals.all { sigaddset(&set, sig) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var current = sigaction()
        if sigaction(SIGPROF, nil, &current) == 0 && current.__sigaction_handler.sa_handler == nil {
            signal(SIGPROF, SIG_IGN)  // SIG_DFL is nil: no profiler is listening
        }
        var made: [DispatchSourceSignal] = []
        for sig in TerminationSignals.all {
            // A handler that does nothing, not SIG_IGN: setting SIG_IGN discards a signal already
            // pending (one that came after the block above), so it would never reach its source.
            signal(sig, { _ in })
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { handler(.signal(sig)) }
            s.resume()
            made.append(s)
        }
        sources = made
        Console.shared.setLossHandler { loss in handler(.lost(loss)) }
    }

    /// Stops listening. The signals stay caught: the process is about to exit.
    func close() {
        Console.shared.setLossHandler(nil)
        sources.forEach { $0.cancel() }
    }
}
