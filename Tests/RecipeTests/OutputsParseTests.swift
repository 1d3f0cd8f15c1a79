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
            composition:
              video:
                segments:
                  - { source: input, start: 0s, duration: 1s }
            """
        #expect(recipeErrors(composed).contains("r.yaml:5:1: error: a composition writes one output: use 'output' and 'writer' (several outputs read one file)"))
    }
}
