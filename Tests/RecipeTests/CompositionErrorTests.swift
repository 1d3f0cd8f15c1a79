import Recipe
import Testing

/// Mistakes in `sources:` and `composition:`: each an exact message at its line and column; what
/// has no effect is a warning, and the recipe stays valid.
@Suite("Compositions: errors and warnings at their place")
struct CompositionErrorTests {
    static let base = """
    recipe: 1
    source: in.mp4
    output: out.mp4
    sources:
      intro: intro.mp4
      clip: "{input}"
    composition:
      video:
        - { source: intro }
        - { source: clip, start: 1s, end: 3s }
    reader:
      outputs:
        picture: { track: video }
        sound: { track: audio, optional: true }
    writer:
      inputs:
        - { source: picture, settings: h264-1280x720 }
        - { source: sound, settings: aac-stereo }
    """

    /// `base` with lines replaced (1-based; "" blanks a line, keeping the numbering).
    static func with(_ changes: [Int: String]) -> String {
        var lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (n, text) in changes { lines[n - 1] = text }
        return lines.joined(separator: "\n")
    }

    static func with(line n: Int, _ text: String) -> String { with([n: text]) }

    /// (recipe text, its exact and only error headlines)
    static let bad: [(String, [String])] = [
        // Names.
        (with(line: 9, "    - { source: intor }"),
         ["r.yaml:9:17: error: segment 1 of the video track reads 'intor', which is not a source (did you mean 'intro'?)"]),
        (with(line: 9, "    - { end: 1s }"),
         ["r.yaml:9:7: error: segment 1 of the video track needs a 'source': one of intro, clip"]),
        (with([4: "", 5: "", 6: "", 9: "    - { source: main }", 10: "    - { start: 1s }"]),
         ["r.yaml:9:17: error: segment 1 of the video track reads 'main', which is not a source (without 'sources:' the one source is 'input', the input file)"]),
        (with(line: 9, "    - { source: \"\" }"),
         ["r.yaml:9:17: error: 'source' must name a source"]),
        (with(line: 9, "    - { source: intro, sped: 2 }"),
         ["r.yaml:9:24: error: unknown key 'sped' in segment 1 of the video track (did you mean 'speed'?)"]),
        (with(line: 8, "  vidoe:"),
         ["r.yaml:8:3: error: unknown key 'vidoe' in the composition (did you mean 'video'?)"]),
        // Speeds: malformed, out of range, too fine.
        (with(line: 10, "    - { source: clip, speed: 0 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '0'"]),
        (with(line: 10, "    - { source: clip, speed: -2 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '-2'"]),
        (with(line: 10, "    - { source: clip, speed: 64 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '64'"]),
        (with(line: 10, "    - { source: clip, speed: 1/33 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '1/33'"]),
        (with(line: 10, "    - { source: clip, speed: 1/0 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '1/0'"]),
        (with(line: 10, "    - { source: clip, speed: 99999999999999999999 }"),
         ["r.yaml:10:30: error: 'speed' must be from 1/32 to 32, not '99999999999999999999'"]),
        (with(line: 10, "    - { source: clip, speed: fast }"),
         ["r.yaml:10:30: error: 'speed' must be a number (2, 0.125) or a fraction (1/8), not 'fast'"]),
        (with(line: 10, "    - { source: clip, speed: 2s }"),
         ["r.yaml:10:30: error: 'speed' must be a number (2, 0.125) or a fraction (1/8), not '2s'"]),
        (with(line: 10, "    - { source: clip, speed: 0.1234567 }"),
         ["r.yaml:10:30: error: 'speed' must be a fraction whose terms are at most 1000000 once reduced, or a decimal of at most 6 places, not '0.1234567'"]),
        (with(line: 10, "    - { source: clip, speed: 1000001/1000000 }"),
         ["r.yaml:10:30: error: 'speed' must be a fraction whose terms are at most 1000000 once reduced, or a decimal of at most 6 places, not '1000001/1000000'"]),
        // Ranges and timing that contradict themselves.
        (with(line: 10, "    - { source: clip, start: 3s, end: 1s }"),
         ["r.yaml:10:39: error: 'end' (1.000s) must be after 'start' (3.000s)"]),
        (with(line: 10, "    - { source: clip, end: 0s }"),
         ["r.yaml:10:28: error: 'end' (0.000s) must be after 'start' (0.000s)"]),
        (with(line: 10, "    - { source: clip, end: 2s, duration: 1s }"),
         ["r.yaml:10:32: error: segment 2 of the video track takes 'end' or 'duration', not both"]),
        (with(line: 10, "    - { source: clip, duration: 0 }"),
         ["r.yaml:10:33: error: 'duration' must be longer than 0"]),
        (with(line: 10, "    - { source: clip, end: 2s, speed: 2, target-duration: 4s }"),
         ["r.yaml:10:42: error: segment 2 of the video track takes 'speed' or 'target-duration', not both"]),
        (with(line: 10, "    - { source: clip, target-duration: 0s }"),
         ["r.yaml:10:40: error: 'target-duration' must be longer than 0"]),
        (with(line: 10, "    - { source: clip, end: 1s, target-duration: 33s }"),
         ["r.yaml:10:49: error: 'target-duration' (33.000s) plays 1.000s of source slower than speed 1/32 (speeds go from 1/32 to 32)"]),
        (with(line: 10, "    - { source: clip, duration: 33s, target-duration: 1s }"),
         ["r.yaml:10:55: error: 'target-duration' (1.000s) plays 33.000s of source faster than speed 32 (speeds go from 1/32 to 32)"]),
        (with(line: 10, "    - { source: clip, slow-motion: from-source, speed: 1/2 }"),
         ["r.yaml:10:49: error: segment 2 of the video track plays the source's own slow motion ('slow-motion: from-source'), so it takes no 'speed'"]),
        (with(line: 10, "    - { source: clip, at: -1s }"),
         ["r.yaml:10:27: error: 'at' must be a time from 0 to 10000 hours (36000000s), not '-1s'"]),
        (with(line: 10, "    - { source: clip, start: soon }"),
         ["r.yaml:10:30: error: 'start' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not 'soon'"]),
        // Placements.
        (with([9: "    - { source: intro, end: 5s }", 10: "    - { source: clip, at: 2s, end: 1s }"]),
         ["r.yaml:10:27: error: segment 2 of the video track (2.000s to 3.000s on the timeline) overlaps segment 1 (0.000s to 5.000s): segments of one track never overlap"]),
        (with([9: "    - { source: intro, at: 4s, end: 2s }", 10: "    - { source: clip, at: 1s, end: 4s }"]),
         ["r.yaml:10:27: error: segment 2 of the video track (1.000s to 5.000s on the timeline) overlaps segment 1 (4.000s to 6.000s): segments of one track never overlap"]),
        // At 1/8 speed 1 s of source lasts 8 s on the timeline: a segment at 5 s falls inside it.
        (with([9: "    - { source: intro, end: 1s, speed: 1/8 }", 10: "    - { source: clip, at: 5s }"]),
         ["r.yaml:10:27: error: segment 2 of the video track (from 5.000s on the timeline) overlaps segment 1 (0.000s to 8.000s): segments of one track never overlap"]),
        // A segment that runs to its source's end covers at least its start.
        (with([9: "    - { source: intro, at: 2s }", 10: "    - { source: clip, at: 2s, end: 1s }"]),
         ["r.yaml:10:27: error: segment 2 of the video track (2.000s to 3.000s on the timeline) overlaps segment 1 (from 2.000s): segments of one track never overlap"]),
        (with(line: 10, "    - { source: clip, at: 36000000s, end: 1s }"),
         ["r.yaml:10:27: error: segment 2 of the video track ends at 36000001.000s on the timeline, past 10000 hours"]),
        // Tracks.
        (with(line: 10, "    - { source: clip, track: audio }"),
         ["r.yaml:10:30: error: segment 2 of the video track takes a video track, not 'audio'"]),
        (with(line: 10, "    - { source: clip, track: sound }"),
         ["r.yaml:10:30: error: 'track' must be video, video:N or \"#N\" (a stream index), not 'sound'"]),
        (with([8: "  video: []", 9: "", 10: ""]),
         ["r.yaml:8:10: error: 'video' has no segments: list at least one, or leave 'video' out"]),
        (with([8: "  slow-motion: from-source", 9: "", 10: ""]),
         ["r.yaml:7:1: error: the composition has no segments: give it a 'video:' or 'audio:' list of segments"]),
        (with([8: "  video: { source: clip }", 9: "", 10: ""]),
         ["r.yaml:8:10: error: 'video' must be a list of segments (- { source: …, start: …, end: … }), not a mapping: write the segment as a list item, or put it under 'segments'"]),
        // Values.
        (with(line: 9, "    - { source: intro, audio-stretch: spectal }"),
         ["r.yaml:9:39: error: 'audio-stretch' must be one of spectral, time-domain, varispeed, mute, not 'spectal' (did you mean 'spectral'?)"]),
        (with(line: 9, "    - { source: intro, slow-motion: form-source }"),
         ["r.yaml:9:37: error: 'slow-motion' must be from-source or none, not 'form-source' (did you mean 'from-source'?)"]),
        // Sources.
        (with(line: 6, "  clip: {input}"),
         ["r.yaml:6:9: error: source 'clip': write \"{input}\" in quotes (without them YAML reads {input} as a mapping)"]),
        (with(line: 6, "  clip: \"{input}.mov\""),
         ["r.yaml:6:9: error: '{input}' stands for the input file itself: it is the whole path of a source, not part of one (use {dir}, {stem}, {ext}, {name} for parts of the input's path)"]),
        (with(line: 5, "  intro: \"{dri}/intro.mp4\""),
         ["r.yaml:5:10: error: source 'intro' has an unknown token {dri} (tokens: {input} {stem} {ext} {dir} {name})"]),
        (with(line: 5, "  intro: \"{dir/intro.mp4\""),
         ["r.yaml:5:10: error: source 'intro' has a '{' without '}'"]),
        (with(line: 5, "  intro: [a.mp4]"),
         ["r.yaml:5:10: error: source 'intro' must be a path, not a list"]),
        (with(line: 5, "  intro: \"\""),
         ["r.yaml:5:10: error: source 'intro' needs a path"]),
        (with([4: "sources: {}", 5: "", 6: ""]),
         ["r.yaml:4:10: error: 'sources' names no source: give each source a name and a path"]),
        (with([7: "", 8: "", 9: "", 10: ""]),
         ["r.yaml:4:1: error: 'sources' are read by a composition: add 'composition:' with segments that use them"]),
        // The rest of the recipe with a composition.
        (base + "\nsession: { time-range: { start: 1s } }",
         ["r.yaml:19:24: error: 'time-range' cuts the one input; in a composition each segment has its own range ('start', 'end' or 'duration')"]),
        (with(line: 13, "    picture: { track: \"#0\" }"),
         ["r.yaml:13:5: error: reader output 'picture' reads the composition, whose tracks are 'video' and 'audio', not '#0'"]),
        (with(line: 13, "    picture: { track: video:1 }"),
         ["r.yaml:13:5: error: reader output 'picture' reads the composition, whose tracks are 'video' and 'audio', not 'video:1'"]),
        (with([8: "  audio:", 13: "    picture: { track: audio }", 14: "    sound: { track: video }"]),
         ["r.yaml:14:5: error: reader output 'sound' reads the composition's video track, but the composition has none"]),
    ]

