import Foundation
import Pipeline
import Recipe
import Testing

private typealias F = BatchFixture

/// Issue 24: `reencode batch` with a recipe of several outputs (`outputs:`): every source makes
/// each of them, exactly once, all or none; the ledger names them all.
@Suite("reencode batch: a recipe of several outputs", .serialized)
struct BatchOutputsTests {
    /// Two media files and a poster at 10 % (frame 3 of a one-second 30 fps clip).
    static let recipe = """
        recipe: 1
        reader:
          outputs:
            v: { track: video }
            s: { track: audio }
        outputs:
          - path: "{stem}-a.mp4"
            inputs:
              - { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } }
              - { source: s, settings: { codec: aac } }
          - path: "{stem}-b.mkv"
            inputs:
              - { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } }
          - path: "{stem}-poster.jpg"
            images: { source: v, at: 10% }
        """

    /// The outputs of a source `stem` (relative path without extension), in the recipe's order.
    static func outputs(_ stem: String) -> [String] { ["-a.mp4", "-b.mkv", "-poster.jpg"].map { stem + $0 } }

    func recipe(_ dir: Scratch, _ text: String = Self.recipe) throws -> String {
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        return dir.file("r.yaml")
    }

    func batch(_ recipe: String, input: String, output: String, _ extra: [String] = [], status: Int32 = 0, shell: String? = nil) throws -> [String: Any] {
        let r = try Binary.run(["batch", recipe, "--input-dir", input, "--output-dir", output, "--settle", "0", "--json"] + extra,
                               timeLimit: 180, environment: ["REENCODE_HOSTNAME": "host-a"], shell: shell)
        #expect(r.status == status, "\(r.stdout) \(r.stderr)")
        return try #require(F.json(r.stdout), "\(r.stdout) \(r.stderr)")
    }

