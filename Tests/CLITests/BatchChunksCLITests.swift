import Foundation
import Pipeline
import Recipe
import Testing

private typealias F = BatchFixture

/// One long file on many machines: a batch recipe with `parallel:` has its chunks claimed and
/// encoded by every run that reaches the file (here two "hosts" side by side, and a run killed
/// mid-chunk then run again), each chunk exactly once, and the run that finds them all in place
/// joins them. The joined output shows exactly the frames, at the times, of the recipe encoded
/// in one piece; nothing is left behind (chunk folder, temp files, chunk claims).
@Suite("reencode batch with chunks shared between runs", .serialized)
struct BatchChunksCLITests {
    /// `ChunkedEncodeCLITests`' recipe (stamped pictures in H.264, the sound in AAC) named for a batch.
    static func writeRecipe(_ dir: Scratch, parallel: String?, preset: String = "ultrafast") throws -> String {
        let path = dir.file(parallel == nil ? "whole.yaml" : "chunked.yaml")
        try ChunkedEncodeCLITests.recipe(output: "{dir}/{stem}-joined.mp4", parallel: parallel)
            .replacingOccurrences(of: "preset: ultrafast", with: "preset: \(preset)")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func batch(_ recipe: String, _ dir: Scratch, host: String) throws -> (Process, Pipe, Pipe) {
        try Binary.start(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1", "--json"],
                         environment: ["REENCODE_HOSTNAME": host])
    }

    /// The ledger's chunk lines' numbers, sorted.
    static func chunkLines(_ out: String) -> [Int] {
        F.ledger(out).filter { $0.status == .chunk }.compactMap(\.chunk).sorted()
    }

    /// Nothing of the chunked encode is left: no chunk folder, no chunk claim, no temp file.
    static func expectClean(_ out: String) {
        let chunks = (try? FileManager.default.contentsOfDirectory(atPath: out + "/.reencode/chunks")) ?? []
        #expect(chunks == [], "chunk folders left: \(chunks)")
        let claims = ((try? FileManager.default.contentsOfDirectory(atPath: out + "/.reencode/claims")) ?? []).filter { $0.contains("-chunk-") }
        #expect(claims == [], "chunk claims left: \(claims)")
        let temps = ((try? FileManager.default.subpathsOfDirectory(atPath: out)) ?? []).filter { $0.contains(TempMarker.text) }
        #expect(temps == [], "temp files left: \(temps)")
    }

    /// The same frames at the same times (and the same sound) as the recipe encoded in one piece by `run`.
    static func expectSameAsWhole(_ joined: String, source: String, _ dir: Scratch) throws {
        let whole = try Binary.run(["run", try writeRecipe(dir, parallel: nil), "-i", source, "-o", dir.file("whole.mp4"), "--quiet"],
                                   timeLimit: 300, cwd: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        let a = try CompositionRunCLITests.stamps(joined), b = try CompositionRunCLITests.stamps(dir.file("whole.mp4"))
        #expect(a.count == b.count)
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        #expect(try CompositionRunCLITests.burstOnsets(joined) == CompositionRunCLITests.burstOnsets(dir.file("whole.mp4")))
        #expect(try CopiedCompositionCLITests.decodeErrors(joined) == "")
    }

    @Test("two hosts at once on one 12 s file in 6 chunks: each chunk encoded once between them (ledger and JSON), one joins, the output is the one-piece encode's frames and times; a rerun does nothing")
    func twoHosts() throws {
        let dir = Scratch()
        let src = dir.file("in/long.mp4")
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try SmartRenderCLITests.makeSource(src, seconds: 12)
        F.settle(dir.file("in"))
        let recipe = try Self.writeRecipe(dir, parallel: "{ chunks: 6 }")
        let a = try Self.batch(recipe, dir, host: "a")
        let b = try Self.batch(recipe, dir, host: "b")
        let ra = Binary.finish(a.0, a.1, a.2), rb = Binary.finish(b.0, b.1, b.2)
        #expect(ra.status == 0 && rb.status == 0, "\(ra.stderr) \(rb.stderr)")
        let reports = try [ra, rb].map { try #require(F.json($0.stdout), "\($0.stdout) \($0.stderr)") }
        let encoded = reports.flatMap { ($0["chunks"] as? [[String: Any]] ?? []).compactMap { $0["chunk"] as? Int } }.sorted()
        #expect(encoded == Array(1...6), "the runs' chunks between them: \(encoded)")
        #expect(reports.flatMap { $0["converted"] as? [String] ?? [] } == ["long.mp4"], "one run joins")
        let out = dir.file("out")
        #expect(Self.chunkLines(out) == Array(1...6))
        #expect(F.ledger(out).filter { $0.status == .chunk }.allSatisfy { $0.chunks == 6 && $0.output == "long-joined.mp4" && ($0.seconds ?? 0) > 0 })
        #expect(F.ledger(out).filter { $0.status == .done }.map(\.source) == ["long.mp4"])
        Self.expectClean(out)
        try Self.expectSameAsWhole(dir.file("out/long-joined.mp4"), source: src, dir)

        let lines = F.ledger(out).count
        let again = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--json"], timeLimit: 120,
                                   environment: ["REENCODE_HOSTNAME": "b"])
        let report = try #require(F.json(again.stdout))
        #expect(report["alreadyDone"] as? Int == 1 && (report["chunks"] as? [Any])?.isEmpty == true)
        #expect(F.ledger(out).count == lines)
    }

    @Test("kill -9 mid-chunk, then a rerun: the killed chunk's temp file removed, every chunk recorded exactly once, the output whole and the one-piece encode's; nothing left")
    func killedMidChunk() throws {
        let dir = Scratch()
        let src = dir.file("in/long.mp4")
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try SmartRenderCLITests.makeSource(src, seconds: 20)
        F.settle(dir.file("in"))
        let recipe = try Self.writeRecipe(dir, parallel: "{ chunks: 10 }", preset: "veryslow")
        let out = dir.file("out")
        let p = try Self.batch(recipe, dir, host: "a")
        // Under way: a chunk recorded, and another one's temp file being written.
        func temps() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: out + "/.reencode/chunks")) ?? []).filter { $0.contains(TempMarker.text) }
        }
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, Self.chunkLines(out).isEmpty || temps().isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        kill(p.0.processIdentifier, SIGKILL)
        _ = Binary.finish(p.0, p.1, p.2)
        let before = Self.chunkLines(out)
        try #require(!before.isEmpty && before.count < 10, "killed after \(before) were recorded")
        #expect(!temps().isEmpty, "the kill left a chunk's temp file")
        #expect(!FileManager.default.fileExists(atPath: out + "/long-joined.mp4"))

        let r = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--json"], timeLimit: 900,
                               environment: ["REENCODE_HOSTNAME": "a"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let report = try #require(F.json(r.stdout))
        let encoded = (report["chunks"] as? [[String: Any]] ?? []).compactMap { $0["chunk"] as? Int }.sorted()
        #expect((before + encoded).sorted() == Array(1...10), "before the kill \(before), after \(encoded)")
        #expect(Self.chunkLines(out) == Array(1...10))
        #expect(F.ledger(out).filter { $0.status == .done }.map(\.source) == ["long.mp4"])
        Self.expectClean(out)
        #expect(try CompositionRunCLITests.stamps(out + "/long-joined.mp4").map(\.stamp) == Array(0..<600).map { Optional($0) })
    }
}

