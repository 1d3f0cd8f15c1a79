import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition's layers cost memory only while they show: a layer's file is opened (reader,
/// decoder, pictures) when its first picture is due, not at the start, and let go when it ends.
/// Counted by the reader pool (the most readers open at once), never by the process's memory.
@Suite("composition layers: opened only while they show")
struct LayerMemoryTests {
    /// A small H.264 clip: 96x64 at 30 fps, x264 ultrafast.
    static func clip(_ path: String, frames: Int, audio: Bool = false) throws {
        var v = GeneratedVideoFormat(width: 96, height: 64, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(path, video: v, frames: frames, audio: audio)
    }

    @Test("12 layers shown one after another over a base: at most 3 readers open at once, every layer read")
    func layersOpenWhenShown() throws {
        let dir = Scratch()
        try Self.clip(dir.file("base.mp4"), frames: 90)
        var sources = "sources:\n  base: \"{input}\"\n"
        var layers = ""
        for k in 0..<12 {
            try Self.clip(dir.file("l\(k).mp4"), frames: 9)
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
        // One core to divide: each layer, opened beside the base, decodes on one thread.
        let session = ExportSession(plan: compiled.plan, decoderCores: 1)
        let result = try session.run()
        #expect(session.mostOpenReaders >= 2 && session.mostOpenReaders <= 3, "\(session.mostOpenReaders) readers open at once")
        #expect(result.lanes[0].unitsOut == 90)
        // The base's 90 pictures and each layer's 7: every layer read when its time came, none
        // skipped, none read to its end (its 6 pictures shown and the one after, which ends it).
        // A frame-threaded decoder would also hand out the pictures it had in flight then, more
        // the more threads: 175 with 4 cores to divide, 187 with 8, 198 (all 9 a layer) with 16.
        #expect(result.lanes[0].framesDecoded == 90 + 12 * 7, "\(result.lanes[0].framesDecoded) pictures decoded")
    }

    @Test("8 layers shown at once: the base's decoder keeps FFmpeg's thread count, each layer's gets a share of the cores")
    func layersShareDecoderThreads() throws {
        let dir = Scratch()
        try Self.clip(dir.file("base.mp4"), frames: 30)
        try Self.clip(dir.file("layer.mp4"), frames: 30)
        let writer = "writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }"
        let reader = "reader: { outputs: { picture: { track: video } } }"
        // Alone: what FFmpeg chooses on this machine.
        let alone = try RecipeCompiler.compile(try RecipePlanErrorTests.recipe("recipe: 1\n\(reader)\n\(writer)\n"),
                                               input: dir.file("base.mp4"), output: dir.file("alone.mp4"))
        let lone = ExportSession(plan: alone.plan)
        try lone.run()
        let automatic = lone.mostDecoderThreads
        #expect(automatic >= 1)

        let layers = String(repeating: "    - { rect: { x: 0, y: 0, width: 50%, height: 50% }, segments: [ { source: layer, at: 0s, duration: 1s } ] }\n", count: 8)
        let text = """
            recipe: 1
            sources:
              base: "{input}"
              layer: \(dir.file("layer.mp4"))
            composition:
              video:
                - { source: base }
              layers:
            \(layers)\(reader)
            \(writer)
            """
        let compiled = try RecipeCompiler.compile(try RecipePlanErrorTests.recipe(text), input: dir.file("base.mp4"), output: dir.file("o.mp4"))
        let session = ExportSession(plan: compiled.plan)
        let result = try session.run()
        #expect(result.lanes[0].unitsOut == 30)
        #expect(result.lanes[0].framesDecoded == 9 * 30, "\(result.lanes[0].framesDecoded) pictures decoded")
        // Layer k opens beside k decoders: the cores divided among k + 1. Before the budget,
        // each of the 9 decoders held FFmpeg's automatic count.
        let cores = DecoderThreads().cores
        let shares = (1...8).map { Int(DecoderThreads.request(cores: cores, alreadyOpen: $0)) }
        #expect(session.mostDecoderThreads == automatic + shares.reduce(0, +),
                "\(session.mostDecoderThreads) decoder threads at once; automatic \(automatic), shares \(shares) of \(cores) cores")
        #expect(cores == 1 || session.mostDecoderThreads < 9 * automatic)
    }
}