    @Test("each mistake: its exact message at its line and column", arguments: 0..<bad.count)
    func mistake(_ i: Int) {
        let (text, expected) = Self.bad[i]
        #expect(recipeErrors(text) == expected)
    }

    @Test("gaps, touching ranges and placements out of list order are fine")
    func placementsThatFit() throws {
        let text = Self.with([9: "    - { source: intro, end: 2s }\n    - { source: clip, at: 5s, end: 1s }\n    - { source: clip, end: 1s }",
                              10: "    - { source: clip, at: 2s, start: 1s, end: 2s, speed: 1/3 }"])
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect(r.composition?.video?.segments.map { $0.at?.value } == [nil, MediaTime(seconds: 5), nil, MediaTime(seconds: 2)])
        #expect(r.warnings.isEmpty)
        // One tick more and the slowed segment (2 s to 5 s) runs into the one at 5 s.
        let over = Self.with([9: "    - { source: intro, end: 2s }\n    - { source: clip, at: 5s, end: 1s }",
                              10: "    - { source: clip, at: 2s, start: 1s, end: 2.000001s, speed: 1/3 }"])
        #expect(recipeErrors(over) == ["r.yaml:11:27: error: segment 3 of the video track (2.000s to 5.000s on the timeline) overlaps segment 2 (5.000s to 6.000s): segments of one track never overlap"])
    }

