import Foundation
import Recipe
import Testing

/// `mix:`, `volume` and `limit` in a composition: the model they make, and each mistake at its
/// line and column.
@Suite("Compositions: the audio mix in a recipe")
struct MixParseTests {
    static let base = """
    recipe: 1
    output: out.mp4
    sources:
      clip: "{input}"
      music: music.m4a
    composition:
      video:
        - { source: clip }
      mix:
        - volume: -12dB
          segments:
            - { source: music, end: 30s }
      limit: soft
    reader:
      outputs:
        picture: { track: video }
        sound: { track: audio }
    writer:
      inputs:
        - { source: picture, settings: h264-1280x720 }
        - { source: sound, settings: aac-stereo }
    """

    static func with(_ changes: [Int: String]) -> String {
        var lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (n, text) in changes { lines[n - 1] = text }
        return lines.joined(separator: "\n")
    }

    @Test("the base recipe: one mix input at -12 dB of its 30 s of music, the soft limit; no warnings")
    func model() throws {
        let r = try RecipeParser.parse(Self.base, file: "r.yaml").get()
        #expect(r.warnings.isEmpty)
        let c = try #require(r.composition)
        #expect(c.mix.count == 1 && c.mix[0].layer == 1 && c.mix[0].segments.count == 1)
        #expect(abs((c.mix[0].volume?.constant ?? 0) - pow(10, -12.0 / 20)) < 1e-12)
        #expect(c.limit?.value == .soft)
        #expect(c.mix[0].segments[0].source.value == "music")
    }

    @Test("ramps: in order, each with its curve; an audio list as a mapping with its own volume")
    func ramps() throws {
        let text = Self.with([10: "    - volume:\n        - { start: 0s, end: 2s, from: 0, to: 0.5, curve: equal-power }\n        - { start: 10s, duration: 1.5s, from: 0.5, to: 0, curve: ease-in-out }",
                              13: "  audio:\n    volume: 2\n    segments:\n      - { source: clip }"])
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        let c = try #require(r.composition)
        let ramps = try #require(c.mix.first?.volume?.ramps)
        #expect(ramps.map(\.curve) == [.equalPower, .easeInOut])
        #expect(ramps.map(\.end) == [MediaTime(seconds: 2), MediaTime(value: 23, timescale: 2)])
        #expect(c.explicitAudio?.volume?.constant == 2)
        #expect(c.limit == nil)
    }

    static let bad: [(String, [String])] = [
        (with([10: "    - volume: loud"]),
         ["r.yaml:10:15: error: 'volume' must be a number from 0 to 16, or decibels from -120dB to +24dB, not 'loud'"]),
        (with([10: "    - volume: +30dB"]),
         ["r.yaml:10:15: error: 'volume' must be a number from 0 to 16, or decibels from -120dB to +24dB, not '+30dB'"]),
        (with([10: "    - volume: -0.5"]),
         ["r.yaml:10:15: error: 'volume' must be a number from 0 to 16, or decibels from -120dB to +24dB, not '-0.5'"]),
        (with([10: "    - volume: [{ start: 2s, end: 1s, from: 0, to: 1 }]"]),
         ["r.yaml:10:34: error: ramp 1 of 'volume' must end after it starts (2.000s)"]),
        (with([10: "    - volume: [{ start: 0s, end: 2s, from: 0, to: 1 }, { start: 1s, end: 3s, from: 1, to: 0 }]"]),
         ["r.yaml:10:65: error: ramp 2 of 'volume' starts at 1.000s, before ramp 1 ends (2.000s): ramps are listed in order and never overlap"]),
        (with([10: "    - volume: [{ start: 0s, from: 0, to: 1 }]"]),
         ["r.yaml:10:16: error: ramp 1 of 'volume' needs 'end'"]),
        (with([10: "    - volume: [{ start: 0s, end: 1s, from: 0, to: 1, curve: cubic }]"]),
         ["r.yaml:10:61: error: 'curve' must be one of linear, equal-power, ease-in-out, not 'cubic'"]),
        (with([10: "    - volume: [{ start: 0s, end: 1s, duration: 1s, from: 0, to: 1 }]"]),
         ["r.yaml:10:48: error: ramp 1 of 'volume' takes 'end' or 'duration', not both"]),
        (with([10: "    - volume: []"]),
         ["r.yaml:10:15: error: 'volume' has no ramps: give a level, or list ramps (- { start: …, end: …, from: …, to: … })"]),
        (with([9: "  mix: music", 10: "", 11: "", 12: ""]),
         ["r.yaml:9:8: error: 'mix' must be a list of audio tracks (- { volume: …, segments: [ … ] }), not 'music'"]),
        (with([10: "    - { source: music }", 11: "", 12: ""]),
         ["r.yaml:10:9: error: unknown key 'source' in 'mix input 1'"]),
        (with([11: "", 12: ""]),
         ["r.yaml:10:7: error: 'mix input 1' needs 'segments': a list of segments (- { source: …, start: …, end: … })"]),
        (with([12: "        - { source: musik }"]),
         ["r.yaml:12:21: error: segment 1 of mix input 1 reads 'musik', which is not a source (did you mean 'music'?)"]),
        (with([12: "        - { source: music, track: video }"]),
         ["r.yaml:12:35: error: segment 1 of mix input 1 takes an audio track, not 'video'"]),
        (with([13: "  limit: hard"]),
         ["r.yaml:13:10: error: 'limit' must be clip or soft, not 'hard'"]),
        (with([7: "  video: { volume: 1, segments: [] }", 8: ""]),
         ["r.yaml:7:12: error: unknown key 'volume' in 'video'"]),
    ]

