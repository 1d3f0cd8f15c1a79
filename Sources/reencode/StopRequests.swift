import Dispatch
import Foundation
import Pipeline
import Synchronization

/// Every catchable signal whose default action ends the process, but PROF. `run` and `batch`
/// handle them alike (clean up, exit 128 + n), so an ssh disconnect (HUP), a timeout's ALRM or a
/// scheduler's USR1 leaves nothing behind, as INT and TERM do; every other command ends at once
/// with a message (it has nothing to clean up). PIPE is one of them when another process sends
/// it (`kill -PIPE`); the one the kernel sends for a write to a closed pipe is not (that write's
/// EPIPE is a lost stream: `Console`). PROF is ignored unless a profiler installed a handler.
/// Not here: the faults (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS), which are bugs, nor XFSZ, ignored
/// so a file-size limit fails a write with EFBIG.
enum TerminationSignals {
    /// Those a dispatch signal source hears: libdispatch blocks them in its own threads.
    static let all: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGSTKFLT,
                               SIGXCPU, SIGVTALRM, SIGIO, SIGPWR]
        + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())

    /// First thing in main, before any other work: from here no termination signal takes its
    /// default action; each waits (blocked, pending) until a listener (`StopRequests`) takes it.
    /// What remains unguarded is the time before main, while the dynamic loader maps the
    /// libraries (docs/engine.md, "Stopping").
    static func hold() {
        // Blocked on this (the main) thread, which every later thread inherits (dispatch's own
        // threads block them too); PIPE as well until its handler is in place.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in all + [SIGPIPE] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        for sig in all {
            // A handler that does nothing, not SIG_IGN: setting SIG_IGN discards a signal already
            // pending, so it would never reach its listener; a thread that does not block it
            // (none of ours) is interrupted, not killed.
            signal(sig, { _ in })
        }
        var current = sigaction()
        if sigaction(SIGPROF, nil, &current) == 0 && current.__sigaction_handler.sa_handler == nil {
            signal(SIGPROF, SIG_IGN)  // SIG_DFL is nil: no profiler is listening
        }
    }

    /// Those pending now, taken: those sent to the process, and those sent to this (the main)
    /// thread itself since `hold` (a tracer's, a tgkill), which no dispatch source sees.
    static func takePending() -> [Int32] {
        var set = Self.set()
        var now = timespec(tv_sec: 0, tv_nsec: 0)
        var taken: [Int32] = []
        while case let sig = sigtimedwait(&set, nil, &now), sig > 0 { taken.append(sig) }
        return taken
    }

    /// `all` as a signal set.
    static func set() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in all { sigaddset(&set, sig) }
        return set
    }

    /// `SIGHUP`, `SIGRTMIN+3`.
    static func name(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGALRM: "SIGALRM",
                                      SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2", SIGSTKFLT: "SIGSTKFLT",
                                      SIGXCPU: "SIGXCPU", SIGVTALRM: "SIGVTALRM", SIGIO: "SIGIO", SIGPWR: "SIGPWR", SIGPIPE: "SIGPIPE"]
        if let n = names[signal] { return n }
        let min = __libc_current_sigrtmin()
        if signal >= min && signal <= __libc_current_sigrtmax() { return signal == min ? "SIGRTMIN" : "SIGRTMIN+\(signal - min)" }
        return "signal \(signal)"
    }
}

/// SIGPIPE from another process, passed on through a pipe: libdispatch never blocks PIPE in its
/// threads (a write to a closed pipe must be able to raise it there), so no signal source can
/// hear it; a handler tells the two kinds apart instead.
enum OutsideSIGPIPE {
    /// The pipe's ends, -1 until `install`; read by the handler, so atomics (lock-free).
    private static let readFD = Atomic<Int32>(-1)
    private static let writeFD = Atomic<Int32>(-1)

    /// After `Console.claimStandardDescriptors` (the pipe must not take a closed standard
    /// descriptor's number): the handler, then PIPE unblocked; one that came before is taken now.
    static func install() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            readFD.store(fds[0], ordering: .releasing)
            writeFD.store(fds[1], ordering: .releasing)
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { _, info, _ in
                // The kernel's own SIGPIPE (a write to a closed pipe) names this process as its
                // sender; one from anyone else (a kill, the kernel for a tracer) is a request to stop.
                guard let info, info.pointee._sifields._kill.si_pid != getpid() else { return }
                let saved = errno
                var byte: UInt8 = 1
                _ = Glibc.write(OutsideSIGPIPE.writeFD.load(ordering: .acquiring), &byte, 1)
                errno = saved
            }
            action.sa_flags = SA_SIGINFO | SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(SIGPIPE, &action, nil)
        } else {
            signal(SIGPIPE, SIG_IGN)  // without the pipe: as before, a write's EPIPE still counts
        }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether a PIPE from another process came since the last look: a byte waiting on the
    /// (non-blocking) pipe, taken.
    static func takeRequest() -> Bool {
        let fd = readEnd
        guard fd >= 0 else { return false }
        var bytes = [UInt8](repeating: 0, count: 64)
        return Glibc.read(fd, &bytes, bytes.count) > 0
    }

    /// The end a listener reads (-1 when there is none).
    static var readEnd: Int32 { readFD.load(ordering: .acquiring) }
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

/// Hears every request to stop — each termination signal (held since main began:
/// `TerminationSignals.hold`; through dispatch signal sources, and `OutsideSIGPIPE`'s pipe) and
/// each console stream found lost — and passes it to `handler`, which decides what it means at
/// that moment. One that came before it was made is passed on before `init` returns, on the
/// caller's thread, so the command knows of it before its work begins; later ones on another
/// thread.
// Not Sendable: made, and closed, on the main thread; only `handler` runs elsewhere.
final class StopRequests {
    private let sources: [any DispatchSourceProtocol]

    init(handler: @escaping @Sendable (StopReason) -> Void) {
        // Those already waiting first, here and now: handed to another thread, one could reach
        // the command after a quick command's work had begun, or even ended (it exited 0).
        // Taken before the sources exist, so none of them takes one first; one that comes after
        // this reaches a source (a signal sent to the process, and PIPE's byte, wait for it).
        for sig in TerminationSignals.takePending() { handler(.signal(sig)) }
        let pipeEnd = OutsideSIGPIPE.readEnd
        if OutsideSIGPIPE.takeRequest() { handler(.signal(SIGPIPE)) }
        var made: [any DispatchSourceProtocol] = []
        for sig in TerminationSignals.all {
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { handler(.signal(sig)) }
            s.resume()
            made.append(s)
        }
        if pipeEnd >= 0 {
            let s = DispatchSource.makeReadSource(fileDescriptor: pipeEnd, queue: .global())
            s.setEventHandler { if OutsideSIGPIPE.takeRequest() { handler(.signal(SIGPIPE)) } }
            s.resume()
            made.append(s)
        }
        sources = made
        Console.shared.setLossHandler { loss in handler(.lost(loss)) }
    }

    /// Stops listening. The signals stay held: the process is about to exit.
    func close() {
        Console.shared.setLossHandler(nil)
        sources.forEach { $0.cancel() }
    }
}
