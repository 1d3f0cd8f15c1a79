import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// The ledger as the truth of what is done (issue 23): which recipe made the output in place,
/// torn lines, one read per run, one journal per host, identities every client sees alike.
@Suite("reencode batch: the ledger (issue 23)", .serialized)
struct BatchLedgerTests {
    func batch(_ dir: Scratch, recipe: String = F.recipe, _ extra: [String] = [], host: String = "host-a",
               shell: String? = nil) throws -> Binary.Result {
        try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"] + extra,
                       timeLimit: 120, environment: ["REENCODE_HOSTNAME": host], shell: shell)
    }

    /// proxy-540p with another frame rate: the same output name, other settings.
    static func halfRateRecipe(_ dir: Scratch) throws -> String {
        let text = try String(contentsOfFile: F.recipe, encoding: .utf8).replacingOccurrences(of: "frame-rate: 30", with: "frame-rate: 15")
        try text.write(toFile: dir.file("half.yaml"), atomically: true, encoding: .utf8)
        return dir.file("half.yaml")
    }

    /// One more settled clip, the others left as they are.
    static func addClip(_ dir: Scratch, _ name: String) throws {
        try F.clip(dir.file("in/" + name))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: dir.file("in/" + name))
    }

    static func converted(_ r: Binary.Result) -> [String]? { F.json(r.stdout)?["converted"] as? [String] }
    static func alreadyDone(_ r: Binary.Result) -> Int? { F.json(r.stdout)?["alreadyDone"] as? Int }

    @Test("a ledger line that is not an entry is said on every run (stderr and JSON), never skipped in silence")
    func unreadableLineSaid() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let first = try batch(dir, ["--settle", "0"])
        #expect(first.status == 0, "\(first.stderr)")
        let journals = F.journals(dir.file("out"))
        let path = try #require(journals.count == 1 ? journals.first : nil, "\(journals)")
        let name = URL(fileURLWithPath: path).lastPathComponent
        let lines = try String(contentsOfFile: path, encoding: .utf8)
        try ("{\"glued\": tru\n" + lines).write(toFile: path, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let r = try batch(dir, ["--settle", "0"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(F.json(r.stdout)?["ledgerUnreadable"] as? [String] == ["\(name) line 1: not a ledger entry (13 bytes), ignored"], "\(r.stdout)")
            #expect(r.stderr.contains("warning: ledger: \(name) line 1: not a ledger entry (13 bytes), ignored (remove or mend the line to silence this)\n"), "\(r.stderr)")
            #expect(Self.alreadyDone(r) == 1)
        }
    }

    // MARK: Item 1: the output in place is this recipe's

    @Test("recipe A, then B into the same output name, then A again: A converts again and the output is A's")
    func revertedRecipe() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        let half = try Self.halfRateRecipe(dir)
        let output = dir.file("out/a-proxy.mp4")
        for (recipe, frames) in [(F.recipe, 30), (half, 15), (F.recipe, 30)] {
            let r = try batch(dir, recipe: recipe)
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
            #expect(Self.converted(r) == ["a.mp4", "sub/b.mp4"], "\(recipe): \(r.stdout)")
            #expect(try F.frames(output).count == frames, "\(recipe)'s output is in place")
            #expect(try F.frames(dir.file("out/sub/b-proxy.mp4")).count == frames)
        }
        let again = try batch(dir)
        #expect(Self.converted(again) == [] && Self.alreadyDone(again) == 2, "\(again.stdout)")
        // Every done line says what it left in place.
        let done = F.ledger(dir.file("out")).filter { $0.status == .done && $0.source == "a.mp4" }
        let a = FNV1a.hex(try String(contentsOfFile: F.recipe, encoding: .utf8))
        let b = FNV1a.hex(try String(contentsOfFile: half, encoding: .utf8))
        #expect(done.map(\.recipe) == [a, b, a])
        var st = stat()
        stat(output, &st)
        #expect(done.last?.outputSize == Int64(st.st_size))
        #expect(done.last?.outputMtime == SourceIdentity.of(output)?.mtime)
        // --ignore-recipe-change keeps what another recipe made.
        #expect(try batch(dir, recipe: half).status == 0)
        let kept = try batch(dir, ["--ignore-recipe-change"])
        #expect(Self.converted(kept) == [] && Self.alreadyDone(kept) == 2, "\(kept.stdout)")
        #expect(try F.frames(output).count == 15)
    }

    @Test("an output changed since its done line (another file put there, or rewritten) is converted again")
    func outputChangedSinceDone() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4", "c.mp4"])
        #expect(try batch(dir).status == 0)
        // a: another file of another size in its place; b: same size, another mtime; c: untouched.
        try F.clip(dir.file("other.mp4"), seconds: 2)
        rename(dir.file("other.mp4"), dir.file("out/a-proxy.mp4"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: dir.file("out/b-proxy.mp4"))
        let r = try batch(dir)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(Self.converted(r) == ["a.mp4", "b.mp4"] && Self.alreadyDone(r) == 1, "\(r.stdout)")
        #expect(try F.frames(dir.file("out/a-proxy.mp4")).count == 30, "a.mp4's own output again, not the 2 s clip")
        let idle = try batch(dir)
        #expect(Self.converted(idle) == [] && Self.alreadyDone(idle) == 3, "\(idle.stdout)")
    }
}