    @Test("a segment that runs to its source's end may be followed by one placed later: its length is known with the source")
    func openThenPlaced() throws {
        let r = try RecipeParser.parse(Self.with([9: "    - { source: intro }", 10: "    - { source: clip, at: 12s, end: 1s }"]), file: "r.yaml").get()
        #expect(r.composition?.video?.segments.map { $0.at?.value } == [nil, MediaTime(seconds: 12)])
    }

    @Test("the base recipe is valid, without warnings")
    func baseIsValid() throws {
        let r = try RecipeParser.parse(Self.base, file: "r.yaml").get()
        #expect(r.warnings.isEmpty)
        #expect(r.readsInput)
        // Without "{input}" among the sources the input is not read (and `source:` is said to be unused).
        let fixed = try RecipeParser.parse(Self.with(line: 6, "  clip: clip.mp4"), file: "r.yaml").get()
        #expect(!fixed.readsInput)
        // Without `sources:` the one source is the input.
        #expect(try RecipeParser.parse(Self.with([4: "", 5: "", 6: "", 9: "    - { end: 1s }", 10: "    - { start: 2s }"]), file: "r.yaml").get().readsInput)
        #expect(r.composition?.video?.segments.count == 2)
    }

    /// (recipe text, its exact warning headlines; the recipe is valid)
    static let warned: [(String, [String])] = [
        (with([4: "sources: { intro: intro.mp4, clip: \"{input}\", outro: outro.mp4 }", 5: "", 6: ""]),
         ["r.yaml:4:47: warning: source 'outro' is not used by any segment"]),
        (with(line: 6, "  clip: clip.mp4"),
         ["r.yaml:2:9: warning: 'source' is not read: no entry of 'sources' is \"{input}\""]),
        (with(line: 10, "    - { source: clip, audio-stretch: mute }"),
         ["r.yaml:10:38: warning: 'audio-stretch' has no effect: segment 2 of the video track plays at speed 1"]),
        (with(line: 10, "    - { source: clip, speed: 1.0, audio-stretch: mute }"),
         ["r.yaml:10:50: warning: 'audio-stretch' has no effect: segment 2 of the video track plays at speed 1"]),
        (with(line: 10, "    - { source: clip, end: 2s, target-duration: 2s, audio-stretch: mute }"),
         ["r.yaml:10:68: warning: 'audio-stretch' has no effect: segment 2 of the video track plays at speed 1"]),
        (with([10: "    - { source: clip }\n  audio:\n    - { source: clip }", 14: "", 18: ""]),
         ["r.yaml:12:5: warning: the composition's audio track is not read by any reader output"]),
    ]

