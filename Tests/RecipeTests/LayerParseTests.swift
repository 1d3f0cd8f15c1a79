import Foundation
import Recipe
import Testing

/// `layers:`, a video track's `rect`/`fit`/`crop`/`opacity`, `render-size` and `background`: the
/// model they make, and each mistake at its line and column.
@Suite("Compositions: video layers in a recipe")
struct LayerParseTests {
    static let base = """
    recipe: 1
    output: out.mp4
    sources:
      main: "{input}"
      inset: inset.mp4
    composition:
      render-size: 1920x1080
      background: "#102030"
      video:
        - { source: main }
      layers:
        - rect: { x: 1240, y: 40, width: 25%, height: 25% }
          fit: fill
          crop: { x: 10%, y: 0, width: 50%, height: 100% }
          opacity: 0.8
          segments:
            - { source: inset, at: 1s, duration: 4s }
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture, settings: h264-1280x720 }
    """

    static func with(_ changes: [Int: String]) -> String {
        var lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (n, text) in changes { lines[n - 1] = text }
        return lines.joined(separator: "\n")
    }

    @Test("the base recipe: one layer over the video track, its place, fit, crop and opacity; the render size and background")
    func model() throws {
        let r = try RecipeParser.parse(Self.base, file: "r.yaml").get()
        #expect(r.warnings.isEmpty)
        let c = try #require(r.composition)
        #expect(c.renderSize?.value == RenderSize(width: 1920, height: 1080))
        #expect(c.background?.value == RecipeColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(c.layers.count == 1 && c.layers[0].layer == 1 && c.layers[0].kind == .video && c.layers[0].title == "layer 1")
        let style = try #require(c.layers[0].style)
        let rect = try #require(style.rect)
        #expect(rect.pixels(width: 1920, height: 1080) == (1240, 40, 480, 270))
        #expect(style.fit == .fill)
        let crop = try #require(style.crop)
        #expect(crop.pixels(width: 200, height: 100) == (20, 0, 100, 100))
        #expect(style.opacity?.constant == 0.8)
        #expect(c.layers[0].segments[0].source.value == "inset")
        #expect(c.drawsLayers)
        #expect(c.video?.style == nil)
    }

    @Test("the video track as a mapping with its own style; opacity ramps")
    func videoMapping() throws {
        let text = Self.with([9: "  video:\n    opacity: [{ start: 0s, end: 1s, from: 0, to: 1 }]\n    segments:", 10: "      - { source: main }", 11: "", 12: "", 13: "", 14: "", 15: "", 16: "", 17: "", 5: ""])
        let r = try RecipeParser.parse(text, file: "r.yaml").get()
        let c = try #require(r.composition)
        #expect(c.layers.isEmpty)
        #expect(c.video?.style?.opacity?.ramps.map(\.to) == [1])
        #expect(c.drawsLayers)
    }

    @Test("a composition without layers, style or cross-fade draws none")
    func plain() throws {
        let text = Self.with([5: "", 7: "", 8: "", 11: "", 12: "", 13: "", 14: "", 15: "", 16: "", 17: ""])
        let c = try #require(try RecipeParser.parse(text, file: "r.yaml").get().composition)
        #expect(!c.drawsLayers)
        let fade = Self.with([5: "", 7: "", 8: "", 10: "    - { source: main }\n    - { source: main, transition: { kind: cross-fade, duration: 1s } }",
                              11: "", 12: "", 13: "", 14: "", 15: "", 16: "", 17: ""])
        #expect(try #require(try RecipeParser.parse(fade, file: "r.yaml").get().composition).drawsLayers)
    }

    static let bad: [(String, [String])] = [
        (with([7: "  render-size: 1921x1080"]),
         ["r.yaml:7:16: error: 'render-size' must be WIDTHxHEIGHT, each even and from 2 to 16384 (1920x1080), not '1921x1080'"]),
        (with([8: "  background: red"]),
         ["r.yaml:8:15: error: 'background' must be black, white or \"#RRGGBB\" (quoted), not 'red'"]),
        (with([12: "    - rect: { x: 1240, y: 40, width: 0, height: 25% }"]),
         ["r.yaml:12:38: error: 'width' of 'rect' must be more than 0"]),
        (with([12: "    - rect: { x: left, y: 40, width: 10, height: 25% }"]),
         ["r.yaml:12:18: error: 'x' of 'rect' must be whole pixels (640) or a percentage (25%), not 'left'"]),
        (with([12: "    - rect: { x: 1240, y: 40, height: 25% }"]),
         ["r.yaml:12:13: error: 'rect' needs 'width'"]),
        (with([12: "    - rect: { x: 1240, y: 40, w: 10, height: 25% }"]),
         ["r.yaml:12:31: error: unknown key 'w' in 'rect' (did you mean 'x'?)"]),
        (with([13: "      fit: cover"]),
         ["r.yaml:13:12: error: 'fit' must be fit, fill or stretch, not 'cover'"]),
        (with([14: "      crop: { x: -2, y: 0, width: 50%, height: 100% }"]),
         ["r.yaml:14:18: error: 'x' of 'crop' must be 0 or more: a crop is a part of the picture"]),
        (with([15: "      opacity: 1.5"]),
         ["r.yaml:15:16: error: 'opacity' must be a number from 0 to 1, not '1.5'"]),
        (with([16: "      segment:"]),
         ["r.yaml:16:7: error: unknown key 'segment' in 'layer 1' (did you mean 'segments'?)"]),
        (with([11: "  layers: inset", 12: "", 13: "", 14: "", 15: "", 16: "", 17: ""]),
         ["r.yaml:11:11: error: 'layers' must be a list of video tracks (- { rect: …, segments: [ … ] }), not 'inset'"]),
        (with([17: "        - { source: inset, at: 1s, duration: 4s, transition: { kind: dip, duration: 1s } }"]),
         ["r.yaml:17:50: error: segment 1 of layer 1 takes no 'transition': transitions join the segments of the video track"]),
        (with([17: "        - { source: insett }"]),
         ["r.yaml:17:21: error: segment 1 of layer 1 reads 'insett', which is not a source (did you mean 'inset'?)"]),
        (with([17: "        - { source: inset, at: 1s, duration: 4s }\n        - { source: inset, at: 2s, duration: 1s }"]),
         ["r.yaml:18:32: error: segment 2 of layer 1 (2.000s to 3.000s on the timeline) overlaps segment 1 (1.000s to 5.000s): segments of one track never overlap"]),
        (with([9: "  audio:", 10: "    - { source: main }"]),
         ["r.yaml:17:9: error: 'layers' are drawn over the composition's video track: give it a 'video:' list of segments"]),
    ]

    @Test("each mistake: its exact message at its line and column", arguments: 0..<bad.count)
    func mistake(_ i: Int) {
        let (text, expected) = Self.bad[i]
        #expect(recipeErrors(text) == expected)
    }

    @Test("'audio-stretch' on a layer's segment has no effect (its sound is not played): a warning")
    func layerSound() throws {
        let r = try RecipeParser.parse(Self.with([17: "        - { source: inset, at: 1s, duration: 4s, speed: 1/2, audio-stretch: varispeed }"]), file: "r.yaml").get()
        #expect(r.warnings.map(\.headline) == ["r.yaml:17:77: warning: 'audio-stretch' has no effect on segment 1 of layer 1: a layer's sound is not played (put its file's sound in 'mix:' to hear it)"])
    }
}
