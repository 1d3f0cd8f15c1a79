import Recipe
import Testing

/// A minimal valid recipe with `extra` lines spliced in; line numbers below count from this text.
private func recipe(_ body: String) -> String { body }

private let validRecipeText = """
recipe: 1
name: t
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

/// The headlines of a recipe's errors (also used by RecipeLimitTests).
func recipeErrors(_ text: String) -> [String] {
    switch RecipeParser.parse(text, file: "r.yaml") {
    case .success: return []
    case .failure(let e): return e.diagnostics.map(\.headline)
    }
}

/// `validRecipeText` with line `n` (1-based) replaced.
private func replacing(line n: Int, with text: String) -> String {
    var lines = validRecipeText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines[n - 1] = text
    return lines.joined(separator: "\n")
}

/// (recipe text, the exact diagnostic headline it must produce)
private let badRecipes: [(String, String)] = [
        (replacing(line: 8, with: "    framerate: 30"),
         "r.yaml:8:5: error: unknown key 'framerate' in preset 'video-30' (did you mean 'frame-rate'?)"),
        (replacing(line: 8, with: "    frame-rate: -3"),
         "r.yaml:8:17: error: 'frame-rate' must be a positive number (30, 29.97), a fraction (30000/1001) or 'source', not '-3'"),
        (replacing(line: 8, with: "    bitrate: fast"),
         "r.yaml:8:14: error: 'bitrate' must be a bit rate like 128k, 5M or 800000, not 'fast'"),
        (replacing(line: 14, with: "    - { source: picture, settings: video-60 }"),
         "r.yaml:14:36: error: unknown preset 'video-60' (did you mean 'video-30'?)"),
        (replacing(line: 14, with: "    - { source: pictures, settings: video-30 }"),
         "r.yaml:14:17: error: writer input 1 reads 'pictures', which is not a reader output (did you mean 'picture'?)"),
        (validRecipeText + "\n    - { source: picture }",
         "r.yaml:15:17: error: reader output 'picture' feeds writer inputs 1 and 2; each reader output feeds one input"),
        (replacing(line: 7, with: "    base: video-30"),
         "r.yaml:7:11: error: preset 'video-30' extends itself: video-30 → video-30"),
        (replacing(line: 7, with: "    base: h264-1920x1081"),
         "r.yaml:7:11: error: unknown preset 'h264-1920x1081' (did you mean 'h264-1920x1080'?)"),
        (replacing(line: 1, with: "recipe: 2"),
         "r.yaml:1:9: error: unsupported recipe version 2 (this reencode reads version 1)"),
        (replacing(line: 1, with: "recpie: 1"),
         "r.yaml:1:1: error: unknown key 'recpie' in the recipe (did you mean 'recipe'?)"),
        (replacing(line: 11, with: "    picture: { track: subtitles }"),
         "r.yaml:11:23: error: 'track' must be video, audio, subtitle, video:N, audio:N, subtitle:N or \"#N\" (a stream index), not 'subtitles'"),
        (replacing(line: 11, with: "    picture: { trak: video }"),
         "r.yaml:11:16: error: unknown key 'trak' in reader output 'picture' (did you mean 'track'?)"),
        (replacing(line: 4, with: "output: { path: out.mp4, format: avi }"),
         "r.yaml:4:34: error: output format 'avi' is not one of mp4, mov, m4a, mkv, webm, flac, opus, ogg, wav"),
        (replacing(line: 4, with: "output: out/{stm}.mp4"),
         "r.yaml:4:9: error: 'path' has an unknown token {stm} (tokens: {stem} {ext} {dir} {name})"),
        (replacing(line: 4, with: "output: { path: out.mp4, overwrite: yes please }"),
         "r.yaml:4:37: error: 'overwrite' must be true or false, not 'yes please'"),
        // The widest scale of any codec (VP9's and AV1's); each codec's own is checked by validate.
        (replacing(line: 8, with: "    quality: 70"),
         "r.yaml:8:14: error: 'quality' must be a number from 0 (best) to 63 (smallest), not '70'"),
        (replacing(line: 8, with: "    frame-rate-policy: max"),
         "r.yaml:8:24: error: 'frame-rate-policy' must be one of cap, exact, divisor, not 'max'"),
        (replacing(line: 8, with: "    codec: xvid"),
         "r.yaml:8:12: error: 'codec' must be one of \(recipeCodecNames.joined(separator: ", ")), not 'xvid'"),
        (replacing(line: 8, with: "    gop: often"),
         "r.yaml:8:10: error: 'gop' must be a duration like 2s or a frame count like 60, not 'often'"),
        (replacing(line: 8, with: "    channels: 0"),
         "r.yaml:8:15: error: 'channels' must be a whole number from 1 to 8, not '0'"),
        (replacing(line: 8, with: "    sample-rate: 1000"),
         "r.yaml:8:18: error: 'sample-rate' must be a rate in Hz from 8000 to 192000 (48000 or 48k), not '1000'"),
        (replacing(line: 8, with: "    frame-rate: 30\n    sample-rate: 48000"),
         "r.yaml:9:5: error: preset 'video-30' mixes video settings ('frame-rate') and audio settings ('sample-rate'); make one preset for each"),
        (validRecipeText + "\nsession:\n  time-range: { start: 5s, end: 2s }",
         "r.yaml:16:33: error: 'end' (2.000s) must be after 'start' (5.000s)"),
        (validRecipeText + "\nsession:\n  time-range: { start: 1s, end: 3s, duration: 2s }",
         "r.yaml:16:15: error: 'time-range' takes 'end' or 'duration', not both"),
        (validRecipeText + "\nsession:\n  time-range: { start: soon }",
         "r.yaml:16:24: error: 'start' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not 'soon'"),
        (validRecipeText + "\nname: again",
         "r.yaml:15:1: error: duplicate key 'name' (first at 2:1)"),
        (validRecipeText.split(separator: "\n").prefix(11).joined(separator: "\n") + "\nwriter: []",
         "r.yaml:12:9: error: writer must be a mapping of keys to values, not a list"),
        (validRecipeText + "\nextra: &a [1]\nmore: *a",
         "r.yaml:16:7: error: aliases (*name) are not allowed in recipes; use a preset with 'base:' to share settings"),
        ("name: x\n",
         "r.yaml:1:1: error: missing 'recipe: 1' (the recipe format version) at the top"),
        (replacing(line: 3, with: "source: [in.mp4"),
         "r.yaml:4:7: error: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence"),
]

@Suite("Recipe errors: exact messages and positions")
struct RecipeErrorTests {
    @Test("the reference recipe is validRecipeText")
    func validRecipe() throws {
        let r = try RecipeParser.parse(validRecipeText, file: "r.yaml").get()
        #expect(r.writerInputs.count == 1)
        #expect(r.readerOutputs.first?.track == .kind(.video, 0))
        let p = try r.resolvePreset(Located("video-30", Mark(line: 14, column: 34)))
        #expect(p.chain == ["video-30", "h264-1920x1080"])
        #expect(p.video.width == 1920 && p.video.frameRate == .rate(FrameRate(frames: 30)))
    }

    @Test("each mistake has its own message at its own place", arguments: badRecipes)
    func message(text: String, expected: String) {
        #expect(recipeErrors(text).contains(expected), "got: \(recipeErrors(text))")
    }

    @Test("validate reports every error, not just the first, in file order")
    func allErrors() {
        let text = replacing(line: 8, with: "    framerate: 30\n    quality: 99")
        let e = recipeErrors(text)
        #expect(e == [
            "r.yaml:8:5: error: unknown key 'framerate' in preset 'video-30' (did you mean 'frame-rate'?)",
            "r.yaml:9:14: error: 'quality' must be a number from 0 (best) to 63 (smallest), not '99'",
        ])
    }

    @Test("a diagnostic shows the line and a caret under the column")
    func caret() throws {
        let text = replacing(line: 8, with: "    framerate: 30")
        guard case .failure(let e) = RecipeParser.parse(text, file: "r.yaml") else { Issue.record("parsed"); return }
        #expect(e.diagnostics[0].description == """
            r.yaml:8:5: error: unknown key 'framerate' in preset 'video-30' (did you mean 'frame-rate'?)
                framerate: 30
                ^
            """)
    }
}
