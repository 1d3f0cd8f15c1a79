import Foundation

/// Signals sent once a run is under way (its temp file exists), not after a fixed delay: on a
/// loaded machine a fixed delay can end before the signal handlers are installed.
enum UnderWay {
    /// Waits (up to 60 s) until a temp file exists somewhere under `folder`; false if none came.
    @discardableResult
    static func waitForTempFile(under folder: String, process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && process.isRunning {
            if let e = FileManager.default.enumerator(atPath: folder) {
                while let rel = e.nextObject() as? String {
                    if rel.contains(".reencode-tmp-") { return true }
                }
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// Sends `sig` to `process` stopped first (SIGSTOP … SIGCONT), so a short conversion cannot
    /// finish before the signal is delivered.
    static func send(_ sig: Int32, to process: Process) {
        kill(process.processIdentifier, SIGSTOP)
        kill(process.processIdentifier, sig)
        kill(process.processIdentifier, SIGCONT)
    }

    /// Runs reencode, and once a temp file exists under `folder` sends `sig`; killed after `timeLimit`.
    static func run(_ args: [String], signal sig: Int32, tempUnder folder: String, timeLimit: Double = 120,
                    environment: [String: String] = [:]) throws -> Binary.Result {
        let (p, out, err) = try Binary.start(args, environment: environment)
        let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog)
        defer { watchdog.cancel() }
        // Drained meanwhile: a full stdout pipe must not stall the run before its temp file.
        let drained = Drain(out)
        waitForTempFile(under: folder, process: p)
        send(sig, to: p)
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Binary.Result(status: p.terminationStatus, stdout: drained.text(), stderr: String(decoding: e, as: UTF8.self))
    }
}

/// Reads a pipe to its end on another thread.
final class Drain: @unchecked Sendable {
    // SAFETY: `data` is written by the reading thread only before `done` is signalled, and read
    // only after waiting for it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A pipe that nobody reads, already full: a writer blocks at its first byte. The read end
/// stays open (the reader is slow, not gone) until `close`.
final class StalledPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        (readEnd, writeEnd) = (ends[0], ends[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        // Filled through a non-blocking description, which is then made blocking again (the
        // child shares it).
        let flags = fcntl(writeEnd, F_GETFL)
        _ = fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        while chunk.withUnsafeBytes({ Glibc.write(writeEnd, $0.baseAddress, $0.count) }) > 0 {}
        _ = fcntl(writeEnd, F_SETFL, flags)
    }

    /// The write end for a child's stdout or stderr.
    var handle: FileHandle { FileHandle(fileDescriptor: writeEnd, closeOnDealloc: false) }

    func close() {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }
}