    @Test("what has no effect is a warning at its place; the recipe is valid", arguments: 0..<warned.count)
    func warning(_ i: Int) throws {
        let (text, expected) = Self.warned[i]
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect(r.warnings.map(\.headline) == expected)
        #expect(r.warnings.allSatisfy { $0.severity == .warning })
    }

    @Test("stretch on a scaled segment, or one slowed by the source's own slow motion, is no warning")
    func stretchInEffect() throws {
        for line in ["    - { source: clip, speed: 1/2, audio-stretch: mute }",
                     "    - { source: clip, end: 1s, target-duration: 2s, audio-stretch: varispeed }",
                     "    - { source: clip, slow-motion: from-source, audio-stretch: time-domain }"] {
            #expect(try RecipeParser.parse(Self.with(line: 10, line), file: "r.yaml").get().warnings.isEmpty, "\(line)")
        }
    }

    @Test("a warning renders like an error, with its caret")
    func warningRendering() throws {
        let r = try RecipeParser.parse(Self.with(line: 10, "    - { source: clip, audio-stretch: mute }"), file: "r.yaml").get()
        #expect(r.warnings.map(\.description) == ["""
            r.yaml:10:38: warning: 'audio-stretch' has no effect: segment 2 of the video track plays at speed 1
                - { source: clip, audio-stretch: mute }
                                                 ^
            """])
    }
}
