import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Slurm's environment, a crash between output and ledger, folders shared by runs, a re-stat
/// source, and --dry-run's refusals (issue 10's review).
@Suite("reencode batch: edge cases", .serialized)
struct BatchEdgeCaseTests {
    func batch(_ dir: Scratch, _ extra: [String] = [], host: String = "host-a", env: [String: String] = [:]) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "2"] + extra,
                       timeLimit: 120, environment: env.merging(["REENCODE_HOSTNAME": host]) { a, _ in a })
    }

    // MARK: Slurm's array variables

    func slurm(_ dir: Scratch, id: String, count: String, min: String = "0", step: String? = nil) throws -> Binary.Result {
        var env = ["SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MIN": min]
        env["SLURM_ARRAY_TASK_STEP"] = step ?? "1"
        return try batch(dir, ["--dry-run", "--json"], env: env)
    }

    @Test("Slurm variables out of Int's range are a usage error (64), never a trap")
    func slurmOverflow() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let r = try slurm(dir, id: "1", count: "2", min: "-9223372036854775807")
        #expect(r.status == 64, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_ID 1 minus SLURM_ARRAY_TASK_MIN -9223372036854775807 is out of range\n"), "\(r.stderr)")
        let big = try slurm(dir, id: "9223372036854775807", count: "2", min: "-1")
        #expect(big.status == 64, "\(big.stderr)")
        let word = try slurm(dir, id: "1", count: "two")
        #expect(word.status == 64)
        #expect(word.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_COUNT must be a whole number, not 'two'\n"), "\(word.stderr)")
    }

    @Test("a stepped Slurm array (--array=10-16:2) gives slices 0…3; an ID off the step is a usage error")
    func slurmStep() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), (0..<12).map { "f\($0).mp4" })
        var planned: [String] = []
        for (slice, id) in [10, 12, 14, 16].enumerated() {
            let r = try slurm(dir, id: "\(id)", count: "4", min: "10", step: "2")
            #expect(r.status == 0, "task \(id): \(r.stderr)")
            let o = try #require(F.json(r.stdout), "\(r.stdout)")
            #expect(o["slice"] as? String == "\(slice)/4")
            planned += o["planned"] as? [String] ?? []
        }
        #expect(planned.sorted() == (0..<12).map { "f\($0).mp4" }.sorted(), "each file in exactly one slice")
        let off = try slurm(dir, id: "13", count: "4", min: "10", step: "2")
        #expect(off.status == 64)
        #expect(off.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_ID 13 is not SLURM_ARRAY_TASK_MIN 10 plus a multiple of SLURM_ARRAY_TASK_STEP 2\n"), "\(off.stderr)")
        // Step 1 (Slurm sets it on every array) is the plain case.
        let plain = try slurm(dir, id: "3", count: "4", min: "0", step: "1")
        #expect(F.json(plain.stdout)?["slice"] as? String == "3/4")
    }
}

extension BatchEdgeCaseTests {
    // MARK: A crash between the output's rename and its `done` line

    @Test("an output whose conversion began (a started line) but has no done line is converted again and replaced, exit 0")
    func crashBeforeDoneLine() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4"])
        #expect(try batch(dir).status == 0)
        // The crash window: the output is in place, the ledger has the `started` line but no `done`.
        let ledgerPath = F.journal(dir.file("out"), host: "host-a")
        let lines = try String(contentsOfFile: ledgerPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let aDone = try #require(lines.first { $0.contains("\"source\":\"a.mp4\"") && $0.contains("\"status\":\"done\"") })
        let bLines = lines.filter { $0.contains("\"source\":\"b.mp4\"") }
        let started = aDone.replacingOccurrences(of: "\"status\":\"done\"", with: "\"status\":\"started\"")
        try ((bLines + [started]).joined(separator: "\n") + "\n").write(toFile: ledgerPath, atomically: true, encoding: .utf8)
        var before = stat()
        stat(dir.file("out/a-proxy.mp4"), &before)

        let r = try batch(dir, ["--json"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let o = try #require(F.json(r.stdout), "\(r.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"])
        #expect(o["alreadyDone"] as? Int == 1)
        var after = stat()
        stat(dir.file("out/a-proxy.mp4"), &after)
        #expect(after.st_ino != before.st_ino, "the output was replaced by the new conversion")
        #expect(try F.frames(dir.file("out/a-proxy.mp4")).count == 30)
        let mine = F.ledger(dir.file("out")).filter { $0.source == "a.mp4" }
        #expect(mine.map { "\($0.status.rawValue) \($0.attempt) \($0.output ?? "-")" }
                == ["started 1 a-proxy.mp4", "started 1 a-proxy.mp4", "done 1 a-proxy.mp4"])
        // And now it is done: a rerun leaves it.
        let again = try batch(dir, ["--json"])
        #expect(F.json(again.stdout)?["alreadyDone"] as? Int == 2, "\(again.stdout)")
    }
}

extension BatchEdgeCaseTests {
    // MARK: A source whose inode or ctime changed

