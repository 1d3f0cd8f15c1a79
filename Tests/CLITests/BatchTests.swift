import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let recipe = repo.appendingPathComponent("recipes/proxy-540p.yaml").path

/// A folder of `count` short frame-stamped clips (some in subfolders), settled in the past.
private func makeFolder(_ dir: String, count: Int, seconds: Int = 1, width: Int = 320, height: Int = 240) throws -> [String] {
    var names: [String] = []
    for i in 0..<count {
        let rel = i % 3 == 2 ? "day\(i % 2)/clip\(i).mp4" : "clip\(i).mp4"
        let path = dir + "/" + rel
        try BatchFixture.clip(path, seconds: seconds, width: width, height: height)
        names.append(rel)
    }
    settle(dir)
    return names.sorted()
}

/// Files older than any settle time used here.
private func settle(_ dir: String) {
    let old = Date().addingTimeInterval(-600)
    let e = FileManager.default.enumerator(atPath: dir)!
    while let rel = e.nextObject() as? String {
        try? FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + rel)
    }
}

private func ledger(_ out: String) -> [LedgerEntry] { Ledger(folder: out + "/.reencode").entries() }

/// Every file converted exactly once, outputs present and complete, nothing left over.
private func expectEachOnce(_ names: [String], _ out: String) throws {
    let done = ledger(out).filter { $0.status == .done }
    #expect(done.map(\.source).sorted() == names, "ledger: \(done.map(\.source).sorted())")
    for name in names {
        let output = out + "/" + (name as NSString).deletingPathExtension + "-proxy.mp4"
        let stamps = try SampleReaderStamps.read(output)
        #expect(stamps == (0..<30).map { Optional($0) }, "\(name) decodes fully")
    }
    #expect(leftovers(out).isEmpty, "left over: \(leftovers(out))")
}

/// Temp files and claims still on disk.
private func leftovers(_ out: String) -> [String] {
    var found: [String] = []
    let e = FileManager.default.enumerator(atPath: out)!
    while let rel = e.nextObject() as? String {
        if rel.contains(".reencode-tmp-") || rel.hasSuffix(".claim") { found.append(rel) }
    }
    return found
}

