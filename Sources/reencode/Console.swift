import Foundation
import Synchronization

/// stdout or stderr.
enum ConsoleStream: Int32, Sendable {
    case output = 1
    case error = 2

    var name: String { self == .output ? "stdout" : "stderr" }
}

/// A stream that can no longer be written: its reader closed the pipe (EPIPE), it was closed
/// when we started (EBADF), its device is full (ENOSPC), or another write error. The one
/// reading it is gone.
struct StreamLoss: Sendable, Equatable {
    let stream: ConsoleStream
    let errorNumber: Int32

    /// 141 (128 + SIGPIPE) for a closed pipe, as the default SIGPIPE action would give but
    /// cleanly; 74 (I/O error) for anything else.
    var exitCode: Int32 { errorNumber == EPIPE ? 128 + SIGPIPE : ExitCode.io }

    var description: String { "\(stream.name): \(String(cString: strerror(errorNumber)))" }
}

/// Writes whole lines to stdout and stderr with write(2), never trapping whatever state the
/// streams are in (FileHandle.write traps on EPIPE/EBADF/ENOSPC). Each write is unbuffered, so
/// JSON lines and messages stay in order in a pipe; lines from different threads never mix.
/// A stream that fails once is lost: it is not written again, and `onLoss` hears of it once.
final class Console: Sendable {
    static let shared = Console()

    private struct State {
        var lost: [ConsoleStream: StreamLoss] = [:]
        var onLoss: (@Sendable (StreamLoss) -> Void)?
        /// Streams whose loss a handler has heard of.
        var reported: Set<ConsoleStream> = []
        /// Streams a write to which did not happen.
        var missed: Set<ConsoleStream> = []
    }
    private let state = Mutex(State())

    /// Descriptors 0–2 closed by whoever started us are opened on /dev/null, so no file we open
    /// later takes their number (progress lines would land in the output). A closed stdout or
    /// stderr counts as lost from the start (EBADF). Call first thing.
    func claimStandardDescriptors() {
        for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", O_RDWR)
            if null >= 0 && null != fd { dup2(null, fd); close(null) }
            if let stream = ConsoleStream(rawValue: fd) {
                state.withLock { $0.lost[stream] = StreamLoss(stream: stream, errorNumber: EBADF) }
            }
        }
    }

    /// Called (on the writing thread, once per stream) when a stream is found lost.
    func setLossHandler(_ handler: (@Sendable (StreamLoss) -> Void)?) {
        state.withLock { $0.onLoss = handler }
    }

    func loss(of stream: ConsoleStream) -> StreamLoss? { state.withLock { $0.lost[stream] } }

    /// Why something meant for `stream` was not written, if it was not.
    func missedWrite(to stream: ConsoleStream) -> StreamLoss? {
        state.withLock { $0.missed.contains(stream) ? $0.lost[stream] : nil }
    }

    /// Writes `text`; false when the stream is (now) lost.
    @discardableResult
    func write(_ text: String, to stream: ConsoleStream) -> Bool {
        var found: (StreamLoss, @Sendable (StreamLoss) -> Void)?
        let ok = state.withLock { s -> Bool in
            if let lost = s.lost[stream] {
                s.missed.insert(stream)
                // Closed at start: the handler hears of it at the first write it could miss.
                if !s.reported.contains(stream), let handler = s.onLoss {
                    s.reported.insert(stream)
                    found = (lost, handler)
                }
                return false
            }
            let err = Self.writeAll(Array(text.utf8), to: stream.rawValue)
            guard err == 0 else {
                let loss = StreamLoss(stream: stream, errorNumber: err)
                s.lost[stream] = loss
                s.missed.insert(stream)
                if let handler = s.onLoss {
                    s.reported.insert(stream)
                    found = (loss, handler)
                }
                return false
            }
            return true
        }
        // Outside the lock: the handler may write to the other stream.
        if let (loss, handler) = found { handler(loss) }
        return ok
    }

    /// 0, or the errno that ended the write. Interrupted and would-block writes are retried;
    /// partial writes continue where they stopped.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, raw.count - offset)
            }
            if n > 0 { offset += n; continue }
            if n == 0 { return EIO }
            let err = errno
            if err == EINTR { continue }
            if err == EAGAIN || err == EWOULDBLOCK {
                // A descriptor left non-blocking by whoever started us: wait until it drains.
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, -1) < 0 && errno != EINTR { return errno }
                if p.revents & Int16(POLLERR | POLLHUP) != 0 && p.revents & Int16(POLLOUT) == 0 { return EPIPE }
                continue
            }
            return err
        }
        return 0
    }
}

/// One line on stdout.
func writeOut(_ line: String) {
    Console.shared.write(line + "\n", to: .output)
}

/// One line on stderr.
func printError(_ s: String) {
    Console.shared.write(s + "\n", to: .error)
}
