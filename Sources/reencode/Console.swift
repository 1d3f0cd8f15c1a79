import Foundation
import Pipeline
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
    var exitCode: Int32 { errorNumber == EPIPE ? ExitCode.signal(SIGPIPE) : ExitCode.io }

    /// Not an errno of write(2): the stream took nothing while the process was stopping.
    static let stalled = ETIMEDOUT

    var description: String {
        "\(stream.name): " + (errorNumber == Self.stalled ? "not being read" : String(cString: strerror(errorNumber)))
    }
}

/// Writes whole lines to stdout and stderr with write(2), never trapping whatever state the
/// streams are in (FileHandle.write traps on EPIPE/EBADF/ENOSPC). Each write is unbuffered, so
/// JSON lines and messages stay in order in a pipe; lines from different threads never mix.
/// A stream that fails once is lost: it is not written again, and `onLoss` hears of it once.
///
/// Each stream has its own write lock, so stderr never waits for a stalled stdout. A write waits
/// in poll(2) for its stream to take bytes, together with a wake-up pipe: once the process is
/// stopping (`abandonStalledWrites`), a stream that takes nothing for `stallGrace` seconds is
/// lost, so a reader that stopped reading cannot hold a signal's exit hostage.
final class Console: Sendable {
    static let shared = Console()

    /// How long a stream may take nothing once the process is stopping.
    static let stallGrace = 1.0

    private struct State {
        var lost: [ConsoleStream: StreamLoss] = [:]
        var onLoss: (@Sendable (StreamLoss) -> Void)?
        /// Streams whose loss a handler has heard of.
        var reported: Set<ConsoleStream> = []
        /// Streams a write to which did not happen.
        var missed: Set<ConsoleStream> = []
        /// The read and write ends of the wake-up pipe; -1 until `claimStandardDescriptors`.
        var wake: (read: Int32, write: Int32) = (-1, -1)
        /// When the process began to stop (monotonic seconds), if it has.
        var stoppingSince: Double?
    }
    private let state = Locked(State())
    /// Held across one whole write (and its waits) to stdout, and to stderr.
    private let outputLock = Lock()
    private let errorLock = Lock()

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
        // Only now: the pipe must not take the number of a closed standard descriptor.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        state.withLock { $0.wake = (ends[0], ends[1]) }
    }

    /// The process is stopping: a write that is waiting for a stalled stream, or one that will,
    /// gives up after `stallGrace` and counts the stream lost. Safe to call more than once.
    func abandonStalledWrites() {
        let wakeWrite = state.withLock { s -> Int32 in
            if s.stoppingSince == nil { s.stoppingSince = Self.now() }
            return s.wake.write
        }
        var byte: UInt8 = 1
        if wakeWrite >= 0 { _ = Glibc.write(wakeWrite, &byte, 1) }
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
        func attempt() -> Bool {
            var written = false
            let lostAlready = state.withLock { s -> Bool in
                guard let lost = s.lost[stream] else { return false }
                s.missed.insert(stream)
                // Closed at start: the handler hears of it at the first write it could miss.
                if !s.reported.contains(stream), let handler = s.onLoss {
                    s.reported.insert(stream)
                    found = (lost, handler)
                }
                return true
            }
            if !lostAlready {
                // Without the state lock: a stalled stream must not block anyone else.
                let err = writeAll(Array(text.utf8), to: stream.rawValue)
                written = err == 0
                if !written {
                    state.withLock { s in
                        let loss = StreamLoss(stream: stream, errorNumber: err)
                        s.lost[stream] = loss
                        s.missed.insert(stream)
                        if let handler = s.onLoss {
                            s.reported.insert(stream)
                            found = (loss, handler)
                        }
                    }
                }
            }
            return written
        }
        let written = stream == .output ? outputLock.withLock { attempt() } : errorLock.withLock { attempt() }
        // Outside the locks: the handler may write to the other stream, or wait for a lock
        // whose holder writes to this one.
        if let (loss, handler) = found { handler(loss) }
        return written
    }

    /// 0, or the errno that ended the write (`StreamLoss.stalled` for a stream that took nothing
    /// for `stallGrace` while stopping). Each chunk is written only once poll says the stream
    /// takes bytes, and is at most PIPE_BUF long, so write(2) itself does not block on a pipe.
    private func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            if let err = waitUntilWritable(fd) { return err }
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, min(raw.count - offset, Int(PIPE_BUF)))
            }
            if n > 0 { offset += n; continue }
            if n == 0 { return EIO }
            let err = errno
            if err == EINTR || err == EAGAIN || err == EWOULDBLOCK { continue }
            return err
        }
        return 0
    }

    /// nil once `fd` takes bytes or has an error for write(2) to report; `StreamLoss.stalled`
    /// if the process is stopping and it took nothing within the grace.
    private func waitUntilWritable(_ fd: Int32) -> Int32? {
        while true {
            let (wake, since) = state.withLock { ($0.wake.read, $0.stoppingSince) }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            var timeout: Int32 = -1
            if let since {
                let left = since + Self.stallGrace - Self.now()
                timeout = Int32(max(0, min(left, 3600)) * 1000)
            } else if wake >= 0 {
                fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 {
                if errno == EINTR { continue }
                return nil  // write(2) says what is wrong
            }
            if fds[0].revents != 0 { return nil }
            if n == 0 && since != nil { return StreamLoss.stalled }
            // Woken: the process began to stop; wait again with the grace.
        }
    }

    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
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
