import Foundation
import Pipeline
import Recipe
import Testing

private typealias F = BatchFixture

/// Issue 23, item 2: a batch whose outputs land under its own input folder (the same folder, by
/// any name, or the input inside the output) never takes them for sources.
@Suite("reencode batch: outputs under the input folder", .serialized)
struct BatchOwnOutputTests {
    func batch(input: String, output: String) throws -> [String: Any] {
        let r = try Binary.run(["batch", F.recipe, "--input-dir", input, "--output-dir", output, "--settle", "0", "--json"],
                               timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        return try #require(F.json(r.stdout), "\(r.stdout) \(r.stderr)")
    }

    /// Media files (not hidden) under `dir`.
    func media(_ dir: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir)!
        var found: [String] = []
        while let rel = e.nextObject() as? String {
            if FilePaths.name(of: rel).hasPrefix(".") { e.skipDescendants(); continue }
            if rel.hasSuffix(".mp4") { found.append(rel) }
        }
        return found.sorted()
    }

    /// Two runs: the first converts the source, the second finds its output and leaves it alone.
    func expectOneGeneration(input: String, output: String, ledgerAt: String, source: String, own: String, files: [String], in folder: String) throws {
        let first = try batch(input: input, output: output)
        #expect(first["converted"] as? [String] == [source])
        let second = try batch(input: input, output: output)
        #expect(second["converted"] as? [String] == [], "the output was taken for a source: \(second)")
        #expect(second["alreadyDone"] as? Int == 1)
        #expect(second["ownOutputs"] as? Int == 1)
        #expect(media(folder) == files)
        let entries = F.ledger(ledgerAt)
        #expect(entries.map(\.status) == [.started, .done])
        #expect(entries.allSatisfy { $0.source == source && $0.output == own })
        #expect(try F.frames(ledgerAt + "/" + own) == (0..<30).map { Optional($0) })
    }

    @Test("--output-dir equal to --input-dir: a-proxy.mp4 is made once, never a-proxy-proxy.mp4")
    func sameFolder() throws {
        let dir = Scratch()
        try F.folder(dir.file("x"), ["a.mp4"])
        try expectOneGeneration(input: dir.file("x"), output: dir.file("x"), ledgerAt: dir.file("x"), source: "a.mp4", own: "a-proxy.mp4",
                                files: ["a-proxy.mp4", "a.mp4"], in: dir.file("x"))
    }

    @Test("the output folder is the input folder through a symbolic link")
    func throughLink() throws {
        let dir = Scratch()
        try F.folder(dir.file("x"), ["sub/a.mp4"])
        try FileManager.default.createSymbolicLink(atPath: dir.file("out"), withDestinationPath: dir.file("x"))
        try expectOneGeneration(input: dir.file("x"), output: dir.file("out"), ledgerAt: dir.file("x"), source: "sub/a.mp4",
                                own: "sub/a-proxy.mp4", files: ["sub/a-proxy.mp4", "sub/a.mp4"], in: dir.file("x"))
    }

    @Test("the input folder inside the output folder: in/in/a.mp4's output lands in the input as a-proxy.mp4 and stays an output")
    func inputInsideOutput() throws {
        let dir = Scratch()
        try F.folder(dir.file("x/in"), ["in/a.mp4"])
        try expectOneGeneration(input: dir.file("x/in"), output: dir.file("x"), ledgerAt: dir.file("x"), source: "in/a.mp4",
                                own: "in/a-proxy.mp4", files: ["in/a-proxy.mp4", "in/in/a.mp4"], in: dir.file("x"))
    }
}