extension BatchLedgerTests {
    // MARK: Item 5: a ledger line goes in whole or not at all

    /// Appends a harmless entry (a `skipped` path that no scan finds) that leaves the ledger
    /// `size` bytes long.
    static func padLedger(_ path: String, to size: Int) throws {
        let have = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        func line(_ pad: Int) -> String {
            "{\"attempt\":0,\"error\":\"\(String(repeating: "p", count: pad))\",\"fingerprint\":\"\",\"host\":\"pad\",\"mtime\":0,\"pid\":1,"
                + "\"recipe\":\"\",\"size\":0,\"source\":\"zz-pad.txt\",\"status\":\"skipped\",\"time\":\"2026-01-01T00:00:00Z\"}\n"
        }
        let pad = size - have - line(0).utf8.count
        #expect(pad >= 0, "the ledger is already \(have) bytes")
        let h = try #require(FileHandle(forWritingAtPath: path))
        h.seekToEndOfFile()
        h.write(Data(line(pad).utf8))
        try h.close()
    }

    static func ledgerBytes(_ out: String) -> Data { FileManager.default.contents(atPath: F.journal(out, host: "host-a")) ?? Data() }

    /// Every line of the ledger is an entry: nothing glued, nothing torn.
    static func everyLineParses(_ out: String) -> Bool {
        let lines = String(decoding: ledgerBytes(out), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.last == "" && lines.dropLast().allSatisfy { (try? JSONDecoder().decode(LedgerEntry.self, from: Data($0.utf8))) != nil }
    }

    /// After a run that could not append b.mp4's `started` line: the ledger as it was, the failure
    /// said with the errno of the failing write; then, with room again, b.mp4 converts and every
    /// line parses.
    func checkShortWrite(_ dir: Scratch, failing: Binary.Result, before: Data, errno expected: Int32) throws {
        #expect(failing.status == 1, "\(failing.stdout) \(failing.stderr)")
        let o = try #require(F.json(failing.stdout), "\(failing.stdout)")
        let f = try #require((o["failed"] as? [[String: Any]])?.first, "\(failing.stdout)")
        #expect(f["source"] as? String == "b.mp4")
        #expect(f["exitCode"] as? Int == 74)
        #expect(f["error"] as? String == F.journal(dir.file("out"), host: "host-a") + ": cannot write the ledger: " + String(cString: strerror(expected)))
        #expect(Self.ledgerBytes(dir.file("out")) == before, "the part of the line that went in was taken out again")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/b-proxy.mp4")))
    }

    func checkRecovered(_ dir: Scratch) throws {
        let r = try batch(dir)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(Self.converted(r) == ["b.mp4"], "\(r.stdout)")
        #expect(Self.everyLineParses(dir.file("out")))
        #expect(F.ledger(dir.file("out")).filter { $0.source == "b.mp4" }.map(\.status.rawValue) == ["started", "done"])
        #expect(try F.frames(dir.file("out/b-proxy.mp4")).count == 30)
    }

    @Test("a full disk mid-line: the torn part is taken out, the error says ENOSPC, the next entry is whole")
    func fullDiskTornLine() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        guard let tmpfs = TmpfsMount(dir.file("out"), size: "4m") else { return }
        defer { tmpfs.unmount() }
        #expect(try batch(dir).status == 0)
        try Self.addClip(dir, "b.mp4")
        // 40 bytes left in the ledger's last page; then the disk is filled but for one page
        // (b.mp4's claim takes it): b.mp4's `started` line goes in 40 bytes, then ENOSPC.
        let ledger = F.journal(dir.file("out"), host: "host-a")
        let size = (try FileManager.default.attributesOfItem(atPath: ledger)[.size] as? Int) ?? 0
        try Self.padLedger(ledger, to: (size / 4096 + 2) * 4096 - 40)
        try tmpfs.fill(leavingPages: 1, file: dir.file("out/filler"))
        let before = Self.ledgerBytes(dir.file("out"))
        try checkShortWrite(dir, failing: try batch(dir, ["--retry-after", "0"]), before: before, errno: ENOSPC)
        unlink(dir.file("out/filler"))
        try checkRecovered(dir)
    }