@Suite("reencode batch", .serialized)
struct BatchTests {
    func batch(_ dir: Scratch, _ extra: [String] = [], host: String = "host-a", shell: String? = nil) throws -> Binary.Result {
        try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "2"] + extra,
                       environment: ["REENCODE_HOSTNAME": host], shell: shell)
    }

    @Test("a run converts everything once; a rerun does nothing and prints nothing (cron)")
    func rerun() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 4)
        let first = try batch(dir)
        #expect(first.status == 0, "\(first.stderr)")
        try expectEachOnce(names, dir.file("out"))
        let second = try batch(dir)
        #expect(second.status == 0)
        #expect(second.stdout == "" && second.stderr == "")
        // Each conversion: a `started` line, then its `done` line; the rerun adds none.
        #expect(ledger(dir.file("out")).filter { $0.status == .done }.count == 4)
        #expect(ledger(dir.file("out")).count == 8)
        let json = try batch(dir, ["--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(o["alreadyDone"] as? Int == 4)
        #expect((o["converted"] as? [String])?.isEmpty == true)
    }

    @Test("two runs started at once on one folder convert each file exactly once")
    func overlapping() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 6)
        let args = ["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1"]
        let a = try Binary.start(args, environment: ["REENCODE_HOSTNAME": "one"])
        let b = try Binary.start(args, environment: ["REENCODE_HOSTNAME": "one"])
        let ra = Binary.finish(a.0, a.1, a.2), rb = Binary.finish(b.0, b.1, b.2)
        #expect(ra.status == 0 && rb.status == 0, "\(ra.stderr) \(rb.stderr)")
        try expectEachOnce(names, dir.file("out"))
    }

    @Test("four shards partition the files exactly")
    func shards() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 8)
        var seen: [String] = []
        var byShard: [Int: [String]] = [:]
        for i in 0..<4 {
            let r = try batch(dir, ["--shard", "\(i)/4", "--json"], host: "node\(i)")
            #expect(r.status == 0, "\(r.stderr)")
            let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let converted = o["converted"] as? [String] ?? []
            #expect(o["otherShard"] as? Int == 8 - converted.count)
            seen += converted
            byShard[i] = converted.sorted()
        }
        #expect(seen.sorted() == names)
        // Slices are a stable function of the relative path (FNV-1a), the same on every machine.
        #expect(byShard == [0: ["clip0.mp4", "clip4.mp4"], 1: ["clip3.mp4", "clip7.mp4", "day0/clip2.mp4"],
                            2: ["clip6.mp4"], 3: ["clip1.mp4", "day1/clip5.mp4"]])
        try expectEachOnce(names, dir.file("out"))
        // Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX with --shard-count picks the same slice.
        let k = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("k8s"), "--shard-count", "4", "--dry-run", "--json"],
                               environment: ["JOB_COMPLETION_INDEX": "2", "REENCODE_HOSTNAME": "pod"])
        let planned = (try JSONSerialization.jsonObject(with: Data(k.stdout.utf8)) as? [String: Any])?["planned"] as? [String]
        #expect(planned?.sorted() == byShard[2])
    }

    @Test("four machines without shards, sharing claims, convert each file once")
    func claims() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 8)
        let procs = try (0..<4).map { i in
            try Binary.start(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1"],
                             environment: ["REENCODE_HOSTNAME": "machine\(i)"])
        }
        for p in procs {
            let r = Binary.finish(p.0, p.1, p.2)
            #expect(r.status == 0, "\(r.stderr)")
        }
        try expectEachOnce(names, dir.file("out"))
    }

    @Test("kill -9 in the middle of a file, then a rerun: each file once, nothing left over")
    func killNine() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 3, seconds: 1, width: 1280, height: 720)
        let p = try Binary.start(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1"],
                                 environment: ["REENCODE_HOSTNAME": "crashy"])
        // Wait until a conversion is under way (a temp file exists), then kill.
        let deadline = Date().addingTimeInterval(30)
        while leftovers(dir.file("out")).filter({ $0.contains(".reencode-tmp-") }).isEmpty && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(p.0.processIdentifier, SIGKILL)
        _ = Binary.finish(p.0, p.1, p.2)
        #expect(p.0.terminationReason == .uncaughtSignal)
        #expect(!leftovers(dir.file("out")).isEmpty, "the kill left a temp file and a claim behind")
        let r = try batch(dir, ["--verbose"], host: "crashy")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("cleaned up"))
        try expectEachOnce(names, dir.file("out"))
    }

    @Test("a file still growing waits for the next run")
    func growing() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 2)
        let fresh = dir.file("in/" + names[0])
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: fresh)
        let r = try batch(dir, ["--settle", "30", "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(o["growing"] as? [String] == [names[0]])
        #expect(o["converted"] as? [String] == [names[1]])
        // Copied in completely: its mtime is old enough now.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: fresh)
        _ = try batch(dir, ["--settle", "30"])
        try expectEachOnce(names, dir.file("out"))
    }

    @Test("a corrupt file fails, is retried up to the limit, then left with its error; the others convert")
    func corrupt() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 2)
        try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: dir.file("in/bad.mov")))
        settle(dir.file("in"))
        for attempt in 1...2 {
            let r = try batch(dir, ["--max-attempts", "2", "--retry-after", "0"])
            #expect(r.status == 1)
            #expect(r.stdout.contains("failed: bad.mov (exit 66)"), "attempt \(attempt): \(r.stdout)")
        }
        let third = try batch(dir, ["--max-attempts", "2", "--retry-after", "0", "--json"])
        #expect(third.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as? [String: Any])
        #expect(o["givenUp"] as? [String] == ["bad.mov"])
        let failures = ledger(dir.file("out")).filter { $0.status == .failed }
        #expect(failures.map(\.attempt) == [1, 2])
        #expect(failures.allSatisfy { $0.source == "bad.mov" && $0.exitCode == 66 && ($0.error ?? "").contains("not a media file") })
        let done = ledger(dir.file("out")).filter { $0.status == .done }.map(\.source).sorted()
        #expect(done == names)
    }

    @Test("disk full: the file fails with an I/O error (74), nothing partial remains, the next run retries", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func diskFull() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 1, seconds: 2, width: 640, height: 360)
        // A 16 KiB file-size limit: the output cannot be written whole.
        let r = try batch(dir, [], shell: "ulimit -f 16")
        #expect(r.status == 1)
        #expect(ledger(dir.file("out")).map(\.status) == [.started, .failed])
        let failed = try #require(ledger(dir.file("out")).last)
        #expect(failed.status == .failed && failed.exitCode == 74, "\(failed)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).filter { $0 != ".reencode" }
        #expect(outputs.isEmpty, "partial output: \(outputs)")
        let retry = try batch(dir, ["--retry-after", "0"])
        #expect(retry.status == 0)
        #expect(ledger(dir.file("out")).last?.status == .done)
        _ = names
    }

    @Test("a claim with an old heartbeat is taken over; a live one is not")
    func heartbeat() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 2)
        let claims = dir.file("out/.reencode/claims")
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let outputs = names.map { ($0 as NSString).deletingPathExtension + "-proxy.mp4" }
        let content = #"{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"s"}"#
        let stale = claims + "/" + FNV1a.hex(outputs[0]) + ".claim"
        let live = claims + "/" + FNV1a.hex(outputs[1]) + ".claim"
        try content.write(toFile: stale, atomically: true, encoding: .utf8)
        try content.write(toFile: live, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale)
        // Stale once this host has seen it unchanged for the timeout (its mtime's age is not
        // judged): the first run only sees both; the live one beats before the second.
        let first = try batch(dir, ["--claim-timeout", "1", "--json"])
        let f = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect((f["claimedElsewhere"] as? [String])?.sorted() == names)
        usleep(1_500_000)
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: live)
        let r = try batch(dir, ["--claim-timeout", "1", "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(o["converted"] as? [String] == [names[0]])
        #expect(o["claimedElsewhere"] as? [String] == [names[1]])
        #expect(FileManager.default.fileExists(atPath: live), "a live claim is left alone")
    }

    @Test("--move-done moves each source away once its output is recorded, mirroring its folder")
    func moveDone() throws {
        let dir = Scratch()
        let names = try makeFolder(dir.file("in"), count: 3)
        let r = try batch(dir, ["--move-done", dir.file("done")])
        #expect(r.status == 0, "\(r.stderr)")
        try expectEachOnce(names, dir.file("out"))
        for name in names {
            #expect(FileManager.default.fileExists(atPath: dir.file("done/" + name)))
            #expect(!FileManager.default.fileExists(atPath: dir.file("in/" + name)))
        }
    }
}
