import Foundation
import Pipeline
import Testing

/// A source and a recipe slow enough (x264 veryslow) that a run is still converting when a test
/// interferes with it a moment after the start.
private struct SlowRun {
    let dir = Scratch()
    var source: String { dir.file("long.mp4") }
    var recipe: String { dir.file("slow.yaml") }

    init(seconds: Int = 3) throws {
        try makeShortSource(dir.file("long.mp4"), seconds: seconds, width: 640, height: 360)
        try """
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            writer:
              inputs:
                - { source: v, settings: { codec: h264, codec-options: { preset: veryslow } } }
                - { source: a }
            """.write(toFile: dir.file("slow.yaml"), atomically: true, encoding: .utf8)
    }

    var untouched: [String] { ["long.mp4", "slow.yaml"] }
}

private func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// The lines that are not progress: exactly one is wanted, the last.
private func finalEvents(_ text: String) -> [[String: Any]] {
    jsonLines(text).filter { $0["type"] as? String != "progress" }
}

/// This host's name as temp files carry it (docs/engine.md): anything but letters, digits and
/// '.' becomes '_'.
private let hostTag: String = {
    var b = [CChar](repeating: 0, count: 256)
    _ = gethostname(&b, 255)
    let name = String(decoding: b.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let t = String(name.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") ? $0 : "_" })
    return t.isEmpty ? "localhost" : t
}()

@Suite("reencode run: signals, closed and full streams, stale temp files, final JSON events", .serialized)
struct ProcessRobustnessTests {
    @Test("every catchable termination signal cancels cleanly: exit 128+n, message, one final JSON line, nothing left",
          arguments: [(SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
                      (SIGVTALRM, "SIGVTALRM"), (SIGXCPU, "SIGXCPU"), (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGPIPE, "SIGPIPE")])
    func signals(sig: Int32, name: String) throws {
        let s = try SlowRun()
        let r = try UnderWay.run(["run", s.recipe, "-i", s.source, "-o", s.dir.file("out/o.mp4"), "--progress", "json"],
                                 signal: sig, tempUnder: s.dir.file("out"))
        #expect(r.status == 128 + sig, "\(name): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasSuffix("cancelled: no output written (\(name))\n"), "\(name): \(r.stderr)")
        let finals = finalEvents(r.stdout)
        #expect(finals.count == 1 && jsonLines(r.stdout).count == r.stdout.split(separator: "\n").count, "\(name): \(r.stdout)")
        let last = try #require(jsonLines(r.stdout).last)
        #expect(last["type"] as? String == "cancelled" && last["signal"] as? String == name && last["exitCode"] as? Int == Int(128 + sig))
        #expect(s.dir.contents == s.untouched, "\(name) left \(s.dir.contents)")
    }

    @Test("SIGPROF from outside is ignored (no profiler listens): the run finishes, exit 0, the output whole", arguments: [SIGPROF])
    func ignoredSignals(sig: Int32) throws {
        let s = try SlowRun(seconds: 1)
        let r = try UnderWay.run(["run", s.recipe, "-i", s.source, "-o", s.dir.file("o.mp4"), "--progress", "json"], signal: sig, tempUnder: s.dir.path, timeLimit: 300)
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        #expect(jsonLines(r.stdout).last?["type"] as? String == "done")
        #expect(s.dir.contents == (s.untouched + ["o.mp4"]).sorted())
    }

    @Test("a real-time signal is a termination signal too")
    func realtimeSignal() throws {
        let s = try SlowRun()
        let sig = Int32(40)
        let r = try UnderWay.run(["run", s.recipe, "-i", s.source, "-o", s.dir.file("o.mp4")], signal: sig, tempUnder: s.dir.path)
        #expect(r.status == 128 + sig, "\(r.status) \(r.stderr)")
        #expect(r.stderr.hasSuffix("cancelled: no output written (SIGRTMIN+\(sig - __libc_current_sigrtmin()))\n"), "\(r.stderr)")
        #expect(s.dir.contents == s.untouched)
    }

    @Test("stdout closed or full during --progress json: the run stops cleanly, 74, the message on stderr, nothing left")
    func lostStdout() throws {
        for (shell, why) in [("exec >&-", "Bad file descriptor"), ("exec >/dev/full", "No space left on device")] {
            let s = try SlowRun()
            let r = try Binary.run(["run", s.recipe, "-i", s.source, "-o", s.dir.file("o.mp4"), "--progress", "json"], timeLimit: 120, shell: shell)
            #expect(r.status == 74, "\(shell): \(r.status) \(r.stderr)")
            #expect(r.stderr == "error: stdout: \(why): the reader is gone; stopped, no output written\n", "\(shell)")
            #expect(!r.stderr.contains("Fatal error"))
            #expect(s.dir.contents == s.untouched, "\(shell) left \(s.dir.contents)")
        }
    }

    @Test("stderr closed: a run still converts, and its JSON ends with done; stderr full under a bar: 74, nothing left")
    func lostStderr() throws {
        let s = try SlowRun()
        let quick = s.dir.file("q.mp4")
        try makeShortSource(quick)
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let ok = try Binary.run(["run", recipe, "-i", quick, "-o", s.dir.file("o.mp4"), "--progress", "json"], timeLimit: 120, shell: "exec 2>&-")
        #expect(ok.status == 0)
        #expect(finalEvents(ok.stdout).count == 1 && jsonLines(ok.stdout).last?["type"] as? String == "done", "\(ok.stdout)")
        #expect(s.dir.contents == (s.untouched + ["o.mp4", "q.mp4"]).sorted())

        let full = try Binary.run(["run", s.recipe, "-i", s.source, "-o", s.dir.file("p.mp4"), "--progress", "bar"], timeLimit: 120, shell: "exec 2>/dev/full")
        #expect(full.status == 74, "\(full.status)")
        #expect(full.stdout == "")
        #expect(s.dir.contents == (s.untouched + ["o.mp4", "q.mp4"]).sorted(), "left \(s.dir.contents)")

    }

    @Test("the reader of stdout goes away (| head -1): exit 141 as SIGPIPE would, but cleanly, nothing left")
    func brokenPipe() throws {
        let s = try SlowRun()
        let (p, out, err) = try Binary.start(["run", s.recipe, "-i", s.source, "-o", s.dir.file("o.mp4"), "--progress", "json"])
        let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }
        // Read the first line, then close our end as `head -1` does.
        var first = Data()
        let reader = out.fileHandleForReading
        while !first.contains(UInt8(ascii: "\n")) {
            let d = reader.availableData
            if d.isEmpty { break }
            first += d
        }
        try reader.close()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let stderr = String(decoding: e, as: UTF8.self)
        #expect(p.terminationReason == .exit, "killed by a signal: \(p.terminationStatus)")
        #expect(p.terminationStatus == 141, "\(stderr)")
        #expect(stderr == "error: stdout: Broken pipe: the reader is gone; stopped, no output written\n")
        #expect(jsonLines(String(decoding: first, as: UTF8.self)).first?["type"] as? String == "progress")
        #expect(s.dir.contents == s.untouched, "left \(s.dir.contents)")
    }

    @Test("--progress json ends with one 'failed' line carrying the message and exit code, for every kind of failure", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func failedEvent() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        try "recipe: 1\nreader: { outputs: { v: { track: video } } }\nwriter: { inputs: [ { source: w } ] }\n"
            .write(toFile: dir.file("bad.yaml"), atomically: true, encoding: .utf8)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("exists.mp4")))
        let cases: [([String], Int32, String)] = [
            (["run", recipe, "-i", dir.file("absent.mp4"), "-o", dir.file("o.mp4")], 66, "error: \(dir.file("absent.mp4")): no such file"),
            (["run", dir.file("bad.yaml"), "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4")], 65, "\(dir.file("bad.yaml")):2:22: error: reader output 'v' is not used"),
            (["run", recipe, "-i", dir.file("s.mp4"), "-o", dir.file("exists.mp4")], 73, "error: \(dir.file("exists.mp4")): already exists (use --overwrite to replace it)"),
            (["run", recipe, "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4")], 74, "error: \(dir.file("o.mp4")): "),
        ]
        for (i, (args, code, message)) in cases.enumerated() {
            let r = try Binary.run(args + ["--progress", "json"], timeLimit: 60, shell: i == 3 ? "ulimit -f 2" : nil)
            #expect(r.status == code, "\(args): \(r.stderr)")
            let finals = finalEvents(r.stdout)
            #expect(finals.count == 1, "\(r.stdout)")
            let last = try #require(jsonLines(r.stdout).last)
            #expect(last["type"] as? String == "failed" && last["exitCode"] as? Int == Int(code), "\(last)")
            let m = last["message"] as? String ?? ""
            #expect(m.hasPrefix(message), "\(m)")
            #expect(r.stderr.hasPrefix(m), "the message is what stderr said: \(r.stderr)")
        }
        #expect(dir.contents == ["bad.yaml", "exists.mp4", "s.mp4"])
    }

    @Test("run removes its own target's temp files left by dead processes of this host, and nobody else's")
    func staleTempFiles() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier
        let live = getpid()
        let stale = ".o.mp4.reencode-tmp-\(hostTag)-\(dead)-abc"
        let kept = [
            ".o.mp4.reencode-tmp-\(hostTag)-\(live)-def",        // a live process's work
            ".o.mp4.reencode-tmp-other.host-\(dead)-ghi",         // another host's: its pid means nothing here
            ".o.mp4.reencode-tmp-\(dead)-jkl",                    // no host: cannot tell
            ".p.mp4.reencode-tmp-\(hostTag)-\(dead)-mno",         // another target's
        ]
        for n in [stale] + kept { try Data("partial".utf8).write(to: URL(fileURLWithPath: dir.file(n))) }
        let r = try Binary.run(["run", recipe, "-i", "s.mp4", "-o", "o.mp4", "--quiet"], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == (kept + ["o.mp4", "s.mp4"]).sorted())
    }

    @Test("commands whose product is what they print fail with 74 when stdout cannot take it; their own failures keep their code")
    func printingCommands() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        for (shell, why) in [("exec >&-", "Bad file descriptor"), ("exec >/dev/full", "No space left on device")] {
            for args in [["validate", recipe], ["plan", recipe, "-i", dir.file("s.mp4"), "--json"], ["inspect", dir.file("s.mp4")],
                         ["presets", "--json"], ["--version"], ["help", "run"]] {
                let r = try Binary.run(args, timeLimit: 30, shell: shell)
                #expect(r.status == 74, "\(shell) \(args): \(r.status) \(r.stderr)")
                #expect(r.stderr == "error: stdout: \(why): the output was not written\n", "\(shell) \(args)")
            }
            let missing = try Binary.run(["validate", dir.file("none.yaml")], timeLimit: 30, shell: shell)
            #expect(missing.status == 66)
        }
        #expect(dir.contents == ["s.mp4"])
    }

    @Test("a source that states no duration: every --progress json line is still JSON (duration null), ending in done")
    func unknownDuration() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        #expect(try Binary.run(["run", recipe, "-i", dir.file("s.mp4"), "-o", dir.file("c.mkv"), "--quiet"], timeLimit: 60).status == 0)
        // Matroska's Duration element (ID 0x4489, an 8-byte float) becomes a Void element of the
        // same length: the file then states no duration.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("c.mkv"))))
        let at = try #require((0..<(bytes.count - 11)).first { bytes[$0] == 0x44 && bytes[$0 + 1] == 0x89 && bytes[$0 + 2] == 0x88 })
        bytes.replaceSubrange(at..<(at + 11), with: [0xEC, 0x89] + [UInt8](repeating: 0, count: 9))
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("n.mkv")))
        let r = try Binary.run(["run", recipe, "-i", dir.file("n.mkv"), "-o", dir.file("o.mp4"), "--progress", "json"], timeLimit: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(!lines.contains("{}"), "\(r.stdout)")
        let objects = jsonLines(r.stdout)
        #expect(objects.count == lines.count && objects.count >= 2)
        #expect(objects.dropLast().allSatisfy { $0["type"] as? String == "progress" && $0["duration"] is NSNull })
        #expect(objects.last?["type"] as? String == "done" && objects.last?["output"] as? String == dir.file("o.mp4"))
    }
}