    @Test("each mistake: its exact message at its line and column", arguments: 0..<bad.count)
    func mistake(_ i: Int) {
        let (text, expected) = Self.bad[i]
        #expect(recipeErrors(text) == expected)
    }

    @Test("the whole output's fades: 'fade-in' and 'fade-out' on the composition; 0 is an error at its place")
    func outputFades() throws {
        let r = try RecipeParser.parse(Self.with([13: "  fade-in: 1s\n  fade-out: 500ms"]), file: "r.yaml").get()
        #expect(r.composition?.fadeIn?.value == MediaTime(seconds: 1) && r.composition?.fadeOut?.value == MediaTime(value: 1, timescale: 2))
        #expect(recipeErrors(Self.with([13: "  fade-in: 0s"])) == ["r.yaml:13:12: error: 'fade-in' must be longer than 0"])
        #expect(recipeErrors(Self.with([13: "  fade-out: soon"])) == ["r.yaml:13:13: error: 'fade-out' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not 'soon'"])
    }

    @Test("transitions: a dip on the video list's second segment; mistakes at their place")
    func transitions() throws {
        let two = Self.with([8: "    - { source: clip }\n    - { source: clip, transition: { kind: dip, duration: 1s, color: \"#FF8000\" } }"])
        let r = try RecipeParser.parse(two, file: "r.yaml").get()
        let t = try #require(r.composition?.video?.segments[1].transition)
        #expect(t.kind == .dip && t.duration == MediaTime(seconds: 1) && t.color == RecipeColor(red: 255, green: 128, blue: 0))
        #expect(recipeErrors(Self.with([8: "    - { source: clip, transition: { kind: dip, duration: 1s } }"]))
                == ["r.yaml:8:23: error: segment 1 of the video track takes no 'transition': a transition joins a segment to the one before it"])
        #expect(recipeErrors(Self.with([8: "    - { source: clip }\n    - { source: clip, transition: { kind: wipe, duration: 1s } }"]))
                == ["r.yaml:9:43: error: 'kind' must be dip or cross-fade, not 'wipe' (did you mean 'dip'?)"])
        #expect(recipeErrors(Self.with([8: "    - { source: clip }\n    - { source: clip, transition: { kind: dip } }"]))
                == ["r.yaml:9:35: error: the transition needs 'duration'"])
        #expect(recipeErrors(Self.with([8: "    - { source: clip }\n    - { source: clip, transition: { kind: dip, duration: 1s, color: red } }"]))
                == ["r.yaml:9:69: error: 'color' must be black, white or \"#RRGGBB\" (quoted), not 'red'"])
        #expect(recipeErrors(Self.with([12: "        - { source: music }\n        - { source: music, transition: { kind: dip, duration: 1s } }"]))
                == ["r.yaml:13:28: error: segment 2 of mix input 1 takes no 'transition': transitions join the segments of the video track"])
    }

    @Test("'limit' without a mix input is a warning at its place")
    func limitWithoutMix() throws {
        let r = try RecipeParser.parse(Self.with([9: "", 10: "", 11: "", 12: ""]), file: "r.yaml").get()
        #expect(r.warnings.map(\.headline) == ["r.yaml:5:3: warning: source 'music' is not used by any segment", "r.yaml:13:10: warning: 'limit' has no effect: the composition mixes nothing (list 'mix:' inputs)"])
    }
}
