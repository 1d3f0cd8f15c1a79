import Foundation
import Pipeline
import Synchronization
import Testing

private typealias F = BatchFixture

@Suite("reencode batch: reliability (issue 10)", .serialized)
struct BatchReliabilityTests {
    func batch(_ dir: Scratch, _ extra: [String] = [], host: String = "host-a", env: [String: String] = [:],
               timeLimit: Double = 120, shell: String? = nil) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "2"] + extra,
                       timeLimit: timeLimit, environment: env.merging(["REENCODE_HOSTNAME": host]) { a, _ in a }, shell: shell)
    }

    // MARK: Outputs

    @Test("two sources with one output name: the first in byte order converts, the other is refused and recorded; never overwritten")
    func collision() throws {
        let dir = Scratch()
        try F.clip(dir.file("in/a.mp4"), seconds: 1)
        try F.clip(dir.file("in/a.mkv"), seconds: 2)
        F.settle(dir.file("in"))
        let r = try batch(dir, ["--json"])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let o = try #require(F.json(r.stdout), "\(r.stdout)")
        // "a.mkv" < "a.mp4" in byte order: a.mkv owns a-proxy.mp4.
        #expect(o["converted"] as? [String] == ["a.mkv"])
        let failed = try #require((o["failed"] as? [[String: Any]])?.first)
        #expect(failed["source"] as? String == "a.mp4")
        #expect(failed["exitCode"] as? Int == 73)
        #expect(failed["error"] as? String == "a.mp4: its output a-proxy.mp4 is also the output of a.mkv: not converted (rename one of them, or put {ext} in the recipe's output name)")
        #expect(try F.frames(dir.file("out/a-proxy.mp4")).count == 60, "the output is a.mkv's (2 s)")
        let entries = F.ledger(dir.file("out"))
        #expect(entries.filter { $0.status == .done }.map(\.source) == ["a.mkv"])
        #expect(entries.filter { $0.status == .failed }.map { "\($0.source) \($0.exitCode ?? 0)" } == ["a.mp4 73"])

        // A colliding source that appears later never takes an existing output, even if it sorts first.
        try F.clip(dir.file("in/b.mp4"), seconds: 1)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: dir.file("in/b.mp4"))
        #expect(try batch(dir, ["--retry-after", "0"]).status == 1)  // a.mp4 is still refused
        var before = stat()
        stat(dir.file("out/b-proxy.mp4"), &before)
        try F.clip(dir.file("in/b.mkv"), seconds: 2)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: dir.file("in/b.mkv"))
        let later = try batch(dir, ["--json", "--retry-after", "0"])
        let lo = try #require(F.json(later.stdout))
        #expect((lo["converted"] as? [String])?.isEmpty == true)
        #expect(Set((lo["failed"] as? [[String: Any]] ?? []).compactMap { $0["source"] as? String }) == ["a.mp4", "b.mkv"])
        var after = stat()
        stat(dir.file("out/b-proxy.mp4"), &after)
        #expect(after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec, "b.mp4's output untouched")
        #expect(try F.frames(dir.file("out/b-proxy.mp4")).count == 30)
        #expect(try F.frames(dir.file("out/a-proxy.mp4")).count == 60)
    }

    @Test("an output path taken by a file the batch did not make is left alone and the source recorded as failed (73)")
    func foreignOutput() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["c.mp4", "d.mp4"])
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        try "mine".write(toFile: dir.file("out/c-proxy.mp4"), atomically: true, encoding: .utf8)
        let r = try batch(dir)
        #expect(r.status == 1)
        #expect(try String(contentsOfFile: dir.file("out/c-proxy.mp4"), encoding: .utf8) == "mine")
        #expect(r.stdout.contains("  failed: c.mp4 (exit 73): c.mp4: its output c-proxy.mp4 already exists and was not made by reencode batch for this source: left alone, not converted (move it away to convert)"), "\(r.stdout)")
        #expect(try F.frames(dir.file("out/d-proxy.mp4")).count == 30)
        // Its own output, after the source changed, is replaced as before.
        try F.clip(dir.file("in/d.mp4"), seconds: 2)
        F.settle(dir.file("in"))
        let again = try batch(dir, ["--json"])
        #expect((F.json(again.stdout)?["converted"] as? [String]) == ["d.mp4"], "\(again.stdout)")
        #expect(try F.frames(dir.file("out/d-proxy.mp4")).count == 60)
    }

    @Test("one-letter relative folders everywhere (input, output with a trailing slash, mirror, --move-done)")
    func oneLetterFolders() throws {
        let dir = Scratch()
        try F.folder(dir.file("i"), ["c.mp4", "a/b/x.mp4"])
        let r = try Binary.run(["batch", F.recipe, "--input-dir", "i", "--output-dir", "o/", "--move-done", "d", "--json"],
                               cwd: dir.path, environment: ["REENCODE_HOSTNAME": "h"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect((F.json(r.stdout)?["converted"] as? [String])?.sorted() == ["a/b/x.mp4", "c.mp4"])
        #expect(try F.frames(dir.file("o/a/b/x-proxy.mp4")).count == 30)
        #expect(FileManager.default.fileExists(atPath: dir.file("d/a/b/x.mp4")) && FileManager.default.fileExists(atPath: dir.file("d/c.mp4")))
    }

    // MARK: Locks

    @Test("four shards at once on one host each convert their slice; every file once")
    func shardsOnOneHost() throws {
        let dir = Scratch()
        let names = (0..<8).map { "clip\($0).mp4" }
        try F.folder(dir.file("in"), names)
        let procs = try (0..<4).map { i in
            try Binary.start(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1",
                              "--shard", "\(i)/4", "--json"], environment: ["REENCODE_HOSTNAME": "node"])
        }
        var converted: [String] = []
        for p in procs {
            let r = Binary.finish(p.0, p.1, p.2)
            #expect(r.status == 0, "\(r.stderr)")
            let o = try #require(F.json(r.stdout), "no JSON: '\(r.stdout)'")
            #expect(o["status"] as? String == "ok")
            converted += o["converted"] as? [String] ?? []
        }
        #expect(converted.sorted() == names)
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source).sorted() == names)
    }

    @Test("an overlapping run of the same slice says it skipped and who holds it (text and JSON)")
    func sameSliceOverlap() throws {
        let dir = Scratch()
        for i in 0..<2 { try F.clip(dir.file("in/long\(i).mp4"), seconds: 1) }
        F.settle(dir.file("in"))
        let args = ["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1", "--shard", "0/1"]
        let first = try Binary.start(args, environment: ["REENCODE_HOSTNAME": "node"])
        let text = try String(contentsOfFile: F.recipe, encoding: .utf8)
        let lock = dir.file("out/.reencode/batch-node-\(FNV1a.hex(text))-shard-0-of-1.lock")
        let deadline = Date().addingTimeInterval(20)
        while (FileManager.default.contents(atPath: lock)?.count ?? 0) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        // Held still while the others try, however fast it would have finished.
        kill(first.0.processIdentifier, SIGSTOP)
        let json = try Binary.run(args + ["--json"], environment: ["REENCODE_HOSTNAME": "node"])
        let said = try Binary.run(args, environment: ["REENCODE_HOSTNAME": "node"])
        kill(first.0.processIdentifier, SIGCONT)
        let r = Binary.finish(first.0, first.1, first.2)
        #expect(r.status == 0)
        #expect(json.status == 0 && said.status == 0)
        let o = try #require(F.json(json.stdout), "'\(json.stdout)'")
        #expect(o["status"] as? String == "skipped")
        #expect(o["slice"] as? String == "0/1")
        let holder = try #require(o["holder"] as? [String: Any])
        #expect(holder["host"] as? String == "node")
        #expect(holder["pid"] as? Int == Int(first.0.processIdentifier))
        let since = try #require(holder["since"] as? String)
        #expect(ISO8601DateFormatter().date(from: since) != nil)
        #expect(said.stdout == "skipped: slice 0/1 of \(dir.file("out")) is being converted by another run of this recipe on this host (host node, pid \(first.0.processIdentifier), since \(since))\n")
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.count == 2)
    }

    // MARK: Bookkeeping

    @Test("a replacement source with the same size and mtime is converted again (its fingerprint differs)")
    func replacedSameSizeAndMtime() throws {
        let dir = Scratch()
        try F.clip(dir.file("one.mp4"), seconds: 1)
        try F.clip(dir.file("two.mp4"), seconds: 2)
        var one = try Data(contentsOf: URL(fileURLWithPath: dir.file("one.mp4")))
        let two = try Data(contentsOf: URL(fileURLWithPath: dir.file("two.mp4")))
        #expect(one.count < two.count)
        one.append(Data(count: two.count - one.count))  // the same size: trailing padding after the last box
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        let source = dir.file("in/s.mp4")
        let mtime = Date().addingTimeInterval(-600)
        try one.write(to: URL(fileURLWithPath: source))
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: source)
        #expect(try batch(dir).status == 0)
        #expect(try F.frames(dir.file("out/s-proxy.mp4")).count == 30)
        // Replaced (a new file renamed over it), size and mtime put back as they were.
        try two.write(to: URL(fileURLWithPath: dir.file("in/.s.mp4.new")))
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: dir.file("in/.s.mp4.new"))
        rename(dir.file("in/.s.mp4.new"), source)
        let r = try batch(dir, ["--json"])
        #expect(F.json(r.stdout)?["converted"] as? [String] == ["s.mp4"], "\(r.stdout)")
        #expect(try F.frames(dir.file("out/s-proxy.mp4")).count == 60)
        // Unchanged content with new metadata (chmod changes ctime): fingerprinted, still done.
        chmod(source, 0o600)
        let third = try batch(dir, ["--json"])
        #expect(F.json(third.stdout)?["alreadyDone"] as? Int == 1, "\(third.stdout)")
    }

    @Test("three hosts at once: a broken file is tried once per round, not once per host")
    func attemptsAcrossHosts() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["good.mp4"])
        for i in 0..<8 {
            try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* (31 + i)) }).write(to: URL(fileURLWithPath: dir.file("in/bad\(i).mov")))
        }
        F.settle(dir.file("in"))
        for round in 1...2 {
            // A round later: every stored time 700 s back, past --retry-after 600. Within a round
            // a host starting late never sees another's failure as old enough to retry.
            if round == 2 { try F.ageLedger(dir.file("out"), by: 700) }
            let procs = try (0..<3).map { h in
                try Binary.start(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "2",
                                  "--max-attempts", "3", "--retry-after", "600"], environment: ["REENCODE_HOSTNAME": "host\(h)"])
            }
            for p in procs { _ = Binary.finish(p.0, p.1, p.2) }
            let failures = F.ledger(dir.file("out")).filter { $0.status == .failed }
            for i in 0..<8 {
                let mine = failures.filter { $0.source == "bad\(i).mov" }
                #expect(mine.map(\.attempt) == Array(1...round), "round \(round): bad\(i).mov: \(mine.map { "\($0.host)#\($0.attempt)" })")
            }
        }
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source) == ["good.mp4"])
    }

    @Test("links and hard links to one file convert it once, under its own name")
    func linksDeduped() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        try FileManager.default.createSymbolicLink(atPath: dir.file("in/alias.mp4"), withDestinationPath: "a.mp4")
        try FileManager.default.createSymbolicLink(atPath: dir.file("in/sub/0-link.mp4"), withDestinationPath: "../a.mp4")
        try FileManager.default.linkItem(atPath: dir.file("in/sub/b.mp4"), toPath: dir.file("in/sub/a-hard.mp4"))
        let r = try batch(dir, ["--json"])
        let o = try #require(F.json(r.stdout), "\(r.stdout) \(r.stderr)")
        // A link loses to the file's own name; between own names (hard links) the first in byte order wins.
        #expect((o["converted"] as? [String])?.sorted() == ["a.mp4", "sub/a-hard.mp4"])
        #expect(o["duplicates"] as? [String] == ["alias.mp4", "sub/0-link.mp4", "sub/b.mp4"])
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source).sorted() == ["a.mp4", "sub/a-hard.mp4"])
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/alias-proxy.mp4")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/sub/b-proxy.mp4")))
        let again = try batch(dir, ["--json"])
        #expect(F.json(again.stdout)?["alreadyDone"] as? Int == 2)
    }

    @Test("a FIFO, a device and a socket named like media are recorded and skipped, never opened; the batch does not hang")
    func nonRegularFiles() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["good.mp4"])
        #expect(mkfifo(dir.file("in/pipe.mp4"), 0o644) == 0)
        var expected = ["pipe.mp4 a FIFO (named pipe), not a regular file"]
        if getuid() == 0, mknod(dir.file("in/null.mkv"), S_IFCHR | 0o644, dev_t((1 << 8) | 3)  /* makedev(1, 3): /dev/null */) == 0 {
            expected.append("null.mkv a character device, not a regular file")
        }
        let sock = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let sockPath = dir.file("in/sock.webm")
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            sockPath.utf8CString.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count))) }
        }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        defer { close(sock) }
        if bound == 0 { expected.append("sock.webm a socket, not a regular file") }
        try FileManager.default.createSymbolicLink(atPath: dir.file("in/link-to-pipe.mov"), withDestinationPath: "pipe.mp4")
        expected.append("link-to-pipe.mov a FIFO (named pipe), not a regular file")
        expected.sort()

        let r = try batch(dir, [], timeLimit: 30)
        #expect(r.status == 0, "status \(r.status): \(r.stderr)")
        for e in expected {
            let name = String(e.split(separator: " ")[0])
            let why = e.dropFirst(name.count + 1)
            #expect(r.stderr.contains("warning: \(name): skipped, \(why) (recorded in the ledger; said once)"), "\(r.stderr)")
        }
        let skipped = F.ledger(dir.file("out")).filter { $0.status == .skipped }.map { "\($0.source) \($0.error ?? "")" }.sorted()
        #expect(skipped == expected)
        #expect(try F.frames(dir.file("out/good-proxy.mp4")).count == 30)
        // Said once: the next run counts them quietly, in JSON too.
        let again = try batch(dir, [], timeLimit: 30)
        #expect(again.status == 0 && again.stderr == "" && again.stdout == "", "\(again.stdout) \(again.stderr)")
        let j = try batch(dir, ["--json"], timeLimit: 30)
        let listed = (F.json(j.stdout)?["skipped"] as? [[String: String]])?.map { "\($0["path"] ?? "") \($0["reason"] ?? "")" }
        #expect(listed == expected)
        #expect(F.ledger(dir.file("out")).filter { $0.status == .skipped }.count == expected.count)
    }

    @Test("an unreadable subfolder is recorded and said, not silently left out")
    func unreadableFolder() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "locked/b.mp4"])
        chmod(dir.file("in/locked"), 0)
        defer { chmod(dir.file("in/locked"), 0o755) }
        // root reads any folder: run as nobody then, with an output folder nobody may write.
        chmod(dir.path, 0o777)
        chmod(dir.file("in"), 0o755)
        chmod(dir.file("in/a.mp4"), 0o644)
        let asNobody = getuid() == 0 ? "exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$0\" \"$@\"; false" : ":"
        let r = try batch(dir, [], shell: asNobody)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("warning: locked: skipped, unreadable folder: Permission denied (recorded in the ledger; said once)"), "\(r.stderr)")
        let skipped = F.ledger(dir.file("out")).filter { $0.status == .skipped }
        #expect(skipped.map { "\($0.source): \($0.error ?? "")" } == ["locked: unreadable folder: Permission denied"])
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source) == ["a.mp4"])
    }

    @Test("--dry-run changes nothing on disk and says how many it would convert")
    func dryRun() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        let r = try batch(dir, ["--dry-run"])
        #expect(r.status == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")), "the output folder was made")
        #expect(r.stdout.hasPrefix("would convert a.mp4\nwould convert sub/b.mp4\nwould convert 2, already done 0 — "), "\(r.stdout)")
        #expect(try batch(dir).status == 0)
        try F.clip(dir.file("in/c.mp4"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: dir.file("in/c.mp4"))
        let before = F.snapshot(dir.file("out"))
        let again = try batch(dir, ["--dry-run", "--json"])
        #expect(F.json(again.stdout)?["planned"] as? [String] == ["c.mp4"])
        #expect(F.snapshot(dir.file("out")) == before)
    }

    @Test("a failure is printed once, with its exit code")
    func failurePrintedOnce() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: dir.file("in/bad.mov")))
        F.settle(dir.file("in"))
        let r = try batch(dir)
        #expect(r.status == 1)
        let all = r.stdout + r.stderr
        #expect(all.components(separatedBy: "not a media file").count == 2, "stdout: \(r.stdout) stderr: \(r.stderr)")
        #expect(r.stdout.contains("  failed: bad.mov (exit 66): "))
    }

    /// Starts a batch and sends `sig` once its first temp file exists (a conversion is under way).
    func interrupted(_ dir: Scratch, _ extra: [String], signal sig: Int32, tempIn folder: String) throws -> Binary.Result {
        let p = try Binary.start(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out")] + extra,
                                 environment: ["REENCODE_HOSTNAME": "h"])
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if names.contains(where: { $0.contains(".reencode-tmp-") }) {
                // Stopped first, so that it cannot finish before the signal is delivered.
                kill(p.0.processIdentifier, SIGSTOP)
                break
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        kill(p.0.processIdentifier, sig)
        kill(p.0.processIdentifier, SIGCONT)
        return Binary.finish(p.0, p.1, p.2)
    }

    @Test("folders a run made stay only if something went into them (Ctrl-C, a failure)", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func emptyFoldersRemoved() throws {
        let dir = Scratch()
        try F.clip(dir.file("in/deep/er/long.mp4"), seconds: 6, width: 640, height: 360)
        F.settle(dir.file("in"))
        let cancelled = try interrupted(dir, [], signal: SIGINT, tempIn: dir.file("out/deep/er"))
        #expect(cancelled.status == 130, "\(cancelled.stdout) \(cancelled.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")) == [".reencode"])
        // A failure mid-file (a 16 KiB file-size limit) leaves no folder either.
        let full = try batch(dir, ["--retry-after", "0"], shell: "ulimit -f 16")
        #expect(full.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")) == [".reencode"])
        // A folder that existed before is left, empty or not.
        try FileManager.default.createDirectory(atPath: dir.file("out/deep/er"), withIntermediateDirectories: true)
        #expect(try batch(dir, ["--retry-after", "0"], shell: "ulimit -f 16").status == 1)
        #expect(FileManager.default.fileExists(atPath: dir.file("out/deep/er")))
    }

    @Test("--json prints exactly one JSON object on every way out: cancel, a fatal error, a bad recipe, a missing folder")
    func jsonOnEveryExit() throws {
        let dir = Scratch()
        try F.clip(dir.file("in/long.mp4"), seconds: 6, width: 640, height: 360)
        F.settle(dir.file("in"))
        let c = try interrupted(dir, ["--json"], signal: SIGTERM, tempIn: dir.file("out"))
        #expect(c.status == 143)
        let co = try #require(F.json(c.stdout), "'\(c.stdout)'")
        #expect(co["status"] as? String == "cancelled" && co["exitCode"] as? Int == 143)
        #expect(co["converted"] as? [String] == [])

        let base = ["batch", F.recipe, "--input-dir", dir.file("in"), "--json"]
        try "x".write(toFile: dir.file("file"), atomically: true, encoding: .utf8)
        let fatal = try Binary.run(base + ["--output-dir", dir.file("file/out")])
        #expect(fatal.status == 73)
        let fo = try #require(F.json(fatal.stdout), "'\(fatal.stdout)'")
        #expect(fo["status"] as? String == "error" && fo["exitCode"] as? Int == 73)
        #expect((fo["error"] as? String)?.contains("cannot create the output folder") == true)

        try "video: [".write(toFile: dir.file("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try Binary.run(["batch", dir.file("bad.yaml"), "--input-dir", dir.file("in"), "--output-dir", dir.file("o2"), "--json"])
        #expect(bad.status == 65)
        #expect(F.json(bad.stdout)?["exitCode"] as? Int == 65, "'\(bad.stdout)'")

        let usage = try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("o4"), "--json", "--jobs", "0"])
        #expect(usage.status == 64)
        let uo = try #require(F.json(usage.stdout), "'\(usage.stdout)'")
        #expect(uo["status"] as? String == "error" && uo["exitCode"] as? Int == 64)
        #expect(usage.stderr.hasPrefix("Error: "), "\(usage.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("o4")))
        let plainUsage = try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("o4"), "--jobs", "0"])
        #expect(plainUsage.status == 64 && plainUsage.stdout == "" && plainUsage.stderr == usage.stderr)

        let missing = try Binary.run(["batch", F.recipe, "--input-dir", dir.file("nope"), "--output-dir", dir.file("o3"), "--json"])
        #expect(missing.status == 66)
        let mo = try #require(F.json(missing.stdout), "'\(missing.stdout)'")
        #expect(mo["error"] as? String == "error: \(dir.file("nope")): no such folder")
    }

    @Test("--jobs 2 over broken files of two kinds: each ledger error carries its own file's FFmpeg line")
    func ownLogLineUnderJobs() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        var ebml = Data([0x1a, 0x45, 0xdf, 0xa3, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0xff, 0xff, 0xff, 0xff])
        ebml.append(Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        for i in 0..<40 {
            try Data("not a movie \(i), no moov here".utf8).write(to: URL(fileURLWithPath: dir.file("in/m\(i).mp4")))
            try ebml.write(to: URL(fileURLWithPath: dir.file("in/k\(i).mkv")))
        }
        F.settle(dir.file("in"))
        let r = try batch(dir, ["--extensions", "mp4,mkv"], env: [:], timeLimit: 120)
        #expect(r.status == 1)
        let failures = F.ledger(dir.file("out")).filter { $0.status == .failed }
        #expect(failures.count == 80)
        let wrong = failures.filter { e in
            !(e.error ?? "").contains(e.source.hasSuffix(".mp4") ? "moov atom not found" : "EBML header parsing failed")
        }
        #expect(wrong.isEmpty, "\(wrong.count) carry another line, e.g. \(wrong.first.map { "\($0.source): \($0.error ?? "")" } ?? "")")
    }

    // MARK: Clocks

    @Test("a host whose clock runs ahead does not take over a live claim; one running behind still takes over a dead one")
    func clockSkew() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4"])
        let claims = dir.file("out/.reencode/claims")
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let content = #"{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"s"}"#
        let live = claims + "/" + FNV1a.hex("a-proxy.mp4") + ".claim"
        let dead = claims + "/" + FNV1a.hex("b-proxy.mp4") + ".claim"
        try content.write(toFile: live, atomically: true, encoding: .utf8)
        try content.write(toFile: dead, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: dead)
        // Ten minutes ahead: by its own clock both claims' heartbeats are old; neither is taken
        // over before it has seen them unchanged for the timeout.
        let ahead = try batch(dir, ["--claim-timeout", "1", "--json"], env: ["REENCODE_TEST_CLOCK_OFFSET": "600"])
        let o = try #require(F.json(ahead.stdout), "\(ahead.stdout) \(ahead.stderr)")
        #expect((o["claimedElsewhere"] as? [String])?.sorted() == ["a.mp4", "b.mp4"])
        // The live one beats; the dead one does not.
        usleep(1_500_000)
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: live)
        let again = try batch(dir, ["--claim-timeout", "1", "--json"], env: ["REENCODE_TEST_CLOCK_OFFSET": "600"])
        let a = try #require(F.json(again.stdout), "\(again.stdout) \(again.stderr)")
        #expect(a["claimedElsewhere"] as? [String] == ["a.mp4"])
        #expect(a["converted"] as? [String] == ["b.mp4"])
        #expect(FileManager.default.fileExists(atPath: live))
        // Two hours behind: the same, whatever the clock says.
        try content.write(toFile: dead, atomically: true, encoding: .utf8)
        unlink(live)
        try FileManager.default.removeItem(atPath: dir.file("out/b-proxy.mp4"))
        _ = try batch(dir, ["--claim-timeout", "1", "--json"], env: ["REENCODE_TEST_CLOCK_OFFSET": "-7200"])
        usleep(1_500_000)
        let behind = try batch(dir, ["--claim-timeout", "1", "--json"], env: ["REENCODE_TEST_CLOCK_OFFSET": "-7200"])
        let b = try #require(F.json(behind.stdout))
        #expect((b["converted"] as? [String])?.sorted() == ["b.mp4"], "\(behind.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dead))
    }
}

