import Recipe
import Testing

/// `outputs:` — several files from one read.
@Suite("Recipes with several outputs: each its own path and tracks; the mistakes at their lines")
struct OutputsParseTests {
    static let head = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }

        """

    @Test("each output is its own path, format and writer inputs; a reader output feeds one input of each")
    func parsed() throws {
        let text = Self.head + """
            outputs:
              - path: a.mp4
                inputs:
                  - { source: picture, settings: h264-1280x720 }
                  - { source: sound }
              - path: b.mkv
                format: mkv
                overwrite: true
                inputs:
                  - { source: picture }
            """
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect(r.outputs.map(\.spec.path?.value) == ["a.mp4", "b.mkv"])
        #expect(r.outputs.map(\.writerInputs.count) == [2, 1])
        #expect(r.outputs[1].spec.format?.value == .mkv && r.outputs[1].spec.overwrite && !r.outputs[0].spec.overwrite)
        let each = r.eachOutput
        #expect(each.map(\.output.path?.value) == ["a.mp4", "b.mkv"])
        #expect(each.map { $0.writerInputs.map(\.source.value) } == [["picture", "sound"], ["picture"]])
        #expect(each.allSatisfy { $0.outputs.isEmpty })
    }

    @Test("mistakes: output and writer beside outputs, a missing path or inputs, one path twice, an empty list, a composition")
    func mistakes() {
        let cases: [(String, [String])] = [
            ("output: x.mp4\noutputs:\n  - { path: a.mp4, inputs: [ { source: picture } ] }\n  - { path: b.mp4, inputs: [ { source: sound } ] }",
             ["r.yaml:6:1: error: 'output' and 'outputs' cannot both be given: name each file's 'path' in 'outputs'"]),
            ("writer: { inputs: [ { source: picture } ] }\noutputs:\n  - { path: a.mp4, inputs: [ { source: sound } ] }",
             ["r.yaml:6:1: error: with 'outputs', each output lists its own 'inputs': 'writer' has no place"]),
            ("outputs:\n  - { inputs: [ { source: picture } ] }\n  - { path: b.mp4, inputs: [ { source: sound } ] }",
             ["r.yaml:7:5: error: output 1 needs a 'path' (each output of 'outputs' is a file of its own)"]),
            ("outputs:\n  - { path: a.mp4 }\n  - { path: b.mp4, inputs: [ { source: picture }, { source: sound } ] }",
             ["r.yaml:7:5: error: output 1 needs 'inputs' (its tracks: - { source: …, settings: … })"]),
            ("outputs:\n  - { path: a.mp4, inputs: [ { source: picture }, { source: sound } ] }\n  - { path: a.mp4, inputs: [ { source: picture } ] }",
             ["r.yaml:8:13: error: output 2 has the same path as output 1 ('a.mp4'): each output is a file of its own"]),
            ("outputs: []", ["r.yaml:6:10: error: 'outputs' lists no output: add at least one (- { path: …, inputs: [ … ] })"]),
            ("outputs: a.mp4", ["r.yaml:6:10: error: 'outputs' must be a list of outputs (- { path: …, inputs: [ … ] }), not 'a.mp4'"]),
            ("outputs:\n  - { path: a.mp4, inputs: [ { source: picture }, { source: picture } ] }\n  - { path: b.mp4, inputs: [ { source: sound } ] }",
             ["r.yaml:7:61: error: reader output 'picture' feeds writer inputs 1 and 2; each reader output feeds one input"]),
            ("outputs:\n  - { path: a.mp4, inputs: [ { source: picture } ] }",
             ["r.yaml:5:5: error: reader output 'sound' is not used by any writer input"]),
        ]
        for (tail, expected) in cases {
            #expect(recipeErrors(Self.head + tail) == expected, "\(tail)")
        }
        let composed = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
            outputs:
              - { path: a.mp4, inputs: [ { source: picture } ] }
              - { path: b.mp4, inputs: [ { source: picture } ] }
              - { path: "s-{n}.jpg", images: { source: picture, count: 3 } }
            composition:
              video:
                segments:
                  - { source: input, start: 0s, duration: 1s }
            """
        // Several files of one composition are fine, and stills of it; but only the frame on
        // display at an instant: a composition has no keyframes to tolerate.
        #expect(recipeErrors(composed) == [])
        let keyframe = composed.replacingOccurrences(of: "count: 3 }", with: "count: 3, tolerance: keyframe }")
        #expect(recipeErrors(keyframe) == [
            "r.yaml:8:74: error: the images of output 3 are of the composition, whose pictures are drawn frame by frame: a tolerance other than 'exact' has no meaning for them (no keyframe of the composition lies near an instant); leave out 'tolerance'"])
        let window = composed.replacingOccurrences(of: "count: 3 }", with: "count: 3, tolerance: \"0.5s,1s\" }")
        #expect(recipeErrors(window).first?.hasPrefix("r.yaml:8:74: error: the images of output 3 are of the composition") == true)
    }

    @Test("an image output: its reader output, instants, tolerance, size, sheet; a reader output feeding only stills is used")
    func images() throws {
        let text = Self.head + """
            outputs:
              - path: a.mp4
                inputs: [ { source: sound } ]
              - path: "thumbs/{stem}-{n}.jpg"
                overwrite: true
                images: { source: picture, at: [1.5s, "25%", 00:01:02.5], tolerance: "0.5s,2s", size: 320x180, quality: 70 }
              - path: board.png
                images: { source: picture, every: 2s, tiles: 10x10, storyboard: true }
              - path: "c-{time}.webp"
                images: { source: picture, at: "1s,2s", tolerance: keyframe }
            """
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect(r.eachOutput.map(\.output.path?.value) == ["a.mp4"])
        #expect(r.imageOutputs.map(\.number) == [2, 3, 4])
        let a = try #require(r.imageOutputs[0].images)
        #expect(a.source.value == "picture" && r.imageOutputs[0].spec.overwrite)
        #expect(a.times == .at([.time(MediaTime(value: 3, timescale: 2)), .percent(MediaTime(seconds: 25)), .time(MediaTime(value: 625, timescale: 10))]))
        #expect(a.tolerance == .window(before: MediaTime(value: 1, timescale: 2), after: MediaTime(seconds: 2)))
        #expect(a.box?.width == 320 && a.box?.height == 180 && a.quality == 70 && a.tiles == nil && !a.storyboard)
        #expect((a.timesMark.line, a.timesMark.column) == (11, 36))
        let b = try #require(r.imageOutputs[1].images)
        #expect(b.times == .every(MediaTime(seconds: 2)) && b.tiles?.columns == 10 && b.tiles?.rows == 10 && b.storyboard && b.tolerance == .exact)
        let c = try #require(r.imageOutputs[2].images)
        #expect(c.times == .at([.time(MediaTime(seconds: 1)), .time(MediaTime(seconds: 2))]) && c.tolerance == .keyframe)
    }

    @Test("image output mistakes, each at its line: the format, names, when, the reader output, keys of a media file")
    func imageMistakes() {
        let file = "  - { path: a.mp4, inputs: [ { source: sound } ] }\n"
        let cases: [(String, [String])] = [
            ("  - { path: s.gif, images: { source: picture, at: 1s } }",
             ["r.yaml:8:13: error: output 2 is still images, and '.gif' names no image format: use .jpg, .png or .webp"]),
            ("  - { path: s, images: { source: picture, at: 1s } }",
             ["r.yaml:8:13: error: output 2 is still images: end its path in .jpg, .png or .webp to name the image format"]),
            ("  - { path: s.jpg, images: { source: picture, at: [1s, 2s] } }",
             ["r.yaml:8:13: error: output 2 makes 2 stills, and its path names them all the same file: put {n} in it"]),
            ("  - { path: s.jpg, images: { source: picture, count: 4 } }",
             ["r.yaml:8:13: error: output 2 makes 4 stills, and its path names them all the same file: put {n} in it"]),
            ("  - { path: \"s-{n}.jpg\", images: { source: picture, count: 4, tiles: 2x2 } }",
             ["r.yaml:8:13: error: a contact sheet is one file: {n} and {time} have nothing to name in its path"]),
            ("  - { path: s.jpg, images: { source: picture, at: 1s, storyboard: true } }",
             ["r.yaml:8:67: error: a storyboard is one picture of tiles: say how many with 'tiles' (10x10)"]),
            ("  - { path: s.png, images: { source: picture, at: 1s, quality: 50 } }",
             ["r.yaml:8:64: error: 'quality' is for JPEG and WebP: PNG is lossless"]),
            ("  - { path: s.jpg, images: { source: picture } }",
             ["r.yaml:8:28: error: 'images' of output 2 needs a time: 'at' (1.5s, 25%), 'every' (10s) or 'count' (20)"]),
            ("  - { path: s.jpg, images: { source: picture, at: 1s, every: 2s } }",
             ["r.yaml:8:62: error: 'images' of output 2 says when once: 'at', 'every' or 'count', not two of them"]),
            ("  - { path: s.jpg, images: { source: picture, at: [1s, 2x] } }",
             ["r.yaml:8:56: error: '2x' in 'at' is not a time from 0 to 10000 hours (36000000s) or a share of the duration (1.5s, 00:01:02.5, 25%)"]),
            ("  - { path: s.jpg, images: { source: picture, at: 120% } }",
             ["r.yaml:8:51: error: '120%' in 'at' is not a time from 0 to 10000 hours (36000000s) or a share of the duration (1.5s, 00:01:02.5, 25%)"]),
            ("  - { path: s.jpg, images: { source: pictur, at: 1s } }",
             ["r.yaml:4:5: error: reader output 'picture' is not used by any writer input or images",
              "r.yaml:8:38: error: the images of output 2 are of 'pictur', which is not a reader output (did you mean 'picture'?)"]),
            ("  - { path: s.jpg, images: { source: sound, at: 1s } }\n  - { path: b.mp4, inputs: [ { source: picture } ] }",
             ["r.yaml:8:38: error: the images of output 2 are of 'sound', which reads the audio track: stills are of a video track"]),
            ("  - { path: s.jpg, format: mp4, images: { source: picture, at: 1s } }",
             ["r.yaml:8:20: error: output 2 is still images ('images'): 'format' has no place in it (the extension names the image format)"]),
            ("  - { path: \"s-{frame}.jpg\", images: { source: picture, at: 1s } }",
             ["r.yaml:8:13: error: 'path' has an unknown token {frame} (tokens: {stem} {ext} {dir} {name} {n} {time})"]),
            ("  - { path: s.jpg, images: { source: picture, at: 1s, size: 320 } }",
             ["r.yaml:8:61: error: 'size' must be two whole numbers from 2 to 16384 joined by x (320x180), not '320'"]),
        ]
        for (tail, expected) in cases {
            #expect(recipeErrors(Self.head + "outputs:\n" + file + tail) == expected, "\(tail)")
        }
        // {n} in a media file's path is no token of its.
        #expect(recipeErrors(Self.head + "outputs:\n  - { path: \"a-{n}.mp4\", inputs: [ { source: picture }, { source: sound } ] }")
                == ["r.yaml:7:13: error: 'path' has an unknown token {n} (tokens: {stem} {ext} {dir} {name})"])
    }
}
