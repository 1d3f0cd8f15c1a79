import Recipe
import Testing

/// Numbers a recipe states are range-checked when it is read, with line:col (issue 10: huge times
/// passed `validate` and then crashed plan/run/batch).
@Suite("Recipe limits: out-of-range numbers are errors at their place")
struct RecipeLimitTests {
    static let base = """
    recipe: 1
    source: in.mp4
    output: out.mp4
    presets:
      video-30:
        base: h264-1920x1080
        frame-rate: 30
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture, settings: video-30 }
    """

    static func errors(_ text: String) -> [String] { recipeErrors(text) }

    /// `base` with line 7 (`frame-rate: 30` in the preset) replaced.
    static func preset(_ line: String) -> String {
        var lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[6] = line
        return lines.joined(separator: "\n")
    }

    static let times = "0 to 10000 hours (36000000s)"

    /// (recipe text, the exact and only diagnostic it must produce)
    static let outOfRange: [(String, String)] = [
        // The recipes.
        (base + "\nsession: { time-range: { end: 9000000000000000000 } }",
         "r.yaml:14:31: error: 'end' must be a time from \(times), not '9000000000000000000'"),
        (base + "\nsession:\n  time-range: { duration: 4611686018427387904/1 }",
         "r.yaml:15:27: error: 'duration' must be a time from \(times), not '4611686018427387904/1'"),
        // Start near Int64.max, beyond Int64, negative, in every form.
        (base + "\nsession:\n  time-range: { start: 9223372036854775807 }",
         "r.yaml:15:24: error: 'start' must be a time from \(times), not '9223372036854775807'"),
        (base + "\nsession:\n  time-range: { start: 99999999999999999999ms }",
         "r.yaml:15:24: error: 'start' must be a time from \(times), not '99999999999999999999ms'"),
        (base + "\nsession:\n  time-range: { start: -5 }",
         "r.yaml:15:24: error: 'start' must be a time from \(times), not '-5'"),
        (base + "\nsession:\n  time-range: { start: -1/2147483647 }",
         "r.yaml:15:24: error: 'start' must be a time from \(times), not '-1/2147483647'"),
        (base + "\nsession:\n  time-range: { start: 10000:00:00.001 }",
         "r.yaml:15:24: error: 'start' must be a time from \(times), not '10000:00:00.001'"),
        (base + "\nsession:\n  time-range: { end: 36000000.000000001s }",
         "r.yaml:15:22: error: 'end' must be a time from \(times), not '36000000.000000001s'"),
        // Mixtures: a tiny timescale with a huge end; a fine start with an end in another scale.
        (base + "\nsession:\n  time-range: { start: 1/2147483647, end: 9000000000000000000/1 }",
         "r.yaml:15:43: error: 'end' must be a time from \(times), not '9000000000000000000/1'"),
        (base + "\nsession:\n  time-range: { start: 1/2147483647, duration: 77309413922483647/2147483647 }",
         "r.yaml:15:48: error: 'duration' must be a time from \(times), not '77309413922483647/2147483647'"),
        // Frame rates.
        (preset("    frame-rate: 5000"),
         "r.yaml:7:17: error: 'frame-rate' must be from 1 to 1000 frames per second, not '5000'"),
        (preset("    frame-rate: 1/2147483647"),
         "r.yaml:7:17: error: 'frame-rate' must be from 1 to 1000 frames per second, not '1/2147483647'"),
        (preset("    frame-rate: 99999999999"),
         "r.yaml:7:17: error: 'frame-rate' must be from 1 to 1000 frames per second, not '99999999999'"),
        (preset("    frame-rate: 0"),
         "r.yaml:7:17: error: 'frame-rate' must be from 1 to 1000 frames per second, not '0'"),
        (preset("    frame-rate: 2147483647/2147483"),
         "r.yaml:7:17: error: 'frame-rate' must be from 1 to 1000 frames per second, not '2147483647/2147483'"),
        // GOP.
        (preset("    gop: 99999999999"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '99999999999'"),
        (preset("    gop: 99999999999999999999999"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '99999999999999999999999'"),
        (preset("    gop: 100001"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '100001'"),
        (preset("    gop: 0"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '0'"),
        (preset("    gop: 3600.001s"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '3600.001s'"),
        (preset("    gop: 1/2s"),
         "r.yaml:7:10: error: 'gop' must be a duration like 2s or a frame count like 60, not '1/2s'"),
        (preset("    gop: 9223372036854775808s"),
         "r.yaml:7:10: error: 'gop' must be from 1 to 100000 frames or at most 3600s, not '9223372036854775808s'"),
        // Bit rates.
        (preset("    bitrate: 5000M"),
         "r.yaml:7:14: error: 'bitrate' must be from 1k to 1000M bits per second, not '5000M'"),
        (preset("    max-bitrate: 99999999999999999999"),
         "r.yaml:7:18: error: 'max-bitrate' must be from 1k to 1000M bits per second, not '99999999999999999999'"),
        (preset("    bitrate: 0"),
         "r.yaml:7:14: error: 'bitrate' must be from 1k to 1000M bits per second, not '0'"),
        (preset("    bitrate: 0.5k"),
         "r.yaml:7:14: error: 'bitrate' must be from 1k to 1000M bits per second, not '0.5k'"),
        // Sizes, audio and the version: numbers beyond 64 bits get the range message too.
        (preset("    width: 99999999999999999999"),
         "r.yaml:7:12: error: 'width' must be a whole number from 16 to 16384, not '99999999999999999999'"),
        (preset("    height: -1080"),
         "r.yaml:7:13: error: 'height' must be a whole number from 16 to 16384, not '-1080'"),
        (preset("    quality: nan"),
         "r.yaml:7:14: error: 'quality' must be a number from 0 (best) to 63 (smallest), not 'nan'"),
        (preset("    quality: 1e400"),
         "r.yaml:7:14: error: 'quality' must be a number from 0 (best) to 63 (smallest), not '1e400'"),
        (preset("    codec: aac\n    sample-rate: 99999999999999999999k"),
         "r.yaml:8:18: error: 'sample-rate' must be a rate in Hz from 8000 to 192000 (48000 or 48k), not '99999999999999999999k'"),
        (preset("    codec: aac\n    channels: 9223372036854775808"),
         "r.yaml:8:15: error: 'channels' must be a whole number from 1 to 8, not '9223372036854775808'"),
        ("recipe: 99999999999999999999\n" + base.split(separator: "\n").dropFirst().joined(separator: "\n"),
         "r.yaml:1:9: error: 'recipe' is the format version and must be 1, not '99999999999999999999'"),
    ]

    @Test("each out-of-range value has one exact message at its place", arguments: outOfRange)
    func message(text: String, expected: String) {
        #expect(Self.errors(text) == [expected])
    }

    /// Values at the limits are accepted (the limits are inclusive), tiny timescales included.
    static let atTheLimits: [String] = [
        base + "\nsession:\n  time-range: { start: 10000:00:00 }",
        base + "\nsession:\n  time-range: { start: 0, end: 36000000s }",
        base + "\nsession:\n  time-range: { start: 1/2147483647, duration: 1/2147483647 }",
        base + "\nsession:\n  time-range: { start: 35999999.999999999, end: 36000000 }",
        preset("    frame-rate: 1000"),
        preset("    frame-rate: 1"),
        preset("    frame-rate: 2147483647/2147483647"),
        preset("    gop: 100000"),
        preset("    gop: 3600s"),
        preset("    gop: 0.000000001s"),
        preset("    bitrate: 1000M"),
        preset("    bitrate: 1k"),
    ]

    @Test("values at the limits are valid", arguments: atTheLimits)
    func atLimit(text: String) {
        #expect(Self.errors(text) == [])
    }

    @Test("the range of a valid recipe with the largest times still has an exact end")
    func largestRange() throws {
        let text = Self.base + "\nsession:\n  time-range: { start: 36000000s, duration: 1/2147483647 }"
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        let range = try #require(r.timeRange).range
        #expect(try range.exactEnd() == MediaTime(value: 36_000_000 * 2_147_483_647 + 1, timescale: 2_147_483_647))
        // In the finest time base FFmpeg could hand us, the end still fits with room to spare.
        #expect(try range.exactEnd().converted(to: .max).value < Int64.max / 64)
    }
}
