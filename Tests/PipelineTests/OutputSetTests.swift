import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A recipe's `outputs:`: several files from one read of one source.
@Suite("Several outputs from one read: decoded once, each as it would be alone, all or none")
struct OutputSetTests {
    /// Three renditions of a frame-stamped 30 fps source with marker bursts in its sound.
    static func recipe(_ dir: Scratch, overwrite: Bool = false) throws -> Recipe {
        let text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            outputs:
              - path: \(dir.file("big.mp4"))
                overwrite: \(overwrite)
                inputs:
                  - source: picture
                    settings: { codec: h264, codec-options: { preset: ultrafast } }
                  - source: sound
                    settings: { codec: aac, bitrate: 128k }
              - path: \(dir.file("mid.mp4"))
                overwrite: \(overwrite)
                inputs:
                  - source: picture
                    settings: { codec: h264, width: 256, height: 192, gop: 10, codec-options: { preset: ultrafast } }
                  - source: sound
                    settings: { codec: aac, bitrate: 64k, channels: 1 }
              - path: \(dir.file("small.mkv"))
                overwrite: \(overwrite)
                inputs:
                  - source: picture
                    settings: { codec: h264, width: 192, height: 144, frame-rate: 15, codec-options: { preset: ultrafast } }
            """
        return try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
    }

    static func source(_ dir: Scratch) throws -> String {
        let path = dir.file("src.mp4")
        try Media.make(path, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30)), frames: 90, audio: true)
        return path
    }

    @Test("three renditions: one reader, the 30 fps pictures and the sound decoded once, each output as the same settings make it alone")
    func renditions() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let recipe = try Self.recipe(dir)
        let outputs = try RecipeCompiler.compileAll(recipe, input: src)
        #expect(outputs.map(\.plan.outputPath) == ["big.mp4", "mid.mp4", "small.mkv"].map(dir.file))
        let session = ExportSession(plans: outputs.map(\.plan))
        let results = try session.runAll()
        // Pictures at 30 fps once (big, mid), at 15 fps once (small: another rate decodes apart),
        // the sound once (big, mid): three lanes for five output tracks, over one reader.
        #expect(session.lanesInLastRun == 3)
        #expect(session.mostOpenReaders == 1)
        #expect(OutputSet.lanes(outputs.map(\.plan)).map { $0.map { [$0.output, $0.track] } } == [[[0, 0], [1, 0]], [[0, 1], [1, 1]], [[2, 0]]])
        #expect(results.map(\.outputPath) == outputs.map(\.plan.outputPath))
        for r in results { #expect(r.lanes.allSatisfy { $0.packetsRead > 0 && $0.packetsWritten > 0 }, "\(r.outputPath)") }

        // Each output alone, with the same settings, into another folder.
        for (k, one) in recipe.eachOutput.enumerated() {
            let alone = dir.file("alone-\(k)." + (k == 2 ? "mkv" : "mp4"))
            try ExportSession(plan: try RecipeCompiler.compile(one, input: src, output: alone).plan).run()
            let shared = results[k].outputPath
            let (a, b) = (try Media.stamps(alone), try Media.stamps(shared))
            #expect(b.map(\.stamp) == a.map(\.stamp), "\(shared): the pictures differ from the same settings alone")
            #expect(b.map(\.pts) == a.map(\.pts), "\(shared): the picture times differ")
            if k < 2 {
                #expect(try Media.burstOnsets(shared) == Media.burstOnsets(alone), "\(shared): the sound moved")
            }
        }
        #expect(try Media.stamps(results[0].outputPath).map(\.stamp) == (0..<90).map { Optional($0) })
        #expect(try Media.stamps(results[2].outputPath).map(\.stamp) == stride(from: 0, to: 90, by: 2).map { Optional($0) })
        // ffprobe agrees with the plans on every output's size and rate.
        for (k, (c, r)) in zip(outputs, results).enumerated() {
            guard case .video(let v) = c.plan.lanes[0].kind else { Issue.record("no video"); continue }
            let probed = try #require(try FFprobe.stream(r.outputPath, "v:0", "width,height,r_frame_rate"), "ffprobe is missing")
            #expect(probed["width"] == "\(v.width)" && probed["height"] == "\(v.height)", "\(r.outputPath): \(probed)")
            #expect(probed["r_frame_rate"] == "\(k == 2 ? 15 : 30)/1", "\(r.outputPath): \(probed)")
        }
    }

    @Test("an output that cannot be moved into place: none of them stays, and what was there before is put back")
    func allOrNone() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        // New outputs: the third's name is taken while the run encodes (after the start's check).
        let plans = try RecipeCompiler.compileAll(try Self.recipe(dir), input: src).map(\.plan)
        let taken = dir.file("small.mkv")
        #expect(throws: MediaError.self) {
            try ExportSession(plans: plans).runAll { _ in
                if !FileManager.default.fileExists(atPath: taken) { _ = FileManager.default.createFile(atPath: taken, contents: Data("mine".utf8)) }
            }
        }
        #expect(dir.contents.sorted() == ["small.mkv", "src.mp4"], "\(dir.contents)")
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "mine")

        // Replacing outputs: the second becomes a folder meanwhile; the first keeps its old content.
        try FileManager.default.removeItem(atPath: taken)
        try Data("old big".utf8).write(to: URL(fileURLWithPath: dir.file("big.mp4")))
        let replacing = try RecipeCompiler.compileAll(try Self.recipe(dir, overwrite: true), input: src).map(\.plan)
        let blocked = dir.file("mid.mp4")
        do {
            _ = try ExportSession(plans: replacing).runAll { _ in
                if !FileManager.default.fileExists(atPath: blocked) {
                    try? FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
                }
            }
            Issue.record("the run succeeded over a folder")
        } catch {
            #expect(error.file == blocked && error.kind == .cannotCreateOutput, "\(error)")
        }
        #expect(try String(contentsOfFile: dir.file("big.mp4"), encoding: .utf8) == "old big")
        #expect(dir.contents.sorted() == ["big.mp4", "mid.mp4", "src.mp4"], "\(dir.contents)")
    }

    @Test("cancelled part way: no output at all")
    func cancelled() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let session = ExportSession(plans: try RecipeCompiler.compileAll(try Self.recipe(dir), input: src).map(\.plan))
        #expect(throws: MediaError.self) { try session.runAll { _ in session.cancel() } }
        #expect(dir.contents == ["src.mp4"], "\(dir.contents)")
    }
}