    @Test("a file-size limit mid-line: the torn part is taken out, the error says EFBIG, the next entry is whole",
          .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func fileSizeLimitTornLine() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        #expect(try batch(dir).status == 0)
        try Self.addClip(dir, "b.mp4")
        try Self.padLedger(F.journal(dir.file("out"), host: "host-a"), to: 256 * 1024 - 40)
        let before = Self.ledgerBytes(dir.file("out"))
        try checkShortWrite(dir, failing: try batch(dir, shell: "ulimit -f 256"), before: before, errno: EFBIG)
        try checkRecovered(dir)
    }

    @Test("a line left unfinished by a writer killed mid-write is cut before the next entry goes in")
    func unfinishedLineCut() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        #expect(try batch(dir).status == 0)
        let ledger = F.journal(dir.file("out"), host: "host-a")
        let whole = Self.ledgerBytes(dir.file("out"))
        let h = try #require(FileHandle(forWritingAtPath: ledger))
        h.seekToEndOfFile()
        h.write(Data("{\"attempt\":1,\"fingerprint\":\"0123".utf8))  // no newline: cut off mid-write
        try h.close()
        try Self.addClip(dir, "b.mp4")
        let r = try batch(dir)
        #expect(Self.converted(r) == ["b.mp4"], "\(r.stdout)")
        #expect(Self.ledgerBytes(dir.file("out")).prefix(whole.count) == whole)
        #expect(Self.everyLineParses(dir.file("out")))
        #expect(F.ledger(dir.file("out")).map { "\($0.source) \($0.status.rawValue)" } == ["a.mp4 started", "a.mp4 done", "b.mp4 started", "b.mp4 done"])
    }
}

/// A small tmpfs mounted over a folder, to fill a disk for real. nil (and the reason printed)
/// where this process may not mount (not root, no CAP_SYS_ADMIN).
struct TmpfsMount {
    let path: String

    init?(_ path: String, size: String) {
        let r = try? TmpfsMount.sh("mount -t tmpfs -o size=\(size) tmpfs '\(path)'")
        guard let r, r.status == 0 else {
            print("BatchLedgerTests: tmpfs test skipped: cannot mount a tmpfs here (\(r?.stderr ?? "mount not run"))")
            return nil
        }
        self.path = path
    }

