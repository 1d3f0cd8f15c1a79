import Foundation
import Pipeline
import Recipe
import Testing

/// Refusals only the plan can find (they need the source or the encoders) but that the recipe
/// caused are reported at the recipe line that caused them, with the caret, like parse errors.
@Suite("Recipe-caused plan errors carry the recipe's line and column")
struct RecipePlanErrorTests {
    /// A 1 s 320x240 clip with 48 kHz stereo audio by our writer.
    static func clip(_ dir: Scratch, _ name: String = "clip.mp4") throws -> String {
        let path = dir.file(name)
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(path, video: v, frames: 30, audio: true)
        return path
    }

    static func recipe(_ text: String) throws -> Recipe {
        try RecipeParser.parse(text, file: "r.yaml").get()
    }

    /// The diagnostics compiling ends with, rendered as the CLI prints them, and whether the
    /// input did not fit (66) rather than the recipe being wrong (65).
    static func diagnostics(_ text: String, input: String, output: String) throws -> (String, mismatch: Bool)? {
        do {
            _ = try RecipeCompiler.compile(try recipe(text), input: input, output: output)
            return nil
        } catch let e as RecipeErrors {
            return (e.description, false)
        } catch let e as SourceMismatch {
            return (e.diagnostics.map(\.description).joined(separator: "\n"), true)
        }
    }

    static var x264PixelFormats: String { SettingsAssistant.system.capabilities("libx264")!.pixelFormats.joined(separator: ", ") }
    static var aacRates: String { SettingsAssistant.system.capabilities("aac")!.sampleRates.map(String.init).joined(separator: ", ") }

    @Test("an unsupported pixel format in a preset points at its 'pixel-format:' line")
    func pixelFormat() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let text = """
        recipe: 1
        presets:
          rgb:
            codec: h264
            pixel-format: rgb24
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: rgb }
        """
        let got = try Self.diagnostics(text, input: src, output: dir.file("out.mp4"))
        #expect(got?.0 == """
        r.yaml:5:5: error: pixel format 'rgb24' is not supported by libx264 (it takes \(Self.x264PixelFormats))
            pixel-format: rgb24
            ^
        """)
        #expect(got?.mismatch == false)
        #expect(dir.contents == ["clip.mp4"])
    }

    @Test("192 kHz for AAC in inline settings points at 'sample-rate'")
    func sampleRate() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let text = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture }
            - source: sound
              settings: { codec: aac, sample-rate: 192000 }
        """
        let got = try Self.diagnostics(text, input: src, output: dir.file("out.mp4"))
        #expect(got?.0 == """
        r.yaml:10:31: error: sample rate 192000 is not supported by the aac encoder (it takes \(Self.aacRates))
              settings: { codec: aac, sample-rate: 192000 }
                                      ^
        """)
        #expect(got?.mismatch == false)
    }

    @Test("a source track written twice points at the second writer input's source")
    func trackTwice() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let text = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            again: { track: "#0" }
        writer:
          inputs:
            - { source: picture }
            - { source: again }
        """
        let got = try Self.diagnostics(text, input: src, output: dir.file("out.mp4"))
        #expect(got?.0 == """
        r.yaml:9:17: error: writer input 2 reads track #0 of \(src) ('again'), which writer input 1 already writes ('picture'): a track can be written once
            - { source: again }
                        ^
        """)
    }

    @Test("a video track into an m4a points at the writer input that reads it")
    func videoIntoM4A() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let text = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: sound }
            - { source: picture }
        """
        let got = try Self.diagnostics(text, input: src, output: dir.file("out.m4a"))
        #expect(got?.0 == """
        r.yaml:9:17: error: writer input 2 reads a video track ('picture'), but an m4a file holds audio and subtitle tracks only
            - { source: picture }
                        ^
        """)
    }

    @Test("an output path in the recipe with an unknown extension points at 'output:'")
    func unknownExtension() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let text = """
        recipe: 1
        output: "{dir}/{stem}.avi"
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture }
        """
        do {
            _ = try RecipeCompiler.compile(try Self.recipe(text), input: src)
            Issue.record("compiled")
        } catch let e as RecipeErrors {
            #expect(e.description == """
            r.yaml:2:9: error: \(dir.path)/clip.avi: cannot tell the container from the extension '.avi': use mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav, or name the format
            output: "{dir}/{stem}.avi"
                    ^
            """)
        }
    }

    @Test("a copy the container cannot hold points at 'decode: false': the source does not fit the recipe (66)")
    func copyUnsupported() throws {
        let dir = Scratch()
        let made = try Self.clip(dir)
        let src = dir.file("pcm.mkv")
        try #require(try FFmpegCLI.run(["-i", made, "-c:v", "copy", "-c:a", "pcm_s16le", src]), "ffmpeg could not make a PCM source")
        let text = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio, decode: false }
        writer:
          inputs:
            - { source: picture }
            - { source: sound }
        """
        let got = try Self.diagnostics(text, input: src, output: dir.file("out.mp4"))
        #expect(got?.0 == """
        r.yaml:5:5: error: \(src): track #1: pcm_s16le cannot be copied into mp4 as it is: reencode it instead
            sound: { track: audio, decode: false }
            ^
        """)
        #expect(got?.mismatch == true)
    }
}
