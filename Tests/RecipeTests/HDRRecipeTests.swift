import Recipe
import Testing

/// The `hdr:` video setting: its values, and `keep` where the settings give 8 bits.
@Suite("Recipe hdr setting")
struct HDRRecipeTests {
    static func text(_ settings: String, preset: String = "") -> String {
        """
        recipe: 1
        presets:
          hdr-base:
            codec: hevc\(preset)
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: \(settings) }
        """
    }

    static let keepRefusal = "'hdr: keep' needs a 10-bit output, but this writes 8-bit H.264 (yuv420p): use 'codec: hevc', a 10-bit 'pixel-format' (yuv420p10le) or 'hdr: tone-map'"

    @Test("hdr: keep and hdr: tone-map are read; preset inheritance keeps them")
    func values() throws {
        for (value, expected) in [("keep", HDRSetting.keep), ("tone-map", .toneMap)] {
            let r = try RecipeParser.parse(Self.text("{ base: hdr-base, hdr: \(value) }"), file: "r.yaml").get()
            guard case .inline(let def) = r.writerInputs[0].settings else { Issue.record("not inline"); continue }
            #expect(def.video.hdr == expected)
            let preset = try RecipeParser.parse(Self.text("hdr-base", preset: "\n    hdr: \(value)"), file: "r.yaml").get()
            #expect(try preset.resolvePreset(Located("hdr-base", Mark(line: 1, column: 1))).video.hdr == expected)
        }
    }

    @Test("an unknown hdr value is an error at its value")
    func unknownValue() {
        #expect(recipeErrors(Self.text("{ codec: hevc, hdr: kept }")) == ["r.yaml:10:56: error: 'hdr' must be keep or tone-map, not 'kept'"])
    }

    @Test("hdr: keep with an 8-bit output is an error at the hdr line, whatever the source")
    func keepNeeds10Bit() {
        // H.264 by default is 8-bit.
        #expect(recipeErrors(Self.text("{ hdr: keep }")) == ["r.yaml:10:38: error: " + Self.keepRefusal])
        #expect(recipeErrors(Self.text("{ codec: h264, quality: 20, hdr: keep }")) == ["r.yaml:10:64: error: " + Self.keepRefusal])
        // Said where the preset says it, even when a writer input uses the preset through another.
        let chained = """
        recipe: 1
        presets:
          hdr-base:
            hdr: keep
          web:
            base: hdr-base
            codec: h264
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: web }
        """
        #expect(recipeErrors(chained) == ["r.yaml:4:5: error: " + Self.keepRefusal])
        // HEVC told to be 8-bit cannot keep it either.
        #expect(recipeErrors(Self.text("{ base: hdr-base, pixel-format: yuv420p, hdr: keep }")) == [
            "r.yaml:10:77: error: 'hdr: keep' needs a 10-bit output, but this writes HEVC in yuv420p: use a 10-bit 'pixel-format' (yuv420p10le) or 'hdr: tone-map'",
        ])
        // Nor can H.264 told to be 8-bit: HEVC alone would not help, the pixel format says 8 bits.
        #expect(recipeErrors(Self.text("{ codec: h264, pixel-format: yuv420p, hdr: keep }")) == [
            "r.yaml:10:74: error: 'hdr: keep' needs a 10-bit output, but this writes H.264 in yuv420p: use a 10-bit 'pixel-format' (yuv420p10le) or 'hdr: tone-map'",
        ])
    }

    @Test("hdr: keep is fine with HEVC (made 10-bit) or a 10-bit H.264 pixel format")
    func keepAllowed() {
        #expect(recipeErrors(Self.text("{ base: hdr-base, hdr: keep }")) == [])
        #expect(recipeErrors(Self.text("{ codec: h264, pixel-format: yuv420p10le, hdr: keep }")) == [])
        #expect(recipeErrors(Self.text("{ codec: h264, hdr: tone-map }")) == [])
    }

    @Test("pixel format bit depths by name")
    func depths() {
        for (name, depth) in [("yuv420p", 8), ("nv12", 8), ("yuvj420p", 8), ("yuv420p10le", 10), ("p010le", 10),
                              ("nv20le", 10), ("gray10le", 10), ("yuv444p12le", 12), ("gbrp", 8)] {
            #expect(pixelFormatBitDepth(name) == depth, "\(name)")
        }
    }
}