    /// Fills the file system with `file`, then frees `leavingPages` pages of it.
    func fill(leavingPages pages: Int, file: String) throws {
        let fd = open(file, O_WRONLY | O_CREAT, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        let page = [UInt8](repeating: 0x55, count: 4096)
        var size = 0
        while page.withUnsafeBytes({ write(fd, $0.baseAddress, 4096) }) == 4096 { size += 4096 }
        #expect(ftruncate(fd, off_t(size - pages * 4096)) == 0)
    }

    func unmount() { _ = try? TmpfsMount.sh("umount '\(path)'") }

    static func sh(_ command: String) throws -> Binary.Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return Binary.finish(p, out, err)
    }
}

extension BatchLedgerTests {
    // MARK: Item 6: one read of the ledger per run

    /// `count` lines of entries about sources long gone (started and done, alternately).
    static func oldLedger(_ out: String, lines count: Int) throws {
        try FileManager.default.createDirectory(atPath: out + "/.reencode", withIntermediateDirectories: true)
        var text = ""
        for i in 0..<count {
            text += "{\"attempt\":1,\"ctime\":1700000000,\"fingerprint\":\"\(String(format: "%016x", i / 2))\",\"host\":\"old\",\"mtime\":1700000000,"
                + "\"output\":\"old/\(i / 2)-proxy.mp4\",\"pid\":1,\"recipe\":\"0123456789abcdef\",\"size\":\(1000 + i / 2),\"source\":\"old/\(i / 2).mp4\","
                + "\"status\":\"\(i % 2 == 0 ? "started" : "done")\",\"stored\":1700000000,\"time\":\"2026-01-01T00:00:00Z\"}\n"
        }
        try text.write(toFile: out + "/.reencode/ledger.jsonl", atomically: true, encoding: .utf8)
    }

    @Test("each ledger line is decoded once per run, however many files are judged (jobs 1 and 2), and an idle rerun decodes the ledger once", arguments: [1, 2])
    func ledgerReadOncePerRun(jobs: Int) throws {
        let dir = Scratch()
        let names = ["a.mp4", "b.mp4", "c/d.mp4", "c/e.mp4"]
        try F.folder(dir.file("in"), names)
        let old = 20_000
        try Self.oldLedger(dir.file("out"), lines: old)
        let r = try batch(dir, ["--jobs", "\(jobs)"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(Self.converted(r)?.sorted() == names)
        // Its own lines (a started and a done per file) are read back at most once each.
        let read = try #require(F.json(r.stdout)?["ledgerLinesRead"] as? Int, "\(r.stdout)")
        #expect(read >= old && read <= old + 2 * names.count, "\(read) lines decoded for a ledger of \(old) + \(2 * names.count)")
        let idle = try batch(dir)
        #expect(Self.alreadyDone(idle) == names.count)
        #expect(F.json(idle.stdout)?["ledgerLinesRead"] as? Int == old + 2 * names.count, "\(idle.stdout)")
        #expect(F.ledger(dir.file("out")).count == old + 2 * names.count)
    }
}

extension BatchLedgerTests {
    // MARK: Item 8: one journal per host, read as a union; a line that is not an entry is said

    static func lines(_ path: String) -> [LedgerEntry] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(LedgerEntry.self, from: Data($0.utf8)) }
    }

    @Test("each host appends only to its own journal; the ledger is their union in claim order, with ledger.jsonl of older versions")
    func journalPerHost() throws {
        let dir = Scratch()
        let out = dir.file("out")
        try F.folder(dir.file("in"), ["a.mp4"])
        #expect(try batch(dir, host: "host-a").status == 0)
        try Self.addClip(dir, "b.mp4")
        let odd = "rack 1:node é"
        #expect(try batch(dir, host: odd).status == 0)
        let names = F.journals(out).map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names == ["ledger-host-a.jsonl", "ledger-rack%201%3Anode%20%C3%A9.jsonl"])
        let mine = { (h: String) in Self.lines(F.journal(out, host: h)).map { "\($0.host) \($0.source) \($0.status.rawValue)" } }
        #expect(mine("host-a") == ["host-a a.mp4 started", "host-a a.mp4 done"])
        #expect(mine(odd) == ["\(odd) b.mp4 started", "\(odd) b.mp4 done"])
        let all = F.ledger(out)
        #expect(all.map { "\($0.source) \($0.status.rawValue) \($0.seq ?? 0)" } == ["a.mp4 started 1", "a.mp4 done 2", "b.mp4 started 3", "b.mp4 done 4"])