@Suite("FFmpeg's log line per conversion")
struct FFmpegLogPerConversionTests {
    @Test("two broken files probed side by side each carry their own FFmpeg line")
    func ownLine() throws {
        let dir = Scratch()
        let mp4 = dir.file("broken.mp4"), mkv = dir.file("broken.mkv")
        try Data("not a movie at all, no moov here".utf8).write(to: URL(fileURLWithPath: mp4))
        var ebml = Data([0x1a, 0x45, 0xdf, 0xa3, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0xff, 0xff, 0xff, 0xff])
        ebml.append(Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try ebml.write(to: URL(fileURLWithPath: mkv))
        let wrong = Mutex<[String]>([])
        let group = DispatchGroup()
        for (path, expected) in [(mp4, "moov atom not found"), (mkv, "EBML header parsing failed")] {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for _ in 0..<3000 {
                    do {
                        _ = try Asset.load(path)
                        wrong.withLock { $0.append("\(path) loaded") }
                        return
                    } catch let error as MediaError {
                        if !(error.detail ?? "").contains(expected) { wrong.withLock { $0.append("\(path): \(error.detail ?? "nil")") } }
                    } catch {
                        wrong.withLock { $0.append("\(path): \(error)") }
                    }
                }
            }
        }
        group.wait()
        let found = wrong.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) errors carried another line: \(found.prefix(3))")
    }
}