    /// Every regular file under `dir` but the batch's state, relative, sorted.
    func files(_ dir: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var found: [String] = []
        while let rel = e.nextObject() as? String {
            if rel == ".reencode" { e.skipDescendants(); continue }
            var st = stat()
            if lstat(dir + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG { found.append(rel) }
        }
        return found.sorted()
    }

    /// The output shows the whole clip (video outputs), or frame 3 (the poster).
    func expectMade(_ path: String) throws {
        if path.hasSuffix(".jpg") {
            #expect(try SampleReader(path: path, track: .type(.video, 0)).nextPicture()?.stamp == 3, "\(path)")
        } else {
            #expect(try F.frames(path) == (0..<30).map { Optional($0) }, "\(path)")
        }
    }

    @Test("three sources: each makes both media files and the poster; started and done list them with each one's size and mtime; a second run converts nothing and writes no line")
    func everyOutput() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4", "day1/c.mov"])
        let r = try recipe(dir)
        let first = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect((first["converted"] as? [String])?.sorted() == ["a.mp4", "b.mp4", "day1/c.mov"])
        #expect(files(dir.file("out")) == (Self.outputs("a") + Self.outputs("b") + Self.outputs("day1/c")).sorted())
        // The second output takes no sound: said per source, naming that output.
        let warnings = try #require(first["warnings"] as? [[String: Any]])
        #expect(warnings.map { "\($0["source"] ?? "") \($0["output"] ?? "") \($0["track"] ?? "")" }.sorted()
                == ["a.mp4 a-b.mkv 1", "b.mp4 b-b.mkv 1", "day1/c.mov day1/c-b.mkv 1"])
        #expect(warnings.allSatisfy { ($0["message"] as? String)?.hasSuffix("is not written: no writer input takes it") == true }, "\(warnings)")
        for stem in ["a", "b", "day1/c"] {
            for o in Self.outputs(stem) { try expectMade(dir.file("out/" + o)) }
        }
        let entries = F.ledger(dir.file("out"))
        #expect(entries.count == 6)
        for (source, stem) in [("a.mp4", "a"), ("b.mp4", "b"), ("day1/c.mov", "day1/c")] {
            let mine = entries.filter { $0.source == source }
            #expect(mine.map(\.status) == [.started, .done])
            #expect(mine.allSatisfy { $0.output == stem + "-a.mp4" && $0.outputs?.map(\.path) == Self.outputs(stem) })
            let done = try #require(mine.last?.outputs)
            for o in done {
                let made = try #require(SourceIdentity.of(dir.file("out/" + o.path)))
                #expect(o.size == made.size && o.mtime.map { SourceIdentity.sameTime($0, made.mtime) } == true, "\(o)")
            }
            #expect(mine.first?.outputs?.allSatisfy { $0.size == nil && $0.mtime == nil } == true)
            #expect(mine.last?.warnings?.count == 1 && mine.last?.warnings?.first?.hasPrefix("output \(stem)-b.mkv: track #1: audio ") == true, "\(mine)")
        }
        let journal = try String(contentsOfFile: F.journal(dir.file("out"), host: "host-a"), encoding: .utf8)
        let second = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect(second["converted"] as? [String] == [])
        #expect(second["alreadyDone"] as? Int == 3)
        #expect(try String(contentsOfFile: F.journal(dir.file("out"), host: "host-a"), encoding: .utf8) == journal)
    }

    @Test("one output of one source deleted, another source's output changed: only those two are converted again, each making all its outputs")
    func oneMissing() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4", "c.mp4"])
        let r = try recipe(dir)
        _ = try batch(r, input: dir.file("in"), output: dir.file("out"))
        let aBefore = Self.outputs("a").map { SourceIdentity.of(dir.file("out/" + $0)) }
        try FileManager.default.removeItem(atPath: dir.file("out/b-poster.jpg"))
        let handle = try #require(FileHandle(forWritingAtPath: dir.file("out/c-b.mkv")))
        handle.truncateFile(atOffset: 100)
        handle.closeFile()
        let again = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect((again["converted"] as? [String])?.sorted() == ["b.mp4", "c.mp4"])
        #expect(again["alreadyDone"] as? Int == 1)
        for o in Self.outputs("b") + Self.outputs("c") { try expectMade(dir.file("out/" + o)) }
        // a's outputs were not touched.
        #expect(Self.outputs("a").map { SourceIdentity.of(dir.file("out/" + $0)) } == aBefore)
        let entries = F.ledger(dir.file("out")).dropFirst(6)
        #expect(entries.map { "\($0.source) \($0.status)" }.sorted() == ["b.mp4 done", "b.mp4 started", "c.mp4 done", "c.mp4 started"])
        let third = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect(third["converted"] as? [String] == [] && third["alreadyDone"] as? Int == 3)
    }

    /// Sources a.mp4 and b.mp4, and a file of someone else's at `foreign` in the output folder.
    func twoSources(foreign: String) throws -> Scratch {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4"])
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir.file("out/" + foreign)))
        return dir
    }

    @Test("a file reencode batch did not make at one output path: that source is refused (73) and none of its outputs is written; --dry-run says so first")
    func foreignFile() throws {
        let dir = try twoSources(foreign: "b-poster.jpg")
        let r = try recipe(dir)
        let why = "its output b-poster.jpg already exists and was not made by reencode batch for this source: left alone, not converted (move it away to convert)"
        let dry = try batch(r, input: dir.file("in"), output: dir.file("out"), ["--dry-run"])
        #expect(dry["planned"] as? [String] == ["a.mp4"])
        #expect((dry["refused"] as? [[String: String]]) == [["path": "b.mp4", "reason": why]])
        let run = try batch(r, input: dir.file("in"), output: dir.file("out"), status: 1)
        #expect(run["converted"] as? [String] == ["a.mp4"])
        let failed = try #require((run["failed"] as? [[String: Any]])?.first)
        #expect(failed["source"] as? String == "b.mp4" && failed["exitCode"] as? Int == 73 && failed["error"] as? String == "b.mp4: " + why)
        #expect(files(dir.file("out")) == (Self.outputs("a") + ["b-poster.jpg"]).sorted())
        #expect(try String(contentsOfFile: dir.file("out/b-poster.jpg"), encoding: .utf8) == "mine")
        let b = F.ledger(dir.file("out")).filter { $0.source == "b.mp4" }
        #expect(b.map(\.status) == [.failed] && b[0].exitCode == 73 && b[0].output == nil && b[0].outputs == nil)
    }

    @Test("a series of stills named once planned ({n}): a foreign file at its second still refuses the source (73), nothing of it written; its own stills are replaced when it converts again")
    func foreignStill() throws {
        let dir = try twoSources(foreign: "b-2.jpg")
        let r = try recipe(dir, Self.recipe.replacingOccurrences(of: "\"{stem}-poster.jpg\"", with: "\"{stem}-{n}.jpg\"")
                                         .replacingOccurrences(of: "at: 10%", with: "at: [10%, 50%]"))
        let run = try batch(r, input: dir.file("in"), output: dir.file("out"), status: 1)
        #expect(run["converted"] as? [String] == ["a.mp4"])
        let failed = try #require((run["failed"] as? [[String: Any]])?.first)
        #expect(failed["exitCode"] as? Int == 73)
        #expect(failed["error"] as? String == "b.mp4: its output b-2.jpg already exists and was not made by reencode batch for this source: left alone, not converted (move it away to convert)")
        #expect(files(dir.file("out")) == ["a-1.jpg", "a-2.jpg", "a-a.mp4", "a-b.mkv", "b-2.jpg"])
        let a = try #require(F.ledger(dir.file("out")).last { $0.source == "a.mp4" && $0.status == .done })
        #expect(a.output == "a-a.mp4" && a.outputs?.map(\.path) == ["a-a.mp4", "a-b.mkv", "a-1.jpg", "a-2.jpg"])
        #expect(try SampleReader(path: dir.file("out/a-2.jpg"), track: .type(.video, 0)).nextPicture()?.stamp == 15)
        // Its own outputs, changed: converted again, replacing them.
        try FileManager.default.removeItem(atPath: dir.file("out/b-2.jpg"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("out/a-1.jpg")))
        let again = try batch(r, input: dir.file("in"), output: dir.file("out"), ["--retry-after", "0"])
        #expect((again["converted"] as? [String])?.sorted() == ["a.mp4", "b.mp4"])
        #expect(try SampleReader(path: dir.file("out/a-1.jpg"), track: .type(.video, 0)).nextPicture()?.stamp == 3)
    }

    @Test("one output cannot be written whole (a 16 KiB file-size limit, as a full disk): the source fails with 74 and none of its outputs is left, not even the poster that fit; a later run makes them all", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func allOrNone() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let r = try recipe(dir)
        let run = try batch(r, input: dir.file("in"), output: dir.file("out"), status: 1, shell: "ulimit -f 16")
        let failed = try #require((run["failed"] as? [[String: Any]])?.first)
        #expect(failed["source"] as? String == "a.mp4" && failed["exitCode"] as? Int == 74, "\(failed)")
        #expect(files(dir.file("out")) == [], "\(files(dir.file("out")))")
        #expect(F.ledger(dir.file("out")).map(\.status) == [.started, .failed])
        let again = try batch(r, input: dir.file("in"), output: dir.file("out"), ["--retry-after", "0"])
        #expect(again["converted"] as? [String] == ["a.mp4"])
        for o in Self.outputs("a") { try expectMade(dir.file("out/" + o)) }
    }

    @Test("stills only (a poster and a storyboard): each source makes its poster, sheet and WebVTT, listed in the ledger; a second run converts nothing")
    func stillsOnly() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4"])
        let r = try recipe(dir, """
            recipe: 1
            reader: { outputs: { v: { track: video } } }
            outputs:
              - path: "{stem}-poster.jpg"
                images: { source: v, at: 10% }
              - path: "{stem}-sb.jpg"
                images: { source: v, every: 0.25s, tiles: 2x2, storyboard: true }
            """)
        let first = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect(first["converted"] as? [String] == ["a.mp4", "b.mp4"])
        #expect(files(dir.file("out")) == ["a-poster.jpg", "a-sb.jpg", "a-sb.vtt", "b-poster.jpg", "b-sb.jpg", "b-sb.vtt"])
        try expectMade(dir.file("out/b-poster.jpg"))
        let done = try #require(F.ledger(dir.file("out")).last { $0.source == "b.mp4" && $0.status == .done })
        #expect(done.output == "b-poster.jpg" && done.outputs?.map(\.path) == ["b-poster.jpg", "b-sb.jpg", "b-sb.vtt"])
        #expect(try String(contentsOfFile: dir.file("out/b-sb.vtt"), encoding: .utf8).hasPrefix("WEBVTT\n\n00:00:00.000 --> 00:00:00.250\nb-sb.jpg#xywh=0,0,160,120\n"))
        let second = try batch(r, input: dir.file("in"), output: dir.file("out"))
        #expect(second["converted"] as? [String] == [] && second["alreadyDone"] as? Int == 2)
    }

    @Test("another host's live conversion: the temp file of its second output, unchanged past --claim-timeout, stays while the claim (named by the first output) beats; once the claim is dead, it goes")
    func liveTempOfSecondOutput() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let r = try recipe(dir)
        let claims = dir.file("out/.reencode/claims")
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let claim = claims + "/" + FNV1a.hex("a-a.mp4") + ".claim"
        try #"{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"a.mp4"}"#.write(toFile: claim, atomically: true, encoding: .utf8)
        // Its `started` line, written before any of its outputs could exist, names them all.
        let started: [String: Any] = ["seq": 1, "time": "2026-11-28T00:00:00Z", "source": "a.mp4", "size": 1, "mtime": 1, "fingerprint": "f",
                                      "recipe": "r", "status": "started", "attempt": 1, "host": "elsewhere", "pid": 1, "output": "a-a.mp4",
                                      "outputs": Self.outputs("a").map { ["path": $0] }]
        var line = try JSONSerialization.data(withJSONObject: started, options: [.sortedKeys])
        line.append(UInt8(ascii: "\n"))
        try line.write(to: URL(fileURLWithPath: dir.file("out/.reencode/ledger-elsewhere.jsonl")))
        let temp = dir.file("out/.a-b.mkv.reencode-tmp-elsewhere-1-tok")
        try Data("half an mkv".utf8).write(to: URL(fileURLWithPath: temp))
        func run() throws -> [String: Any] {
            try batch(r, input: dir.file("in"), output: dir.file("out"), ["--claim-timeout", "1", "--jobs", "1"])
        }
        #expect(try run()["claimedElsewhere"] as? [String] == ["a.mp4"])
        // The claim beats; the temp file does not change (its writer waits for the others).
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: claim)
        usleep(1_500_000)
        let second = try run()
        #expect(second["claimedElsewhere"] as? [String] == ["a.mp4"] && second["removedTempFiles"] as? Int == 0, "\(second)")
        #expect(FileManager.default.fileExists(atPath: temp), "a live conversion's temp file was removed")
        usleep(1_500_000)
        let third = try run()
        #expect(third["converted"] as? [String] == ["a.mp4"] && third["removedTempFiles"] as? Int == 1, "\(third)")
        #expect(!FileManager.default.fileExists(atPath: temp))
    }

    @Test("two sources share one output (the poster by {stem}, the media by {name}): the second in byte order is refused (73) naming it, nothing of it written")
    func sharedOutput() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mkv", "a.mp4"])
        let text = Self.recipe.replacingOccurrences(of: "\"{stem}-a.mp4\"", with: "\"{name}-a.mp4\"").replacingOccurrences(of: "\"{stem}-b.mkv\"", with: "\"{name}-b.mkv\"")
        let run = try batch(try recipe(dir, text), input: dir.file("in"), output: dir.file("out"), status: 1)
        #expect(run["converted"] as? [String] == ["a.mkv"])
        let failed = try #require((run["failed"] as? [[String: Any]])?.first)
        #expect(failed["exitCode"] as? Int == 73)
        #expect(failed["error"] as? String == "a.mp4: its output a-poster.jpg is also the output of a.mkv: not converted (rename one of them, or put {ext} in the recipe's output name)")
        #expect(files(dir.file("out")) == ["a-poster.jpg", "a.mkv-a.mp4", "a.mkv-b.mkv"])
    }

    @Test("--output-dir equal to --input-dir: no output is taken for a source (two media outputs per source left out); --move-done moves each source once all its outputs are recorded")
    func sameFolder() throws {
        let dir = Scratch()
        try F.folder(dir.file("x"), ["a.mp4", "sub/b.mp4"])
        let r = try recipe(dir)
        let first = try batch(r, input: dir.file("x"), output: dir.file("x"))
        #expect((first["converted"] as? [String])?.sorted() == ["a.mp4", "sub/b.mp4"])
        let second = try batch(r, input: dir.file("x"), output: dir.file("x"), ["--move-done", dir.file("done")])
        #expect(second["converted"] as? [String] == [])
        #expect(second["alreadyDone"] as? Int == 2)
        #expect(second["ownOutputs"] as? Int == 4)
        #expect(files(dir.file("x")) == (Self.outputs("a") + Self.outputs("sub/b")).sorted())
        #expect(files(dir.file("done")) == ["a.mp4", "sub/b.mp4"])
        let third = try batch(r, input: dir.file("x"), output: dir.file("x"))
        #expect(third["converted"] as? [String] == [] && third["ownOutputs"] as? Int == 4 && third["alreadyDone"] as? Int == 0)
    }
}