    @Test("after a chmod the fingerprint is read once: its match is recorded with the new ctime, later runs stat only")
    func chmodRecordedOnce() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        #expect(try batch(dir).status == 0)
        let first = F.ledger(dir.file("out")).filter { $0.status == .done }
        #expect(first.count == 2)
        Thread.sleep(forTimeInterval: 0.02)  // a ctime the recorded one cannot equal
        for f in ["a.mp4", "sub/b.mp4"] { chmod(dir.file("in/" + f), 0o600) }
        for run in 1...3 {
            let r = try batch(dir, ["--json"])
            #expect(r.status == 0 && F.json(r.stdout)?["alreadyDone"] as? Int == 2, "run \(run): \(r.stdout)")
            let done = F.ledger(dir.file("out")).filter { $0.status == .done }
            // One new line per file, on the first run after the chmod only.
            #expect(done.count == 4, "run \(run): \(done.map { "\($0.source) \($0.ctime ?? 0)" })")
        }
        let done = F.ledger(dir.file("out")).filter { $0.status == .done }
        for f in ["a.mp4", "sub/b.mp4"] {
            let mine = done.filter { $0.source == f }
            let (old, new) = (try #require(mine.first), try #require(mine.last))
            var st = stat()
            stat(dir.file("in/" + f), &st)
            let ctime = Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec / 1000) / 1e6
            #expect(abs((new.ctime ?? 0) - ctime) < 1e-5, "the new line carries the ctime after the chmod")
            #expect(new.ctime != old.ctime)
            #expect(new.inode == old.inode && new.fingerprint == old.fingerprint && new.attempt == old.attempt && new.output == old.output)
            #expect(new.seconds == nil)
        }
        // A dry run records nothing.
        chmod(dir.file("in/a.mp4"), 0o644)
        let before = F.snapshot(dir.file("out"))
        #expect(try batch(dir, ["--dry-run"]).status == 0)
        #expect(F.snapshot(dir.file("out")) == before)
    }
}

extension BatchEdgeCaseTests {
    // MARK: --dry-run and refusals

    @Test("--dry-run lists the files a run would refuse apart and counts only real conversions")
    func dryRunRefusals() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "a.mkv", "c.mp4", "d.mp4"])
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        try "mine".write(toFile: dir.file("out/c-proxy.mp4"), atomically: true, encoding: .utf8)
        let r = try batch(dir, ["--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.dropLast()) == [
            "would convert a.mkv",
            "would convert d.mp4",
            "would refuse a.mp4: its output a-proxy.mp4 is also the output of a.mkv: not converted (rename one of them, or put {ext} in the recipe's output name)",
            "would refuse c.mp4: its output c-proxy.mp4 already exists and was not made by reencode batch for this source: left alone, not converted (move it away to convert)",
        ], "\(r.stdout)")
        #expect(lines.last?.hasPrefix("would convert 2, would refuse 2, already done 0 — ") == true, "\(r.stdout)")
        let json = try #require(F.json(try batch(dir, ["--dry-run", "--json"]).stdout))
        #expect(json["planned"] as? [String] == ["a.mkv", "d.mp4"])
        #expect((json["refused"] as? [[String: String]])?.map { $0["path"] ?? "" } == ["a.mp4", "c.mp4"])
        // What the real run then does: converts the two, refuses the two with 73.
        let real = try #require(F.json(try batch(dir, ["--json"]).stdout))
        #expect(Set(real["converted"] as? [String] ?? []) == ["a.mkv", "d.mp4"])
        #expect(Set((real["failed"] as? [[String: Any]] ?? []).compactMap { $0["source"] as? String }) == ["a.mp4", "c.mp4"])
        // Once a.mkv's output is recorded, a later dry run still refuses a.mp4 (by the ledger's owner).
        let again = try batch(dir, ["--dry-run", "--retry-after", "0"])
        #expect(again.stdout.hasPrefix("would refuse a.mp4: its output a-proxy.mp4 is also the output of a.mkv"), "\(again.stdout)")
        #expect(again.stdout.contains("\nwould convert 0, would refuse 2, already done 2 — "), "\(again.stdout)")
    }
}

