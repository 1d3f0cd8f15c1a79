import Foundation
import Testing

/// Whether the main thread of `pid` blocks `sig` (/proc/PID/status SigBlk): the stop handling
/// is installed.
private func blocks(_ pid: Int32, _ sig: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
          let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
    return mask & (1 << UInt64(sig - 1)) != 0
}

@Suite("reencode batch: its report is its product; a signal during the setup is answered", .serialized)
struct BatchAnswerTests {
    @Test("batch whose stdout cannot take its report exits 74 (141 for a closed pipe), not 0, and says so on stderr")
    func lostReport() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: false)
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/proxy-540p.yaml").path
        let args = ["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out")]
        for (extra, shell, code, why) in [(["--json"], "exec >/dev/full", 74, "No space left on device"),
                                          (["--verbose"], "exec >/dev/full", 74, "No space left on device"),
                                          (["--json", "--dry-run"], "exec >&-", 74, "Bad file descriptor")] {
            let r = try Binary.run(args + extra, timeLimit: 60, shell: shell)
            #expect(r.status == Int32(code), "\(extra) \(shell): \(r.status) \(r.stderr)")
            #expect(r.stderr == "error: stdout: \(why): the report was not written\n", "\(extra) \(shell)")
        }
        // A closed pipe: 141, as the default SIGPIPE would give.
        let piped = try Binary.run(args + ["--json"], timeLimit: 60, shell: "exec > >(exec true); sleep 0.2")
        #expect(piped.status == 141, "\(piped.status) \(piped.stderr)")
        #expect(piped.stderr == "error: stdout: Broken pipe: the report was not written\n")
    }

    @Test("help fails alike however it is asked for when stdout cannot take it: run --help, batch -h, help run")
    func helpToFullStdout() throws {
        for args in [["run", "--help"], ["batch", "-h"], ["help", "run"], ["validate", "--help"], ["--help"]] {
            let r = try Binary.run(args, timeLimit: 30, shell: "exec >/dev/full")
            #expect(r.status == 74, "\(args): \(r.status)")
            #expect(r.stderr == "error: stdout: No space left on device: the output was not written\n", "\(args)")
        }
    }

    @Test("a signal while the batch reads its recipe: exit 143, one JSON object (cancelled), nothing made on disk")
    func signalDuringSetup() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: false)
        // A large recipe (comments up to near the 1 MiB limit), so reading it takes a while.
        let padding = (0..<30_000).map { "# padding line \($0)\n" }.joined()
        try ("recipe: 1\n" + padding + "reader: { outputs: { v: { track: video } } }\nwriter:\n  inputs:\n    - { source: v }\n")
            .write(toFile: dir.file("big.yaml"), atomically: true, encoding: .utf8)
        let (p, out, err) = try Binary.start(["batch", dir.file("big.yaml"), "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"])
        let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        // Evidence the process listens (SIGTERM blocked on its main thread); then at once.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && p.isRunning && !blocks(p.processIdentifier, SIGTERM) { usleep(200) }
        UnderWay.send(SIGTERM, to: p)
        let r = Binary.finish(p, out, err)
        #expect(p.terminationReason == .exit, "killed by signal \(r.status)")
        #expect(r.status == 143, "\(r.status) \(r.stderr)")
        #expect(r.stderr == "cancelled: the batch did not begin (SIGTERM)\n")
        // Exactly one object: the whole of stdout parses as it.
        let o = try #require(BatchFixture.json(r.stdout), "\(r.stdout)")
        #expect(o["status"] as? String == "cancelled" && o["exitCode"] as? Int == 143, "\(o)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }
}
