import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Image outputs in a recipe's `outputs:` beside renditions: the stills take their frames from
/// the renditions' decode (one read, one decode), each still shows the frame on display at its
/// instant, read back from the picture; instants count from the recipe's time range; a frame
/// the shared decode does not hand over is decoded on its own; one failing output leaves none.
@Suite("Stills beside renditions in one recipe: one decode, the right frames, all or none")
struct RecipeStillsTests {
    /// 90 frame-stamped pictures at 30 fps, a sync sample every 15 (no scene cut adds one), with sound.
    static func source(_ dir: Scratch) throws -> StillImageTests.Source {
        var video = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        video.gop = 15
        video.codecOptions = ["x264-params": "scenecut=0"]
        let path = dir.file("src.mp4")
        try Media.make(path, video: video, frames: 90, audio: true)
        return try StillImageTests.Source(existing: path, times: frameTimes(90, rate: FrameRate(frames: 30)))
    }

    static func recipe(_ dir: Scratch, images: String, range: String = "", small: Bool = true) throws -> Recipe {
        var text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            outputs:
              - path: \(dir.file("big.mp4"))
                inputs:
                  - source: picture
                    settings: { codec: h264, codec-options: { preset: ultrafast } }
                  - source: sound
                    settings: { codec: aac, bitrate: 128k }
              - path: \(dir.file("mid.mp4"))
                inputs:
                  - source: picture
                    settings: { codec: h264, width: 256, height: 192, codec-options: { preset: ultrafast } }

            """
        if small {
            text += """
                  - path: \(dir.file("small.mkv"))
                    inputs:
                      - source: picture
                        settings: { codec: h264, width: 192, height: 144, frame-rate: 15, codec-options: { preset: ultrafast } }

                """
        }
        text += images + range
        return try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
    }

    @Test("three renditions and ten stills: one reader, the pictures decoded once for two renditions and every still, each still the frame on display at its instant")
    func sharedDecode() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let recipe = try Self.recipe(dir, images: """
              - path: \(dir.file("stills/{n}.jpg"))
                images: { source: picture, at: [0, 0.51s, 25%, 1.5s, 2s, 2.99s, 100%] }
              - path: \(dir.file("sheet.png"))
                images: { source: picture, count: 3, tiles: 3x1, size: 160x120 }

            """)
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        #expect(compiled.files.count == 3 && compiled.images.map(\.number) == [4, 5])
        let plans = compiled.files.map(\.plan), stills = compiled.images.map(\.plan)
        // The stills ride the first lane: the 30 fps pictures big and mid share.
        #expect(OutputSet.stillFeeds(plans, stills: stills) == [0, 0])
        let session = ExportSession(plans: plans, stills: stills)
        try session.runAll()
        // Pictures at 30 fps once (big, mid and the stills), at 15 fps once (small), the sound once.
        #expect(session.lanesInLastRun == 3)
        #expect(session.mostOpenReaders == 1)
        #expect(session.stillPacketsDecodedAlone == 0)
        try StillImageTests.checkStills(stills[0], source, tolerance: .exact)
        #expect(stills[0].stills.map(\.shown) == [0, 15, 22, 45, 60, 89, 89].map { source.times[$0] })
        // The sheet: the middle of each third (0.5 s, 1.5 s, 2.5 s) in its tile.
        let sheet = try SampleReader(path: dir.file("sheet.png"), track: .type(.video, 0))
        let picture = try #require(try sheet.nextPicture())
        #expect(picture.width == 480 && picture.height == 120)
        for (k, frame) in [15, 45, 75].enumerated() {
            #expect(picture.stamp(x: k * 160, y: 0, width: 160, height: 120) == frame, "tile \(k)")
        }
        // The renditions are what they are alone.
        #expect(try Media.stamps(dir.file("big.mp4")).map(\.stamp) == (0..<90).map { Optional($0) })
        #expect(try Media.stamps(dir.file("small.mkv")).map(\.stamp) == stride(from: 0, to: 90, by: 2).map { Optional($0) })
    }

    @Test("a time range: instants count from its start, its end shows its last frame; a keyframe still whose sync sample lies before the range is decoded on its own")
    func timeRange() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let recipe = try Self.recipe(dir, images: """
              - path: \(dir.file("s-{n}.jpg"))
                images: { source: picture, at: [0, 0.5s, 100%] }
              - path: \(dir.file("k.jpg"))
                images: { source: picture, at: 0.1s, tolerance: keyframe }

            """, range: """
            session:
              time-range: { start: 1.1s, duration: 1s }

            """, small: false)
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        let stills = compiled.images.map(\.plan)
        // 1.1 s is frame 33; the range's last frame is 62 (63 starts at its end, 2.1 s).
        #expect(stills[0].stills.map(\.shown) == [33, 48, 62].map { source.times[$0] - source.times[33] })
        // The sync sample nearest 1.2 s is frame 30 (1.0 s), before the range.
        #expect(stills[1].stills[0].shown == source.times[30] - source.times[33] && stills[1].stills[0].isKeyframe,
                "\(stills[1].stills[0].shown), keyframe \(stills[1].stills[0].isKeyframe), sync samples \(source.syncTimes)")
        let session = ExportSession(plans: compiled.files.map(\.plan), stills: stills)
        try session.runAll()
        for (still, frame) in zip(stills[0].stills, [33, 48, 62]) {
            #expect(try StillImageTests.stamp(still.path).stamp == frame, "\(still.asked)")
        }
        #expect(try StillImageTests.stamp(dir.file("k.jpg")).stamp == 30)
        // Frame 30 alone: its sync sample, one packet.
        #expect(session.stillPacketsDecodedAlone == 1)
    }

    @Test("a still time outside what the recipe reads: refused at its line, naming the time and the length")
    func outsideRefused() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let recipe = try Self.recipe(dir, images: """
              - path: \(dir.file("s-{n}.jpg"))
                images: { source: picture, at: [0.5s, 1.2s] }

            """, range: """
            session:
              time-range: { start: 2s }

            """, small: false)
        do {
            _ = try RecipeCompiler.compileOutputs(recipe, input: source.path)
            Issue.record("compiled")
        } catch let e as RecipeErrors {
            #expect(e.diagnostics.map(\.description) == [
                "\(dir.file("r.yaml")):18:36: error: \(source.path): the time 1.200s is outside the time range read (2.000s to 3.000s of the source), which lasts 1.000s\n"
                    + "    images: { source: picture, at: [0.5s, 1.2s] }\n" + String(repeating: " ", count: 35) + "^"])
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("s-1.jpg")))
    }

    @Test("one output that cannot be written: no output at all, renditions and stills")
    func allOrNone() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let recipe = try Self.recipe(dir, images: """
              - path: \(dir.file("d/{n}/still.jpg"))
                images: { source: picture, at: [0.5s, 1s] }

            """, small: false)
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: false)
        // After the plan, the second still's folder becomes a file.
        _ = FileManager.default.createFile(atPath: dir.file("d/2"), contents: Data())
        do throws(MediaError) {
            try ExportSession(plans: compiled.files.map(\.plan), stills: compiled.images.map(\.plan)).runAll()
            Issue.record("the run did not fail")
        } catch {
            #expect(error.kind == .cannotCreateOutput && error.file == dir.file("d/2/still.jpg"), "\(error)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["d", "src.mp4"], "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("d")) == ["2"])
    }

    @Test("stills only (a storyboard of 10 columns): as many rows as the stills fill, each tile its frame, the cues cover the source; decoded on their own")
    func storyboardOnly() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
            outputs:
              - path: \(dir.file("{stem}-board.jpg"))
                images: { source: picture, every: 0.25s, tiles: 5, size: 80x60, storyboard: true }
            """
        let recipe = try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        #expect(compiled.files.isEmpty)
        let plan = try #require(compiled.images.first?.plan)
        // 0, 0.25 … 2.75 s: 12 stills, 5 to a row: 3 rows.
        #expect(plan.stills.count == 12 && plan.sheet?.columns == 5 && plan.sheet?.rows == 3)
        try StillRun(plans: [plan]).run()
        let sheet = try #require(try SampleReader(path: dir.file("src-board.jpg"), track: .type(.video, 0)).nextPicture())
        #expect((sheet.width, sheet.height) == (400, 180))
        for still in plan.stills {
            let tile = try #require(still.tile)
            let frame = source.frameShown(at: still.requested)
            #expect(sheet.stamp(x: tile.x, y: tile.y, width: tile.width, height: tile.height) == frame, "still \(still.number)")
        }
        let vtt = try String(contentsOfFile: dir.file("src-board.vtt"), encoding: .utf8)
        #expect(vtt.hasSuffix("\n00:00:02.750 --> 00:00:03.000\nsrc-board.jpg#xywh=80,120,80,60\n"), "\(vtt)")
    }

