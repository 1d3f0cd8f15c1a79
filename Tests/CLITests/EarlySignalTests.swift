import Foundation
import Testing

/// Runs reencode with `sig` delivered as main's own work begins: at the first pipe2(2), which is
/// the console's wake-up pipe (`Console.claimStandardDescriptors`), main's first system call after
/// the runtime's start-up. Nil where strace cannot run (the reason is printed).
private func signalAtStart(_ sig: Int32, _ args: [String], cwd: String) throws -> (Binary.Result, Process.TerminationReason)? {
    let tool: String
    switch Strace.tool {
    case .success(let t): tool = t
    case .failure(let why): print("EarlySignalTests skipped: \(why.reason)"); return nil
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool, "-o", "/dev/null", "-e", "trace=pipe2", "-e", "inject=pipe2:signal=\(sig):when=1", Binary.path] + args
    p.currentDirectoryURL = URL(fileURLWithPath: cwd)
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
    defer { watchdog.cancel() }
    // strace exits as its tracee did: killed by the same signal, or with its status.
    let r = Binary.finish(p, out, err)
    return (r, p.terminationReason)
}

private let signals: [(Int32, String)] = [(SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGPIPE, "SIGPIPE")]

@Suite("A termination signal as main begins is answered like any other: exit 128+n, its message, the one JSON object", .serialized)
struct EarlySignalTests {
    @Test("batch --json: the batch does not begin, 128+n, one JSON object (cancelled), nothing made", arguments: signals)
    func batch(sig: Int32, name: String) throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: false)
        guard let (r, how) = try signalAtStart(sig, ["batch", BatchFixture.recipe, "--input-dir", "in", "--output-dir", "out", "--json"],
                                                cwd: dir.path) else { return }
        #expect(how == .exit, "\(name): killed by signal \(r.status)")
        #expect(r.status == 128 + sig, "\(name): \(r.status) \(r.stderr)")
        #expect(r.stderr == "cancelled: the batch did not begin (\(name))\n", "\(name)")
        let o = try #require(BatchFixture.json(r.stdout), "\(name): stdout \(r.stdout)")
        #expect(o["status"] as? String == "cancelled" && o["exitCode"] as? Int == Int(128 + sig), "\(name): \(o)")
        #expect(dir.contents == ["in"], "\(name): \(dir.contents)")
    }

    @Test("run --progress json: 128+n, the message, exactly one JSON line (cancelled), nothing written", arguments: signals)
    func run(sig: Int32, name: String) throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 64, height: 48)
        guard let (r, how) = try signalAtStart(sig, ["run", BatchFixture.recipe, "-i", "s.mp4", "-o", "o.mp4", "--progress", "json"],
                                                cwd: dir.path) else { return }
        #expect(how == .exit, "\(name): killed by signal \(r.status)")
        #expect(r.status == 128 + sig, "\(name): \(r.status) \(r.stderr)")
        #expect(r.stderr == "cancelled: no output written (\(name))\n", "\(name)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(name): \(r.stdout)")
        #expect(line["type"] as? String == "cancelled" && line["signal"] as? String == name && line["exitCode"] as? Int == Int(128 + sig))
        #expect(dir.contents == ["s.mp4"], "\(name): \(dir.contents)")
    }

    @Test("inspect, plan, validate, presets: 128+n and a message, nothing on stdout", arguments: signals)
    func others(sig: Int32, name: String) throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 64, height: 48)
        for args in [["inspect", "--json", "s.mp4"], ["plan", "--json", BatchFixture.recipe, "-i", "s.mp4"], ["validate", BatchFixture.recipe],
                     ["presets", "--json"]] {
            guard let (r, how) = try signalAtStart(sig, args, cwd: dir.path) else { return }
            #expect(how == .exit, "\(args) \(name): killed by signal \(r.status)")
            #expect(r.status == 128 + sig, "\(args) \(name): \(r.status) \(r.stderr)")
            #expect(r.stderr == "cancelled (\(name))\n" && r.stdout.isEmpty, "\(args) \(name): \(r.stdout) \(r.stderr)")
        }
    }
}
