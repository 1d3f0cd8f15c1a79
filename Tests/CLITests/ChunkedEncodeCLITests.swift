import Foundation
import Pipeline
import Recipe
import Testing

/// One output encoded in chunks (`parallel:`, `run --chunks`): chunks split on the output's
/// keyframe grid, encoded apart on several cores, joined without encoding again and checked.
/// The joined output shows exactly the frames, at exactly the times, of the same recipe encoded
/// in one piece; its sound is the same; each chunk starts with an IDR; it decodes cleanly; what
/// cannot be chunked is refused where it was asked; a killed run leaves its chunks to the next.
@Suite("reencode run with chunks: one output encoded in pieces and joined", .serialized)
struct ChunkedEncodeCLITests {
    static func recipe(output: String, codec: String = "h264", extra: String = "", parallel: String?, timing: String = "") -> String {
        """
        recipe: 1
        output: "{dir}/\(output)"
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: { codec: \(codec), quality: 28, codec-options: { preset: ultrafast }\(extra) } }
            - { source: sound, settings: aac-stereo }
        \(parallel.map { "parallel: \($0)\n" } ?? "")\(timing)
        """
    }

    static func run(_ dir: Scratch, _ text: String, _ src: String, _ more: [String] = []) throws -> Binary.Result {
        let recipe = dir.file("r.yaml")
        try text.write(toFile: recipe, atomically: true, encoding: .utf8)
        return try Binary.run(["run", recipe, "-i", src, "--quiet"] + more, timeLimit: 300, cwd: dir.path)
    }

    /// The chunked and the one-piece output of `recipe` (with `parallel` and without): both made,
    /// the same frames at the same times, the same sound; the chunked one decodes cleanly.
    static func compare(_ dir: Scratch, _ src: String, output: String, parallel: String, codec: String = "h264", extra: String = "",
                        timing: String = "") throws -> (chunked: String, whole: String) {
        let ext = (output as NSString).pathExtension
        let whole = try run(dir, recipe(output: "whole." + ext, codec: codec, extra: extra, parallel: nil, timing: timing), src)
        #expect(whole.status == 0, "\(whole.stderr)")
        let chunked = try run(dir, recipe(output: output, codec: codec, extra: extra, parallel: parallel, timing: timing), src)
        #expect(chunked.status == 0, "\(chunked.stderr)")
        let a = try CompositionRunCLITests.stamps(dir.file(output)), b = try CompositionRunCLITests.stamps(dir.file("whole." + ext))
        #expect(a.count == b.count)
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        #expect(try CompositionRunCLITests.burstOnsets(dir.file(output)) == CompositionRunCLITests.burstOnsets(dir.file("whole." + ext)))
        #expect(try CopiedCompositionCLITests.decodeErrors(dir.file(output)) == "")
        // The chunks' folder is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".reencode-tmp-") } == [])
        return (dir.file(output), dir.file("whole." + ext))
    }