    @Test("a stop part way (once the stills' first frames went by): no output at all, no temp file, no folder made")
    func stopPartWay() throws {
        let dir = Scratch()
        let source = try Self.source(dir)
        let recipe = try Self.recipe(dir, images: """
              - path: \(dir.file("stills/{n}.jpg"))
                images: { source: picture, at: [0.1s, 2.9s] }

            """, small: false)
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        let session = ExportSession(plans: compiled.files.map(\.plan), stills: compiled.images.map(\.plan))
        do throws(MediaError) {
            try session.runAll { p in if p.fraction > 0.5 { session.cancel() } }
            Issue.record("the run was not stopped")
        } catch {
            #expect(error.kind == .cancelled, "\(error)")
        }
        #expect(dir.contents.sorted() == ["src.mp4"], "\(dir.contents)")
    }

    @Test("Matroska with a B-frame pyramid, a rendition beside: the stills, exact and keyframe, show their frames from the rendition's decode")
    func pyramidShared() throws {
        let dir = Scratch()
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 25))
        v.gop = 24
        v.codecOptions = ["preset": "ultrafast", "bf": "3", "b-pyramid": "normal", "x264-params": "b-adapt=0:scenecut=0"]
        let source = try StillImageTests.Source(dir.file("pyramid.mkv"), video: v, times: frameTimes(100, rate: FrameRate(frames: 25)))
        #expect(source.decodeOrder.map(\.pts) != source.decodeOrder.map(\.pts).sorted(), "the source reorders its pictures")
        let text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
            outputs:
              - path: \(dir.file("out.mp4"))
                inputs: [ { source: picture, settings: { codec: h264, width: 160, height: 90, codec-options: { preset: ultrafast } } } ]
              - path: \(dir.file("e-{n}.png"))
                images: { source: picture, at: [0.46s, 1.3s, 2.02s, 3.5s, 3.96s] }
              - path: \(dir.file("k-{n}.jpg"))
                images: { source: picture, at: [0.46s, 1.3s, 2.02s, 3.5s, 3.96s], tolerance: keyframe }
            """
        let recipe = try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: source.path)
        let stills = compiled.images.map(\.plan)
        let session = ExportSession(plans: compiled.files.map(\.plan), stills: stills)
        try session.runAll()
        #expect(session.stillPacketsDecodedAlone == 0)
        try StillImageTests.checkStills(stills[0], source, tolerance: .exact)
        try StillImageTests.checkStills(stills[1], source, tolerance: .keyframe)
    }
}
