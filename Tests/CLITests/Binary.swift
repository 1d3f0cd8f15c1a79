import Foundation

/// The `reencode` executable swift build put beside the test bundle.
enum Binary {
    static let path: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("reencode").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return ".build/debug/reencode"
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs reencode and waits; a run still going after `timeLimit` seconds is killed (a watchdog,
    /// not a wait). To signal a run, use `UnderWay.run`: it waits for evidence the run is under
    /// way, never a fixed delay.
    static func run(_ args: [String], timeLimit: Double? = nil,
                    cwd: String? = nil, environment: [String: String] = [:], shell: String? = nil) throws -> Result {
        let p = Process()
        if let shell {
            // `shell` runs before reencode in the same process (e.g. `ulimit -f 64`).
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = ["-c", shell + "; exec \"$0\" \"$@\"", path] + args
        } else {
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = args
        }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
        if let timeLimit { DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog) }
        defer { watchdog.cancel() }
        return finish(p, out, err)
    }

    /// Starts reencode without waiting; `finish` collects it.
    static func start(_ args: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out, err)
    }

    static func finish(_ p: Process, _ out: Pipe, _ err: Pipe) -> Result {
        // Read before waiting: a full pipe would block the child.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}

final class Scratch {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "reencode-cli-tests/\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}
