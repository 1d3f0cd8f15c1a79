import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition's layers cost memory only while they show: a layer's file is opened (reader,
/// decoder, pictures) when its first picture is due, not at the start, and let go when it ends.
/// Counted by the reader pool (the most readers open at once), never by the process's memory.
@Suite("composition layers: opened only while they show")
struct LayerMemoryTests {
    @Test("12 layers shown one after another over a base: at most 3 readers open at once, every layer read")
    func layersOpenWhenShown() throws {
        let dir = Scratch()
        var v = GeneratedVideoFormat(width: 96, height: 64, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(dir.file("base.mp4"), video: v, frames: 90)
        var sources = "sources:\n  base: \"{input}\"\n"
        var layers = ""
        for k in 0..<12 {
            try Media.make(dir.file("l\(k).mp4"), video: v, frames: 9)
            sources += "  l\(k): \(dir.file("l\(k).mp4"))\n"
            // Layer k: 0.2 s from 0.2·k s.
            layers += "    - { rect: { x: 0, y: 0, width: 50%, height: 50% }, segments: [ { source: l\(k), at: \(String(format: "%.1f", Double(k) * 0.2))s, duration: 0.2s } ] }\n"
        }
        let text = """
            recipe: 1
            \(sources)composition:
              video:
                - { source: base }
              layers:
            \(layers)reader: { outputs: { picture: { track: video } } }
            writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
            """
        let compiled = try RecipeCompiler.compile(try RecipePlanErrorTests.recipe(text), input: dir.file("base.mp4"), output: dir.file("o.mp4"))
        let session = ExportSession(plan: compiled.plan)
        let result = try session.run()
        #expect(session.mostOpenReaders >= 2 && session.mostOpenReaders <= 3, "\(session.mostOpenReaders) readers open at once")
        #expect(result.lanes[0].unitsOut == 90)
        // Every layer was read when its time came (its file's 9 pictures), none skipped.
        #expect(result.lanes[0].framesDecoded == 90 + 12 * 9, "\(result.lanes[0].framesDecoded) pictures decoded")
    }
}