    @Test("H.264 with a B-pyramid in 3 chunks: frames 0…359 at k/30 exactly as one encode shows them, the sound's bursts in place, an IDR at 0, 4 and 8 s where the chunks start, no error decoding; plan lists the chunks")
    func h264InThreeChunks() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 12)
        let (out, _) = try Self.compare(dir, src, output: "chunked.mp4", parallel: "{ chunks: 3 }")
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<360).map { Optional($0) })
        for (k, s) in stamps.enumerated() { #expect(s.pts == MediaTime(value: Int64(k), timescale: 30), "frame \(k) at \(s.pts)") }
        // Each chunk begins with a keyframe: the join put them at 0, 4 and 8 s (time base 1/15360).
        let keys = try CopiedCompositionCLITests.packets(out).filter(\.key).map(\.pts)
        for t in [4, 8] { #expect(keys.contains(keys[0] + t * 15360), "\(keys)") }

        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let chunks = plan.stdout.split(separator: "\n").drop { !$0.hasPrefix("chunks") }.prefix(4).map(String.init)
        #expect(chunks.count == 4 && chunks[0].hasPrefix("chunks   3 chunks of the video (360 pictures, split on the keyframe grid every 60 pictures), "), "\(plan.stdout)")
        #expect(Array(chunks.dropFirst()) == [
            "  chunk 1  [0.000s, 4.000s)  120 pictures  at 0.000s  ends: keyframe grid (every 60 pictures)",
            "  chunk 2  [4.000s, 8.000s)  120 pictures  at 4.000s  ends: keyframe grid (every 60 pictures)",
            "  chunk 3  [8.000s, 12.000s)  120 pictures  at 8.000s  ends: the end",
        ], "\(plan.stdout)")
    }

    @Test("HEVC into MKV at 24 fps from 30, trimmed to 1.3–10.7 s, in chunks of 2–3 s (auto): the same frames at the same times as one encode")
    func hevcConformTrimmed() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 12)
        let (out, _) = try Self.compare(dir, src, output: "chunked.mkv", parallel: "{ chunks: auto, shortest: 2s, longest: 3s }", codec: "hevc",
                                        extra: ", frame-rate: 24", timing: "session:\n  time-range: { start: 1.3s, end: 10.7s }\n")
        #expect(try CompositionRunCLITests.stamps(out).count == 226)
        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        let object = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let chunks = try #require((object?["chunks"] as? [String: Any])?["chunks"] as? [[String: Any]])
        #expect(chunks.count >= 3)
        #expect(chunks.map { $0["pictures"] as? Int ?? 0 }.reduce(0, +) == 226)
        // Every chunk but the last is 2–3 s long.
        for c in chunks.dropLast() {
            let length = (c["end"] as? Double ?? 0) - (c["start"] as? Double ?? 0)
            #expect(length >= 2 - 1e-9 && length <= 3 + 1e-9, "\(c)")
        }
    }

    @Test("refused where it is asked: a max-bitrate video at the recipe's parallel line (65), a composition with --chunks as a usage error (64), chunks: 0 at its value, nothing written")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 3)
        // A join cannot keep the VBV buffer (a bitrate alone is budgeted: ChunkBudgetCLITests).
        let capped = Self.recipe(output: "out.mp4", extra: ", max-bitrate: 600k", parallel: "{ chunks: 2 }")
        let r = try Self.run(dir, capped, src)
        #expect(r.status == 65)
        #expect(r.stderr.contains("r.yaml:11:11: error: the output cannot be encoded in chunks: its video has a max-bitrate (600 kb/s), whose buffer a join cannot keep: "
                                  + "each chunk's encoder starts with its buffer filled as told (vbv-init), but at a join the buffer holds what the chunk before left, "
                                  + "which no encoder option sets, so the joined stream could underrun it"), "\(r.stderr)")

        let composition = Self.recipe(output: "out.mp4", parallel: nil, timing: "composition:\n  video:\n    - { end: 1s }\n    - { start: 2s }\n")
        let c = try Self.run(dir, composition, src, ["--chunks", "2"])
        #expect(c.status == 64)
        #expect(c.stderr.contains("--chunks: the output cannot be encoded in chunks: it is a composition (one source's conversion is split)"), "\(c.stderr)")

        let zero = try Self.run(dir, Self.recipe(output: "out.mp4", parallel: "{ chunks: 0 }"), src)
        #expect(zero.status == 65)
        #expect(zero.stderr.contains("r.yaml:11:21: error: 'chunks' must be auto or a whole number from 1 to 100000, not '0'"), "\(zero.stderr)")
        let usage = try Self.run(dir, Self.recipe(output: "out.mp4", parallel: nil), src, ["--chunks", "many"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--chunks must be auto or a whole number from 1 to 100000, not 'many'"), "\(usage.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.mp4", "r.yaml"])
    }

    @Test("kill -9 while chunks are encoded: the chunks' folder stays; the next run removes it and writes the output whole")
    func killedRun() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 20)
        let recipe = dir.file("r.yaml")
        try Self.recipe(output: "out.mp4", parallel: "{ chunks: 10 }").replacingOccurrences(of: "preset: ultrafast", with: "preset: veryslow")
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let p = try Binary.start(["run", recipe, "-i", src, "--quiet"])
        // Under way: a chunk file exists in the chunks' folder.
        func folders() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".reencode-tmp-") } }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !folders().contains(where: { !((try? FileManager.default.contentsOfDirectory(atPath: dir.file($0))) ?? []).isEmpty }) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(p.0.processIdentifier, SIGKILL)
        _ = Binary.finish(p.0, p.1, p.2)
        #expect(p.0.terminationReason == .uncaughtSignal)
        #expect(folders().count == 1, "the kill left the chunks' folder behind")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 600, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(folders() == [])
        #expect(try CompositionRunCLITests.stamps(dir.file("out.mp4")).map(\.stamp) == Array(0..<600).map { Optional($0) })
    }

    @Test("a recipe with parallel: and several outputs is refused at parallel when planned (65), not when the run begins; nothing written")
    func severalOutputs() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 2)
        let recipe = dir.file("r.yaml")
        try """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
            outputs:
              - path: "{dir}/a.mp4"
                inputs:
                  - { source: picture, settings: { codec: h264, quality: 28 } }
              - path: "{dir}/poster.jpg"
                images: { source: picture, at: 1s }
            parallel: { chunks: 2 }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("r.yaml:11:11: error: the output cannot be encoded in chunks: the recipe makes 2 outputs, and chunks are encoded for a run's only output (make the others in a recipe of their own)"), "\(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.mp4", "r.yaml"])
    }
}
