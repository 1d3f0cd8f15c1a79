import Foundation
import Pipeline
import Recipe
import Testing

/// Where a chunked encode splits (`ChunkSplits`, `SceneCuts`): on the keyframe grid, at scene
/// cuts where one is near the chunk's target length; `plan` says why each chunk ends there and
/// predicts the wall time; `run` reports each chunk's measured encode.
@Suite("reencode plan and run with chunks: splits at scene cuts, predicted and measured times", .serialized)
struct ChunkScenesCLITests {
    /// Four "scenes" of flat grey levels (changing at 3, 6.5 and 10 s: frames 90, 195, 300) under
    /// the frame-stamp band, 12 s at 30 fps, a keyframe every second, with silent sound.
    static func makeScenes(_ path: String) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat(width: 320, height: 180, frameRate: rate)
        video.gop = 30
        video.codecOptions = ["preset": "ultrafast", "x264-params": "scenecut=0"]
        let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat())
        let levels = [40, 200, 90, 160], cuts = [90, 195, 300]
        for i in 0..<360 {
            let level = levels[cuts.count { i >= $0 }]
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { p in
                TestPattern.draw(index: i, into: p)
                p.fill(plane: 0, x: 0, y: 22, width: 320, height: 158, value: level)
            }
            try s.appendAudio(count: 1600) { _, _ in 0 }
        }
        try s.finish()
    }

    static let bounds = "{ chunks: auto, shortest: 2s, longest: 6s }"

    static func planJSON(_ dir: Scratch, _ src: String) throws -> [String: Any] {
        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        return try #require(object?["chunks"] as? [String: Any])
    }

    @Test("scenes changing at 3, 6.5 and 10 s on a 0.5 s grid: the chunks end there (plan says 'scene cut' with its difference), the last at the end; the joined output shows frames 0…359 as the one-piece encode; run reports each chunk's time")
    func splitsAtSceneCuts() throws {
        let dir = Scratch()
        let src = dir.file("scenes.mp4")
        try Self.makeScenes(src)
        _ = try ChunkedEncodeCLITests.compare(dir, src, output: "chunked.mp4", parallel: Self.bounds, extra: ", gop: 15")
        #expect(try CompositionRunCLITests.stamps(dir.file("chunked.mp4")).map(\.stamp) == Array(0..<360).map { Optional($0) })

        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let lines = plan.stdout.split(separator: "\n").map(String.init)
        let chunks = lines.filter { $0.hasPrefix("  chunk ") }
        #expect(chunks.count == 4, "\(plan.stdout)")
        let expected = ["  chunk 1  [0.000s, 3.000s)  90 pictures  at 0.000s  ends: scene cut (difference ",
                        "  chunk 2  [3.000s, 6.500s)  105 pictures  at 3.000s  ends: scene cut (difference ",
                        "  chunk 3  [6.500s, 10.000s)  105 pictures  at 6.500s  ends: scene cut (difference ",
                        "  chunk 4  [10.000s, 12.000s)  60 pictures  at 10.000s  ends: the end"]
        for (line, start) in zip(chunks, expected) { #expect(line.hasPrefix(start), "\(plan.stdout)") }
        #expect(lines.contains { $0.hasPrefix("  scene cuts looked for at ") && $0.hasSuffix(", 3 chosen") }, "\(plan.stdout)")
        #expect(lines.contains { $0.hasPrefix("  predicted: ") && $0.contains(" in one piece, from libx264 ultrafast at 106 megapixels per core-second") },
                "\(plan.stdout)")

        let object = try Self.planJSON(dir, src)
        let each = try #require(object["chunks"] as? [[String: Any]])
        #expect(each.map { $0["end"] as? Double } == [3, 6.5, 10, 12])
        // The cuts' differences: the levels change by 160, 110 and 70 below the band (~88 % of the picture).
        let differences = each.map { $0["difference"] as? Int }
        #expect(differences.dropLast().allSatisfy { ($0 ?? 0) >= 50 } && differences.last! == nil, "\(differences)")
        #expect(differences[0]! > differences[1]! && differences[1]! > differences[2]!, "\(differences)")
        let predicted = try #require(object["predicted"] as? [String: Any])
        let encodes = predicted["encodes"] as? Double ?? 0, join = predicted["join"] as? Double ?? 0
        #expect(encodes > 0 && join > 0 && abs((predicted["chunked"] as? Double ?? 0) - encodes - join) < 1e-9, "\(predicted)")
        #expect((predicted["onePiece"] as? Double ?? 0) > 0, "\(predicted)")

        // The run reports each chunk's measured encode: JSON in its done line, one line in text.
        try FileManager.default.removeItem(atPath: dir.file("chunked.mp4"))
        let run = try Binary.run(["run", dir.file("r.yaml"), "-i", src, "--progress", "json"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        let last = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        let done = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let times = try #require(done["chunks"] as? [String: Any], "\(last)")
        let measured = try #require(times["each"] as? [[String: Any]])
        #expect(measured.map { $0["number"] as? Int } == [1, 2, 3, 4])
        let workers = times["workers"] as? Int ?? 0
        #expect(workers >= 1 && measured.allSatisfy { ($0["worker"] as? Int).map { (0..<workers).contains($0) } == true })
        let wall = times["wall"] as? Double ?? 0
        for c in measured {
            let start = c["start"] as? Double ?? -1, seconds = c["seconds"] as? Double ?? 0
            #expect(start >= 0 && seconds > 0 && start + seconds <= wall + 1e-6, "\(c) wall \(wall)")
        }
        try FileManager.default.removeItem(atPath: dir.file("chunked.mp4"))
        let text = try Binary.run(["run", dir.file("r.yaml"), "-i", src], timeLimit: 300, cwd: dir.path)
        #expect(text.stdout.contains("\nchunks: 4 encoded by \(workers) worker"), "\(text.stdout)")
    }

    @Test("a source without cuts (moving stripes, every picture unlike the last) splits as before: every chunk but the last ends on the grid, none at a cut")
    func noCutsSplitsOnTheGrid() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 12)
        try ChunkedEncodeCLITests.recipe(output: "out.mp4", extra: ", gop: 15", parallel: Self.bounds)
            .write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let object = try Self.planJSON(dir, src)
        let each = try #require(object["chunks"] as? [[String: Any]])
        #expect(each.count >= 2)
        #expect(each.allSatisfy { $0["difference"] is NSNull }, "\(each)")
        #expect(each.dropLast().allSatisfy { ($0["why"] as? String) == "keyframe grid (every 15 pictures)" }, "\(each)")
        #expect((object["placesMeasured"] as? Int ?? 0) > 0 && (object["placesUnmeasured"] as? Int) == 0, "\(object)")
    }
}