extension BatchEdgeCaseTests {
    // MARK: Output folders shared with other runs

    @Test("a run leaves a folder it made when another run's live claim converts into it; without one it removes it", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func madeFolderKeptForOtherRun() throws {
        let dir = Scratch()
        try F.clip(dir.file("in/day1/long.mp4"), seconds: 6, width: 640, height: 360)
        F.settle(dir.file("in"))
        // Another host is converting day1/other.mp4 (its claim is live): out/day1 is its folder too.
        try FileManager.default.createDirectory(atPath: dir.file("out/.reencode/claims"), withIntermediateDirectories: true)
        let claim = #"{"host":"host-b","pid":4242,"token":"t","started":"2026-11-23T06:00:00Z","source":"day1/other.mp4"}"#
        try claim.write(toFile: dir.file("out/.reencode/claims/other.claim"), atomically: true, encoding: .utf8)
        // A failure mid-file (a 16 KiB file-size limit) in a folder this run made.
        let args = ["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out")]
        let failed = try Binary.run(args, timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"], shell: "ulimit -f 16")
        #expect(failed.status == 1, "\(failed.stdout) \(failed.stderr)")
        #expect(F.ledger(dir.file("out")).last?.exitCode == 74)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out/day1")) == [], "out/day1 kept, empty")
        // Once the other run is done (its claim gone), the next failing run removes the folder again.
        try FileManager.default.removeItem(atPath: dir.file("out/day1"))
        try FileManager.default.removeItem(atPath: dir.file("out/.reencode/claims/other.claim"))
        let alone = try Binary.run(args + ["--retry-after", "0"], timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"], shell: "ulimit -f 16")
        #expect(alone.status == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/day1")))
    }

    @Test("a conversion whose output folder another run removed meanwhile makes it again and converts; other failures are not retried")
    func folderRemovedMeanwhile() throws {
        let dir = Scratch()
        let folder = dir.file("out/day1")
        let output = folder + "/a.mp4"
        func make() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try make()
        // The interleaving: our folder was there, another run removed it as empty, our temp file's open fails.
        var calls = 0
        let result = try SharedFolder.retryingIfRemoved(output: output, make: make) { () throws -> String in
            calls += 1
            if calls == 1 {
                rmdir(folder)
                throw MediaError(.cannotCreateOutput, "cannot create the output: No such file or directory", file: output)
            }
            #expect(FileManager.default.fileExists(atPath: folder))
            return "converted"
        }
        #expect(result == "converted" && calls == 2)
        // The folder is there: the error is the conversion's own, said as it is, after one try.
        calls = 0
        #expect(throws: MediaError(.cannotCreateOutput, "the folder is not writable", file: output)) {
            try SharedFolder.retryingIfRemoved(output: output, make: make) { () throws -> String in
                calls += 1
                throw MediaError(.cannotCreateOutput, "the folder is not writable", file: output)
            }
        }
        #expect(calls == 1)
        // Removed twice in a row: the second failure stands (no endless loop).
        calls = 0
        #expect(throws: MediaError.self) {
            try SharedFolder.retryingIfRemoved(output: output, make: make) { () throws -> String in
                calls += 1
                rmdir(folder)
                throw MediaError(.cannotCreateOutput, "cannot create the output: No such file or directory", file: output)
            }
        }
        #expect(calls == 2)
        // Another kind of error with the folder gone is not retried either.
        calls = 0
        #expect(throws: MediaError.self) {
            try SharedFolder.retryingIfRemoved(output: output, make: make) { () throws -> String in
                calls += 1
                throw MediaError(.io, "No space left on device", file: output)
            }
        }
        #expect(calls == 1)
    }
}