extension BatchChunksCLITests {
    @Test("a source replaced (mtime kept) while its chunks are encoded: not joined, the run fails naming why, its chunks go; the next run converts the new file")
    func replacedSource() throws {
        let dir = Scratch()
        let src = dir.file("in/long.mp4")
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try SmartRenderCLITests.makeSource(src, seconds: 20)
        try SmartRenderCLITests.makeSource(dir.file("other.mp4"), seconds: 16)
        F.settle(dir.file("in"))
        F.settle(dir.path)
        let recipe = try Self.writeRecipe(dir, parallel: "{ chunks: 10 }", preset: "veryslow")
        let out = dir.file("out")
        let p = try Self.batch(recipe, dir, host: "a")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, Self.chunkLines(out).isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        // Another file renamed into place with the same (old) mtime: --settle does not see it.
        try #require(rename(dir.file("other.mp4"), src) == 0)
        let r = Binary.finish(p.0, p.1, p.2)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let failed = try #require(F.json(r.stdout)?["failed"] as? [[String: Any]])
        #expect(failed.map { $0["error"] as? String } == ["\(src): the source changed while its chunks were encoded: they are discarded and not joined (a later run converts it again)"])
        #expect(!FileManager.default.fileExists(atPath: out + "/long-joined.mp4"))
        Self.expectClean(out)

        let again = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--json"], timeLimit: 900,
                                   environment: ["REENCODE_HOSTNAME": "a"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(try CompositionRunCLITests.stamps(out + "/long-joined.mp4").map(\.stamp) == Array(0..<480).map { Optional($0) })
        Self.expectClean(out)
    }

    @Test("a source that fails in its last chunk (cut short), given up after --max-attempts 1: its finished chunks are removed with it")
    func givenUp() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        let whole = dir.file("whole.mp4"), src = dir.file("in/cut.mp4")
        try SmartRenderCLITests.makeSource(whole, seconds: 12)
        // The index first, then half the samples: the chunks past the cut cannot be read.
        let moved = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-y", "-i", whole, "-c", "copy", "-movflags", "+faststart", dir.file("fast.mp4")])
        try #require(moved.status == 0, "\(moved.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: dir.file("fast.mp4")))
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: src))
        F.settle(dir.file("in"))
        let recipe = try Self.writeRecipe(dir, parallel: "{ chunks: 6 }")
        let r = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json", "--max-attempts", "1"],
                               timeLimit: 300, environment: ["REENCODE_HOSTNAME": "a"])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let failed = try #require(F.json(r.stdout)?["failed"] as? [[String: Any]])
        #expect(failed.count == 1 && (failed.first?["error"] as? String)?.contains("chunk ") == true, "\(failed)")
        #expect(!Self.chunkLines(dir.file("out")).isEmpty, "some chunks were encoded before the cut")
        Self.expectClean(dir.file("out"))
    }
}

/// The temp-name marker outputs carry until they are whole (`.NAME.reencode-tmp-HOST-PID-TOKEN`).
enum TempMarker {
    static let text = ".reencode-tmp-"
}
