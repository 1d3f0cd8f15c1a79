import Foundation
import Pipeline
import Recipe
import Testing

/// Helpers for the batch reliability tests (BatchReliabilityTests, SlurmTests).
enum BatchFixture {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let recipe = repo.appendingPathComponent("recipes/proxy-540p.yaml").path

    /// A frame-stamped clip of `seconds` at 30 fps with audio (the container from the extension).
    static func clip(_ path: String, seconds: Int = 1, width: Int = 160, height: Int = 120) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        for f in 0..<(30 * seconds) {
            try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(f)) { TestPattern.draw(index: f, into: $0) }
        }
        try s.appendAudio(count: 48000 * seconds) { _, n in Float(sin(Double(n) * 0.05)) * 0.2 }
        try s.finish()
    }

    /// Clips at the given relative paths, settled in the past.
    static func folder(_ dir: String, _ names: [String], seconds: Int = 1) throws {
        for n in names { try clip(dir + "/" + n, seconds: seconds) }
        settle(dir)
    }

    /// Every file (not folders, not links' targets) under `dir` older than any settle time used here.
    static func settle(_ dir: String) {
        let old = Date().addingTimeInterval(-600)
        let e = FileManager.default.enumerator(atPath: dir)!
        while let rel = e.nextObject() as? String {
            var st = stat()
            guard lstat(dir + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            try? FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + rel)
        }
    }

    static func ledger(_ out: String) -> [LedgerEntry] { Ledger(folder: out + "/.reencode").entries() }

    /// The journal `host` appends to.
    static func journal(_ out: String, host: String) -> String { Ledger(folder: out + "/.reencode").journalPath(host: host) }

    /// Every journal of the ledger (one per host, and `ledger.jsonl` of older versions).
    static func journals(_ out: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: out + "/.reencode")) ?? []
        return names.filter { $0.hasPrefix("ledger") && $0.hasSuffix(".jsonl") }.sorted().map { out + "/.reencode/" + $0 }
    }

    /// Moves every entry's `stored` time (the storage's clock) `seconds` into the past: as if
    /// the ledger had been written that long ago, without waiting.
    static func ageLedger(_ out: String, by seconds: Double) throws {
        for path in journals(out) { try age(path, by: seconds) }
    }

    private static func age(_ path: String, by seconds: Double) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard var o = json(String(line)), let stored = o["stored"] as? Double else { return String(line) }
            o["stored"] = stored - seconds
            let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? String(line)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// Frame stamps of an output's video (nil frames unreadable).
    static func frames(_ output: String) throws -> [Int?] { try SampleReaderStamps.read(output) }

    /// Runs a command that starts daemons (Slurm's, sshd, sshfs) to its end. Its exit status
    /// comes back through a file written before the shell exits, not from waiting on the process:
    /// the daemons it starts are reparented to this test process when it is a subreaper, and
    /// Foundation's Process was seen never to report the shell's exit then.
    static func daemonShell(_ args: [String], environment: [String: String] = [:]) throws -> Binary.Result {
        let statusFile = NSTemporaryDirectory() + "daemon-status-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(statusFile) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", "\"$@\"; echo $? > \(statusFile)", "run"] + args
        var env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        env["PATH"] = (env["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // EOF on both pipes: the shell has exited (the daemons write to their own logs).
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        let status = (try? String(contentsOfFile: statusFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? -1
        return Binary.Result(status: status, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Everything under `dir` with size and mtime: to compare a folder before and after.
    static func snapshot(_ dir: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            var st = stat()
            lstat(dir + "/" + rel, &st)
            out.append("\(rel) \(st.st_mode) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        }
        return out.sorted()
    }
}
