import Recipe
import CFFmpeg
import Foundation
import Synchronization

/// Captures FFmpeg's log so that its last warning or error line can travel with our errors.
/// The last line is kept per thread: FFmpeg logs a failure on the thread that made the failing
/// call, which is the thread that then builds the error, so conversions side by side (batch
/// `--jobs N`) never carry each other's lines; a lane forgets its pooled thread's old line when it
/// starts. A line logged on one of FFmpeg's own worker
/// threads (frame-threaded decoding) is kept process-wide too, and used only while at most one
/// conversion is in `scoped` (a single `run`, or a batch with one job): with several side by side
/// it could be another file's, and none is better than a wrong one.
enum FFmpegLog {
    private struct Line { let seq: UInt64; let text: String }
    private struct Slots {
        var seq: UInt64 = 0
        var byThread: [UInt: Line] = [:]
        var latest: Line?
        /// Conversions now inside `scoped`.
        var active = 0
    }
    private static let slots = Locked(Slots())

    /// Runs one conversion (or probe) that may run beside others in this process.
    static func scoped<T>(_ body: () throws -> T) rethrows -> T {
        slots.withLock { $0.active += 1 }
        defer { slots.withLock { $0.active -= 1 } }
        return try body()
    }

    /// The calling thread, as a key.
    private static var thread: UInt { UInt(pthread_self()) }
    /// Lines per watched context (a demuxer; an encoder while it opens) at or above its level:
    /// some damage, and some refusals, are only ever said in the log.
    private static let watched = Locked<[UInt: (level: Int32, lines: [String])]>([:])

    static func watch(_ context: UnsafeMutableRawPointer, level: Int32 = AV_LOG_ERROR) {
        _ = install
        watched.withLock { $0[UInt(bitPattern: context)] = (level, []) }
    }

    /// Stops watching and returns the lines `context` logged.
    static func unwatch(_ context: UnsafeMutableRawPointer) -> [String] {
        watched.withLock { $0.removeValue(forKey: UInt(bitPattern: context))?.lines ?? [] }
    }

    static func errors(of context: UnsafeMutableRawPointer) -> [String] {
        watched.withLock { $0[UInt(bitPattern: context)]?.lines ?? [] }
    }

    /// `REENCODE_FFMPEG_LOG=debug|verbose|info|warning|error` echoes FFmpeg's log to stderr.
    nonisolated(unsafe) private static var echoLevel: Int32 = AV_LOG_QUIET

    static let install: Void = {
        switch ProcessInfo.processInfo.environment["REENCODE_FFMPEG_LOG"] {
        case "debug": echoLevel = AV_LOG_DEBUG
        case "verbose": echoLevel = AV_LOG_VERBOSE
        case "info": echoLevel = AV_LOG_INFO
        case "warning": echoLevel = AV_LOG_WARNING
        case "error": echoLevel = AV_LOG_ERROR
        default: echoLevel = AV_LOG_QUIET
        }
        av_log_set_callback { avcl, level, fmt, args in FFmpegLog.handle(avcl, level, fmt, args) }
        // Libraries that log to stderr themselves, past FFmpeg's log (`VideoEncoder.quietEnvironment`).
        for q in VideoEncoder.all.compactMap(\.quietEnvironment) { setenv(q.name, q.value, 0) }
    }()

    /// Drops the line this thread kept. Lanes run on libdispatch's pooled threads: a line an
    /// earlier lane (perhaps another file's) left on this thread must not become this lane's.
    static func forgetThread() {
        let key = thread
        slots.withLock { s in
            if let own = s.byThread.removeValue(forKey: key), s.latest?.seq == own.seq { s.latest = nil }
        }
    }

    /// Keeps `line` as this thread's last line, as FFmpeg's callback does.
    static func record(_ line: String) {
        let key = thread
        slots.withLock { s in
            s.seq += 1
            // Threads come and go (FFmpeg's workers): keep the table small.
            if s.byThread.count >= 256, s.byThread[key] == nil { s.byThread.removeAll() }
            s.byThread[key] = Line(seq: s.seq, text: line)
            s.latest = Line(seq: s.seq, text: line)
        }
    }

    static func takeLast() -> String? {
        _ = install
        let key = thread
        return slots.withLock { s in
            if let own = s.byThread.removeValue(forKey: key) {
                if s.latest?.seq == own.seq { s.latest = nil }
                return own.text
            }
            guard s.active <= 1, let latest = s.latest else { return nil }
            s.latest = nil
            return latest.text
        }
    }

    private static func handle(_ avcl: UnsafeMutableRawPointer?, _ level: Int32, _ fmt: UnsafePointer<CChar>?, _ args: CVaListPointer?) {
        // echoLevel is written once, before the callback is installed; reads need no lock.
        guard level <= AV_LOG_WARNING || level <= echoLevel, let fmt, let args else { return }
        var buf = [CChar](repeating: 0, count: 512)
        var prefix: Int32 = 1
        av_log_format_line2(avcl, level, fmt, args, &buf, Int32(buf.count), &prefix)
        var line = withoutAddresses(String(cChars: buf))
        while line.hasSuffix("\n") || line.hasSuffix("\r") { line.removeLast() }
        if level <= echoLevel {
            // write(2), not FileHandle: a closed stderr must not trap inside FFmpeg's callback.
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
        if level <= AV_LOG_WARNING, !line.isEmpty { record(line) }
        if level <= AV_LOG_WARNING, let avcl, !line.isEmpty {
            watched.withLock { w in
                let key = UInt(bitPattern: avcl)
                if let entry = w[key], level <= entry.level, entry.lines.count < 8 { w[key]!.lines.append(line) }
            }
        }
    }
}

extension FFmpegLog {
    /// `[matroska,webm @ 0x5562…] File ended prematurely` → `[matroska,webm] File ended
    /// prematurely`: the context's address means nothing to a reader and makes messages differ
    /// from run to run.
    static func withoutAddresses(_ line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let at = rest.range(of: " @ 0x") {
            out += rest[..<at.lowerBound]
            var tail = rest[at.upperBound...]
            let hex = tail.prefix { $0.isHexDigit }
            if !hex.isEmpty, tail.dropFirst(hex.count).first == "]" {
                tail = tail.dropFirst(hex.count)
            } else {
                out += rest[at]
            }
            rest = tail
        }
        return out + rest
    }
}

extension String {
    /// From a NUL-terminated C buffer.
    init(cChars buf: [CChar]) {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
