import Dispatch
import Foundation
import Synchronization

/// Every catchable signal whose default action ends the process. `run` and `batch` handle all
/// of them alike (clean up, exit 128 + n), so an ssh disconnect (HUP), a timeout's ALRM or a
/// scheduler's USR1 leaves nothing behind, as INT and TERM do. Not here: the faults
/// (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS), which are bugs, and XFSZ, ignored so a file-size
/// limit fails a write with EFBIG instead.
enum TerminationSignals {
    static let all: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGSTKFLT,
                               SIGXCPU, SIGVTALRM, SIGPROF, SIGIO, SIGPWR]
        + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())

    /// `SIGHUP`, `SIGRTMIN+3`.
    static func name(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM",
                                      SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2", SIGSTKFLT: "SIGSTKFLT",
                                      SIGXCPU: "SIGXCPU", SIGVTALRM: "SIGVTALRM", SIGPROF: "SIGPROF", SIGIO: "SIGIO", SIGPWR: "SIGPWR"]
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
        case .signal(let s): return 128 + s
        case .lost(let l): return l.exitCode
        }
    }
}

/// Hears every request to stop — each of `TerminationSignals.all` (through dispatch signal
/// sources; the signals themselves are ignored, so none kills the process mid-write) and each
/// console stream found lost — and passes it to `handler` on another thread, which decides what
/// it means at that moment.
// SAFETY: `sources` is set once in init and never changed; a dispatch source may be cancelled
// from any thread.
final class StopRequests: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]

    init(handler: @escaping @Sendable (StopReason) -> Void) {
        var made: [DispatchSourceSignal] = []
        for sig in TerminationSignals.all {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { handler(.signal(sig)) }
            s.resume()
            made.append(s)
        }
        sources = made
        Console.shared.setLossHandler { loss in handler(.lost(loss)) }
    }

    /// Stops listening. The signals stay ignored: the process is about to exit.
    func close() {
        Console.shared.setLossHandler(nil)
        sources.forEach { $0.cancel() }
    }
}
