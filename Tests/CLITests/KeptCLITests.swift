import Foundation
import Pipeline
import Recipe
import Testing

/// What an output does not keep is said by `plan`, `run` and `batch`: warning lines, JSON
/// `warnings`, and the ledger's `done` entry.
@Suite("Kept, or said: warnings on the command line")
struct KeptCLITests {
    static let videoOnly = """
        recipe: 1
        output: "{stem}-v.mp4"
        reader: { outputs: { picture: { track: video } } }
        writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
        """
    static let notice = "track #1: audio aac \"SoundHandler\" is not written: no writer input takes it"

    func setUp(_ dir: Scratch) throws -> (recipe: String, clip: String) {
        let recipe = dir.file("v.yaml")
        try Self.videoOnly.write(toFile: recipe, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        let clip = dir.file("in/clip.mp4")
        try BatchFixture.clip(clip)
        BatchFixture.settle(dir.file("in"))
        return (recipe, clip)
    }

    @Test("plan and run say which source track is left out, in text and JSON")
    func planAndRun() throws {
        let dir = Scratch()
        let (recipe, clip) = try setUp(dir)
        let plan = try Binary.run(["plan", recipe, "-i", clip, "-o", dir.file("x.mp4")])
        #expect(plan.status == 0)
        #expect(plan.stdout.split(separator: "\n").last.map(String.init) == "warning: \(Self.notice)")
        let json = try Binary.run(["plan", recipe, "-i", clip, "-o", dir.file("x.mp4"), "--json"])
        let o = try #require(BatchFixture.json(json.stdout))
        let warnings = try #require(o["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(warnings.first?["kind"] as? String == "dropped")
        #expect(warnings.first?["item"] as? String == "track")
        #expect(warnings.first?["track"] as? Int == 1)
        #expect(warnings.first?["message"] as? String == "audio aac \"SoundHandler\" is not written: no writer input takes it")
        let run = try Binary.run(["run", recipe, "-i", clip, "-o", dir.file("x.mp4"), "--quiet"])
        #expect(run.status == 0)
        #expect(run.stderr == "warning: \(clip): \(Self.notice)\n")
    }

    @Test("batch lists each converted file's warnings after its summary, in JSON and in the ledger's done entry")
    func batch() throws {
        let dir = Scratch()
        let (recipe, _) = try setUp(dir)
        let r = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.last == "  warning: clip.mp4: \(Self.notice)")
        let done = BatchFixture.ledger(dir.file("out")).filter { $0.status == .done }
        #expect(done.map(\.warnings) == [[Self.notice]])

        try FileManager.default.removeItem(atPath: dir.file("out"))
        let j = try Binary.run(["batch", recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"])
        let o = try #require(BatchFixture.json(j.stdout))
        let warnings = try #require(o["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(warnings.first?["source"] as? String == "clip.mp4")
        #expect(warnings.first?["item"] as? String == "track")
        #expect(warnings.first?["track"] as? Int == 1)
        #expect(warnings.first?["message"] as? String == "audio aac \"SoundHandler\" is not written: no writer input takes it")
    }
}
