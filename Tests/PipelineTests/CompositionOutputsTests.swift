import Foundation
@testable import Pipeline
import Recipe
import Testing

/// `outputs:` with a composition: the timeline is played once — read, cut, drawn and mixed by
/// the first output's lanes — and every output encodes what it makes, each as the same settings
/// make it alone. What cannot share that play is refused at the recipe line that asks for it.
@Suite("Several outputs of one composition: played once, each as it would be alone")
struct CompositionOutputsTests {
    /// 3 s of frame-stamped 30 fps pictures with tone bursts at 0.5 s and 2.5 s.
    static func source(_ dir: Scratch) throws -> String {
        let path = dir.file("src.mp4")
        try Media.make(path, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30)), frames: 90, audio: true,
                       markers: Media.Markers(firstMarker: 15, markerEvery: 60))
        return path
    }

    /// A recipe reading `picture` and `sound` of `composition`, writing `outputs`.
    static func recipe(_ dir: Scratch, composition: String, outputs: String, sources: String = "") throws -> Recipe {
        let text = """
            recipe: 1
            \(sources)
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            composition:
            \(composition)
            outputs:
            \(outputs)
            """
        return try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
    }

    /// The 1 s–2 s section cut out: 0–1 s and 2–3 s joined.
    static let cutOut = """
          video:
            - { end: 1s }
            - { start: 2s }
        """

    static func outputs(_ dir: Scratch, first: String = "", second: String = "width: 160, height: 120, ") -> String {
        """
          - path: \(dir.file("big.mp4"))
            inputs:
              - { source: picture, settings: { codec: h264, \(first)codec-options: { preset: ultrafast } } }
              - { source: sound, settings: { codec: aac, bitrate: 128k } }
          - path: \(dir.file("small.mkv"))
            inputs:
              - { source: picture, settings: { codec: h264, \(second)codec-options: { preset: ultrafast } } }
              - { source: sound, settings: { codec: aac, bitrate: 64k, channels: 1 } }
        """
    }

    /// Each output's pictures, picture times and sound the same as its settings make alone.
    static func expectAsAlone(_ recipe: Recipe, source: String, results: [ConversionResult], dir: Scratch, sound: Bool = true) throws {
        for (k, one) in recipe.eachOutput.enumerated() {
            let alone = dir.file("alone-\(k)." + FilePaths.pathExtension(of: results[k].outputPath))
            try ExportSession(plan: try RecipeCompiler.compile(one, input: source, output: alone).plan).run()
            let shared = results[k].outputPath
            let (a, b) = (try Media.stamps(alone), try Media.stamps(shared))
            #expect(b.map(\.stamp) == a.map(\.stamp), "\(shared): the pictures differ from the same settings alone")
            #expect(b.map(\.pts) == a.map(\.pts), "\(shared): the picture times differ")
            if sound { #expect(try Media.burstOnsets(shared) == Media.burstOnsets(alone), "\(shared): the sound moved") }
        }
    }

    @Test("a cut written twice: one lane per composition track plays the timeline for both outputs; each shows 0–1 s and 2–3 s, in sync, as alone")
    func cut() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let recipe = try Self.recipe(dir, composition: Self.cutOut, outputs: Self.outputs(dir))
        let outputs = try RecipeCompiler.compileAll(recipe, input: src)
        let session = ExportSession(plans: outputs.map(\.plan))
        let results = try session.runAll()
        // The pictures and the sound, each played once for both outputs.
        #expect(session.lanesInLastRun == 2)
        #expect(OutputSet.lanes(outputs.map(\.plan)).map { $0.map { [$0.output, $0.track] } } == [[[0, 0], [1, 0]], [[0, 1], [1, 1]]])
        let expected = Array(0..<30) + Array(60..<90)
        for r in results {
            #expect(try Media.stamps(r.outputPath).map(\.stamp) == expected.map { Optional($0) }, "\(r.outputPath)")
            // The bursts at 0.5 s and 2.5 s of the source: 0.5 s and 1.5 s of the cut.
            let onsets = try Media.burstOnsets(r.outputPath)
            #expect(onsets.count == 2 && abs(onsets[0] - 0.5) < 0.002 && abs(onsets[1] - 1.5) < 0.002, "\(r.outputPath): \(onsets)")
        }
        let probed = try #require(try FFprobe.stream(results[1].outputPath, "v:0", "width,height"), "ffprobe is missing")
        #expect(probed["width"] == "160" && probed["height"] == "120", "\(probed)")
        try Self.expectAsAlone(recipe, source: src, results: results, dir: dir)
    }

    @Test("two files joined, each fitted into every output's size, with a second file's sound mixed under: both outputs as alone, one lane per track")
    func joinedAndMixed() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let other = dir.file("other.mp4")
        try Media.make(other, video: GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30)), frames: 60, audio: true,
                       markers: Media.Markers(firstMarker: 45, markerEvery: 60))
        let composition = """
              video:
                - { source: clip, end: 1s }
                - { source: other }
              mix:
                - segments:
                    - { source: other }
                  volume: -6dB
            """
        let sources = "sources:\n  clip: \"{input}\"\n  other: \(other)"
        let recipe = try Self.recipe(dir, composition: composition, outputs: Self.outputs(dir), sources: sources)
        let outputs = try RecipeCompiler.compileAll(recipe, input: src)
        let session = ExportSession(plans: outputs.map(\.plan))
        let results = try session.runAll()
        #expect(session.lanesInLastRun == 2)
        // 0–1 s of the clip, then the other file's 2 s (its own stamps 0–59).
        for r in results {
            #expect(try Media.stamps(r.outputPath).map(\.stamp) == (Array(0..<30) + Array(0..<60)).map { Optional($0) }, "\(r.outputPath)")
            // The clip's burst at 0.5 s; the other file's at 1.5 s, twice: in its own sound at
            // 1 s + 1.5 s and mixed under from 0 s.
            let onsets = try Media.burstOnsets(r.outputPath)
            #expect(onsets.count == 3 && abs(onsets[0] - 0.5) < 0.002 && abs(onsets[1] - 1.5) < 0.002 && abs(onsets[2] - 2.5) < 0.002,
                    "\(r.outputPath): \(onsets)")
        }
        try Self.expectAsAlone(recipe, source: src, results: results, dir: dir)
    }

    /// A red inset over the bottom right quarter of the source, all along.
    static func inset(_ dir: Scratch) throws -> String {
        let inset = dir.file("inset.mp4")
        try LayerRenderTests.solid(inset, Self.red, frames: 90)
        return """
              video:
                - { source: clip }
              layers:
                - rect: { x: 50%, y: 50%, width: 50%, height: 50% }
                  segments:
                    - { source: inset }
            """
    }

    static let red = Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false)
    static func sources(_ dir: Scratch) -> String { "sources:\n  clip: \"{input}\"\n  inset: \(dir.file("inset.mp4"))" }

    @Test("layers drawn once on the first output's canvas; the smaller output is that canvas scaled: the source's pictures as alone, the inset at its place in both")
    func layers() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let recipe = try Self.recipe(dir, composition: try Self.inset(dir), outputs: Self.outputs(dir), sources: Self.sources(dir))
        let outputs = try RecipeCompiler.compileAll(recipe, input: src)
        let session = ExportSession(plans: outputs.map(\.plan))
        let results = try session.runAll()
        #expect(session.lanesInLastRun == 2)
        for r in results {
            let pictures = try LayerRenderTests.planes(r.outputPath)
            #expect(pictures.count == 90, "\(r.outputPath)")
            for p in pictures {
                // The middle of the bottom right quarter: the inset's red (±3 code values).
                let (x, y, w, h) = (p.width * 5 / 8, p.height * 5 / 8, p.width / 4, p.height / 4)
                let cx = x * p.chromaWidth / p.width, cy = y * p.chromaHeight / p.height
                let cw = w * p.chromaWidth / p.width, ch = h * p.chromaHeight / p.height
                let got = [p.mean(p.y, x: x, y: y, width: w, height: h, planeWidth: p.width),
                           p.mean(p.cb, x: cx, y: cy, width: cw, height: ch, planeWidth: p.chromaWidth),
                           p.mean(p.cr, x: cx, y: cy, width: cw, height: ch, planeWidth: p.chromaWidth)]
                #expect(zip(got, Self.red).allSatisfy { abs($0 - Double($1)) <= 3 }, "\(r.outputPath): \(got), not \(Self.red)")
            }
            #expect(try Media.stamps(r.outputPath).map(\.stamp) == (0..<90).map { Optional($0) }, "\(r.outputPath)")
        }
        try Self.expectAsAlone(recipe, source: src, results: results, dir: dir)
    }

    @Test("what cannot share the first output's play is refused at the writer input that asks for it: another frame rate or sample rate, a track the first output lacks, a canvas larger than the first's")
    func refusals() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        func refusal(_ outputs: String, composition: String = Self.cutOut, sources: String = "") throws -> [String] {
            let recipe = try Self.recipe(dir, composition: composition, outputs: outputs, sources: sources)
            do {
                _ = try RecipeCompiler.compileAll(recipe, input: src)
                return []
            } catch let e as RecipeErrors {
                return e.diagnostics.map { $0.description.components(separatedBy: "\n")[0] }
            }
        }
        let r = dir.file("r.yaml")
        let rate = try refusal(Self.outputs(dir, second: "frame-rate: 15, "))
        #expect(rate == [
            "\(r):18:38: error: output 2's video is at 15 fps, output 1's at the sources' rate: the outputs of a composition show its pictures at one frame rate"])
        let rates = Self.outputs(dir).replacingOccurrences(of: "bitrate: 64k, channels: 1", with: "sample-rate: 44100")
        let sampleRate = try refusal(rates)
        #expect(sampleRate == [
            "\(r):19:36: error: output 2's audio is at 44100 Hz, output 1's at 48000 Hz: the outputs of a composition mix its sound at one sample rate"])
        let videoFirst = """
              - path: \(dir.file("pictures.mp4"))
                inputs:
                  - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
              - path: \(dir.file("both.mp4"))
                inputs:
                  - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
                  - { source: sound, settings: { codec: aac } }
            """
        let lacking = try refusal(videoFirst)
        #expect(lacking == [
            "\(r):18:36: error: output 2 writes the composition's audio, which output 1 does not: output 1 plays the composition for every output, so it writes every track another output writes"])
        let larger = Self.outputs(dir, first: "width: 160, height: 120, ", second: "")
        let canvas = try refusal(larger, composition: try Self.inset(dir), sources: Self.sources(dir))
        #expect(canvas == [
            "\(r):23:38: error: output 2's video is 320x240, larger than output 1's 160x120, the canvas the composition's layers are drawn on once for every output: list the largest output first"])
        // Nothing was written by the refused recipes.
        #expect(dir.contents.sorted() == ["inset.mp4", "src.mp4"], "\(dir.contents)")
    }
}