        // An older version's single ledger.jsonl (no seq) is read; an idle run appends nothing.
        var legacy = ""
        for e in all {
            var o = try #require(F.json(String(decoding: try JSONEncoder().encode(e), as: UTF8.self)))
            o["seq"] = nil
            legacy += String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        for j in F.journals(out) { unlink(j) }
        try legacy.write(toFile: out + "/.reencode/ledger.jsonl", atomically: true, encoding: .utf8)
        let idle = try batch(dir, host: "host-b")
        #expect(Self.converted(idle) == [] && Self.alreadyDone(idle) == 2, "\(idle.stdout)")
        #expect(F.journals(out) == [out + "/.reencode/ledger.jsonl"])

        // A line that is not an entry (overwritten by another client) is counted and said, every run.
        let h = try #require(FileHandle(forWritingAtPath: out + "/.reencode/ledger.jsonl"))
        h.seekToEndOfFile()
        h.write(Data("\0\0\0 overwritten\n".utf8))
        try h.close()
        let said = "ledger.jsonl line 5: not a ledger entry (15 bytes), ignored"
        for _ in 0..<2 {
            let r = try batch(dir, host: "host-b")
            #expect(r.status == 0 && Self.alreadyDone(r) == 2, "\(r.stdout) \(r.stderr)")
            #expect(F.json(r.stdout)?["ledgerUnreadable"] as? [String] == [said], "\(r.stdout)")
            #expect(r.stderr == "warning: ledger: \(said) (remove or mend the line to silence this)\n")
        }
        let text = try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--verbose"],
                                  environment: ["REENCODE_HOSTNAME": "host-b"])
        #expect(text.stdout.hasPrefix("converted 0, failed 0, already done 2, unreadable ledger lines 1 — "), "\(text.stdout)")
    }

    @Test("three hosts appending at once, each through its own sshfs client of the folder, lose no ledger line")
    func concurrentClients() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("shared"), withIntermediateDirectories: true)
        guard let views = SftpView.mount(dir.file("shared"), count: 3, under: dir) else { return }
        defer { views.forEach { $0.unmount() } }
        // 120 FIFOs named like media per host, names of its own (a left-out path is recorded once,
        // by whichever host sees it first): every host records each of its own as skipped, as
        // fast as it can, all three at once.
        let hosts = ["h0", "h1", "h2"]
        for h in hosts {
            try FileManager.default.createDirectory(atPath: dir.file("fifos/" + h), withIntermediateDirectories: true)
            for i in 0..<120 { mkfifo(dir.file(String(format: "fifos/%@/%@-p%03d.mp4", h, h, i)), 0o644) }
        }
        let procs = try zip(hosts, views).map { h, v in
            try Binary.start(["batch", F.recipe, "--input-dir", dir.file("fifos/" + h), "--output-dir", v.path + "/out", "--json"],
                             environment: ["REENCODE_HOSTNAME": h])
        }
        for p in procs {
            let r = Binary.finish(p.0, p.1, p.2)
            #expect((F.json(r.stdout)?["skipped"] as? [Any])?.count == 120, "\(r.stdout)")
        }
        let out = dir.file("shared/out")
        let entries = F.ledger(out)
        for h in hosts {
            let own = entries.filter { $0.host == h && $0.status == .skipped }.map(\.source)
            #expect(own == (0..<120).map { String(format: "%@-p%03d.mp4", h, $0) }, "\(h)")
        }
        #expect(Ledger(folder: out + "/.reencode").unreadable() == [])
        // Read through another client too: the same union.
        #expect(F.ledger(views[1].path + "/out").count == 360)
    }

    // MARK: Item 10: identity as every client sees it

    @Test("idle runs through clients that number files their own way (sshfs), and on the host itself, convert nothing and append nothing")
    func idleRunsAcrossClients() throws {
        let dir = Scratch()
        let shared = dir.file("shared")
        try F.folder(shared + "/in", ["a.mp4", "b.mp4", "c/d.mp4"])
        guard let views = SftpView.mount(shared, count: 3, under: dir) else { return }
        defer { views.forEach { $0.unmount() } }
        // Client 1 meets the files in another order than client 0: other inode numbers.
        for n in ["c/d.mp4", "b.mp4", "a.mp4"] { _ = SourceIdentity.of(views[1].path + "/in/" + n) }
        var s0 = stat(), s1 = stat()
        stat(views[0].path + "/in/a.mp4", &s0)
        stat(views[1].path + "/in/a.mp4", &s1)
        #expect(s0.st_ino != s1.st_ino, "the views number files their own way")
        func run(_ root: String, _ host: String) throws -> Binary.Result {
            try Binary.run(["batch", F.recipe, "--input-dir", root + "/in", "--output-dir", root + "/out", "--json"],
                           timeLimit: 120, environment: ["REENCODE_HOSTNAME": host])
        }
        let first = try run(views[0].path, "h0")
        #expect(Self.converted(first)?.sorted() == ["a.mp4", "b.mp4", "c/d.mp4"], "\(first.stdout) \(first.stderr)")
        let clients = [(views[1].path, "h1"), (views[2].path, "h2"), (views[0].path, "h0")]
        let size = { F.journals(shared + "/out").map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }.reduce(0, +) }
        let before = size()
        for (root, host) in clients + clients {
            let r = try run(root, host)
            #expect(Self.converted(r) == [] && Self.alreadyDone(r) == 3, "\(host): \(r.stdout) \(r.stderr)")
        }
        #expect(size() == before, "idle runs through sshfs clients appended to the ledger")
        // The host itself sees nanosecond mtimes and real ctimes: the same files, still done; it
        // records its own view once (after reading the fingerprint), then no more.
        let local = try run(shared, "server")
        #expect(Self.converted(local) == [] && Self.alreadyDone(local) == 3, "\(local.stdout)")
        let afterLocal = size()
        for (root, host) in clients + [(shared, "server")] {
            let r = try run(root, host)
            #expect(Self.converted(r) == [] && Self.alreadyDone(r) == 3, "\(host): \(r.stdout)")
        }
        #expect(size() == afterLocal)
        #expect(F.ledger(shared + "/out").filter { $0.status == .done }.count == 6, "one done line per file, and one per file for the host's own view")
    }
}

/// A view of a folder as another client sees it: sshfs over a pipe to a local sftp-server
/// (scripts/sftp-view.sh): its own inode numbers, times to the second, ctime = mtime.
struct SftpView {
    let path: String
    static let script = BatchFixture.repo.appendingPathComponent("scripts/sftp-view.sh").path

    /// `count` views of `folder`, or nil (the reason printed) where the script cannot make them here (exit 77).
    static func mount(_ folder: String, count: Int, under dir: Scratch) -> [SftpView]? {
        var views: [SftpView] = []
        for i in 0..<count {
            let at = dir.file("view\(i)")
            let r = try? TmpfsMount.sh("'\(script)' mount '\(folder)' '\(at)'")
            guard let r, r.status == 0 else {
                views.forEach { $0.unmount() }
                if r?.status == 77 { print("BatchLedgerTests: sshfs views skipped: \(r?.stderr ?? "")") } else {
                    Issue.record("sftp-view.sh mount failed: \(r?.status ?? -1) \(r?.stderr ?? "")")
                }
                return nil
            }
            views.append(SftpView(path: at))
        }
        return views
    }

    func unmount() { _ = try? TmpfsMount.sh("'\(Self.script)' unmount '\(path)'") }
}
