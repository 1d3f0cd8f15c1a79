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
