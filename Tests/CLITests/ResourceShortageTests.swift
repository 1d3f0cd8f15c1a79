import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Runs reencode as a user of its own with at most `tasks` processes and threads (RLIMIT_NPROC,
/// `ulimit -u`, as a container's pid limit does): the limit counts that user's tasks only, and
/// binds only a user other than root, so the run takes a uid nobody else uses (setpriv). Nil with
/// the reason printed where that cannot be done (not root).
private func withTaskLimit(_ tasks: Int, _ args: [String], cwd: String, uid: Int = 200_000 + Int.random(in: 0..<100_000)) throws -> Binary.Result? {
    guard getuid() == 0 else {
        print("ResourceShortageTests skipped: running as another user with a task limit needs root (this is uid \(getuid()))")
        return nil
    }
    return try Binary.run([], timeLimit: 120, cwd: cwd,
                          shell: "exec setpriv --reuid=\(uid) --regid=\(uid) --clear-groups prlimit --nproc=\(tasks) \"$0\" "
                              + args.map { "'\($0)'" }.joined(separator: " ") + "; :")
}

/// A folder anyone may write in (the limited user converts into it).
private func openFolder() -> Scratch {
    let dir = Scratch()
    chmod(dir.path, 0o777)
    return dir
}

/// x264 told to start 4 worker threads, whatever this machine's cores: its opening needs threads.
private let threadedRecipe = """
    recipe: 1
    output: { path: "{stem}-t.mp4" }
    reader: { outputs: { v: { track: video } } }
    writer: { inputs: [ { source: v, settings: { base: h264-960x540, codec-options: { preset: ultrafast, threads: 4 } } } ] }
    """

@Suite("A shortage of the system's (threads, open files) is 75 'try again later' naming the errno, never the recipe's or the file's", .serialized)
struct ResourceShortageTests {
    @Test("validate: x264 cannot start its threads → 75 and EAGAIN, not 65 'invalid recipe'")
    func encoderOpen() throws {
        let dir = openFolder()
        try threadedRecipe.write(toFile: dir.file("t.yaml"), atomically: true, encoding: .utf8)
        chmod(dir.file("t.yaml"), 0o644)
        guard let r = try withTaskLimit(2, ["validate", dir.file("t.yaml")], cwd: dir.path) else { return }
        #expect(r.status == 75, "\(r.status) \(r.stderr)")
        // The recipe's file, not a line of it: nothing in the recipe is wrong.
        #expect(r.stderr == "error: \(dir.file("t.yaml")): cannot open the libx264 encoder: the system is short of threads or processes "
                + "(EAGAIN: Resource temporarily unavailable); try again later\n", "\(r.stderr)")
    }

    @Test("run and plan: the decoder or encoder cannot start its threads → 75 and EAGAIN, not 1 or 65, nothing written", arguments: [2, 3])
    func decoderOpen(tasks: Int) throws {
        let dir = openFolder()
        try F.clip(dir.file("s.mp4"), seconds: 1, width: 320, height: 240)
        try threadedRecipe.write(toFile: dir.file("t.yaml"), atomically: true, encoding: .utf8)
        for f in ["s.mp4", "t.yaml"] { chmod(dir.file(f), 0o644) }
        for args in [["plan", dir.file("t.yaml"), "-i", dir.file("s.mp4")], ["run", dir.file("t.yaml"), "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4")]] {
            guard let r = try withTaskLimit(tasks, args, cwd: dir.path) else { return }
            #expect(r.status == 75, "\(args[0]) with \(tasks) tasks: \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(": the system is short of threads or processes (EAGAIN: Resource temporarily unavailable); try again later"),
                    "\(args[0]) with \(tasks) tasks: \(r.stderr)")
            #expect(r.stderr.contains("cannot open the h264 decoder") || r.stderr.contains("cannot open the libx264 encoder"), "\(r.stderr)")
        }
        #expect(dir.contents == ["s.mp4", "t.yaml"])
    }

    @Test("run under every open-file limit from 10 to 60: done, or 75/74 naming 'Too many open files' — never 66, 73 or 1, nothing left")
    func openFiles() throws {
        let dir = Scratch()
        try F.clip(dir.file("s.mp4"), seconds: 1)
        for files in stride(from: 10, through: 60, by: 2) {
            let r = try Binary.run(["run", F.recipe, "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4"), "--progress", "none", "--quiet"],
                                   timeLimit: 120, shell: "ulimit -n \(files)")
            #expect([0, 74, 75].contains(r.status), "ulimit -n \(files): \(r.status) \(r.stderr)")
            if r.status != 0 { #expect(r.stderr.contains("Too many open files"), "ulimit -n \(files): \(r.stderr)") }
            #expect(dir.contents == (r.status == 0 ? ["o.mp4", "s.mp4"] : ["s.mp4"]), "ulimit -n \(files): \(dir.contents)")
            try? FileManager.default.removeItem(atPath: dir.file("o.mp4"))
        }
    }

    @Test("batch: a file the system had no threads for is postponed (75, no attempt spent), and converted once there are")
    func batchPostpones() throws {
        let dir = openFolder()
        try F.folder(dir.file("in"), ["a.mp4"])
        try threadedRecipe.write(toFile: dir.file("t.yaml"), atomically: true, encoding: .utf8)
        for p in ["in", "in/a.mp4", "t.yaml"] { chmod(dir.file(p), p == "in" ? 0o777 : 0o644) }
        let args = ["batch", dir.file("t.yaml"), "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--max-attempts", "1",
                    "--retry-after", "0", "--jobs", "1"]
        // Twice under the limit (one user: its files in out/.reencode are its own), with room for
        // the batch's own threads: with one attempt allowed, a counted failure would give the file up.
        let uid = 200_000 + Int.random(in: 0..<100_000)
        for round in 1...2 {
            guard let r = try withTaskLimit(3, args, cwd: dir.path, uid: uid) else { return }
            #expect(r.status == 75, "round \(round): \(r.status) \(r.stdout) \(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("converted 0, failed 0, postponed 1 (the system is short of resources: no attempt spent, the next run tries again)") == true,
                    "round \(round): \(r.stdout)")
            #expect(lines.dropFirst().first?.hasPrefix("  postponed: a.mp4 (exit 75): ") == true && r.stdout.contains("(EAGAIN: Resource temporarily unavailable)"),
                    "round \(round): \(r.stdout)")
        }
        let ledger = F.ledger(dir.file("out"))
        #expect(ledger.filter { $0.status == .postponed }.count == 2 && ledger.allSatisfy { $0.status != .failed }, "\(ledger.map(\.status))")
        #expect(ledger.filter { $0.status == .postponed }.allSatisfy { $0.exitCode == 75 && $0.error?.contains("EAGAIN") == true })
        // Threads to spare now: converted, not given up.
        let r = try Binary.run(args + ["--json"], timeLimit: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(F.json(r.stdout), "\(r.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"] && (o["givenUp"] as? [String])?.isEmpty == true, "\(o)")
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source) == ["a.mp4"])
    }
}
