import Foundation
import Testing

/// The codecs added as rows of the codec table, through the command line: `validate` refuses a
/// quality off the codec's scale at its line, and a codec the container cannot hold at the
/// writer input's settings, naming the container and the track (exit 65).
@Suite("New video codecs: validate")
struct NewCodecCLITests {
    static func recipe(_ output: String, _ settings: String) -> String {
        """
        recipe: 1
        output: "{dir}/{stem}-x.\(output)"
        reader:
          outputs:
            v: { track: video }
        writer:
          inputs:
            - { source: v, settings: \(settings) }

        """
    }

    /// (output extension, settings, line:col, message).
    static let refused: [(String, String, String, String)] = [
        ("mkv", "{ codec: h264, quality: 52 }", "8:45", "'quality' for H.264 must be from 0 (best) to 51 (smallest), not 52"),
        ("mkv", "{ codec: av1, quality: 64 }", "8:53", "'quality' must be a number from 0 (best) to 63 (smallest), not '64'"),
        ("mkv", "{ codec: av1, codec-options: { presett: '8' } }", "8:61", "the libsvtav1 encoder has no option 'presett' (did you mean 'preset'?)"),
        ("mkv", "{ codec: av1, codec-options: { preset: '14' } }", "8:61", "the libsvtav1 encoder has no preset '14' (did you mean '13'?) (it has 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)"),
        ("mkv", "{ codec: vp9, quality: 64 }", "8:53", "'quality' must be a number from 0 (best) to 63 (smallest), not '64'"),
        ("mkv", "{ codec: vp9, codec-options: { cpu-usd: '4' } }", "8:61", "the libvpx-vp9 encoder has no option 'cpu-usd' (did you mean 'cpu-used'?)"),
        ("mkv", "{ codec: vp9, codec-options: { cpu-used: '9' } }", "8:61", "the libvpx-vp9 encoder has no cpu-used '9' (did you mean '8'?) (it has 8, 7, 6, 5, 4, 3, 2, 1, 0)"),
        ("mov", "{ codec: av1, codec-options: { preset: '13' } }", "8:32",
         "writer input 1 encodes the video track ('v') as AV1 (codec av1), but a mov file does not hold it: FFmpeg writes it into MP4 only"),
        // SVT-AV1 logs this as an unparsed entry and opens: refused, and the encoder opened to
        // find it out is closed (SVT-AV1 1.4 blocks for ever closing one that had no picture).
        ("mkv", "{ codec: av1, codec-options: { svtav1-params: 'tile-colums=1' } }", "8:61",
         "the libsvtav1 encoder refuses svtav1-params: Error parsing option tile-colums: 1"),
    ]

    @Test("validate: a quality off the codec's scale, a codec the container cannot hold; each at its line, exit 65")
    func refusals() throws {
        try Self.validate(refused: Self.refused, accepted: [("mkv", "{ codec: av1, quality: 63 }"), ("mp4", "{ codec: av1, pixel-format: yuv420p10le }")])
    }

    /// `validate` of `recipe(ext, settings)`: each of `refused` exits 65 with its message first,
    /// at its line:col; each of `accepted` exits 0, saying nothing.
    static func validate(refused: [(String, String, String, String)], accepted: [(String, String)]) throws {
        let dir = Scratch()
        for (ext, settings, at, message) in refused {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, settings))
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 65, "\(settings): \(v.stderr)")
            #expect(v.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(at): error: \(message)", "\(v.stderr)")
        }
        for (ext, settings) in accepted {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, settings))
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 0 && v.stderr == "", "\(settings): \(v.stderr)")
        }
    }

    /// A frame-stamped 160x120 clip of 10 pictures at 30 fps.
    static func clip(_ dir: Scratch, width: Int = 160, height: Int = 120) throws -> String {
        let path = dir.file("clip-\(width)x\(height).mp4")
        try CompositionCLITests.clip(path, base: 0, frames: 10, width: width, height: height)
        return path
    }

    @Test("run: an AV1 conversion ends (its rehearsal's encoder, sent no picture, closes), every picture in order")
    func runs() throws {
        let dir = Scratch()
        let src = try Self.clip(dir)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("mkv", "{ codec: av1, codec-options: { preset: '12' } }"))
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none", "--quiet"], timeLimit: 120)
        #expect(r.status == 0 && r.stderr == "", "\(r.status): \(r.stderr)")
        let out = dir.file("clip-160x120-x.mkv")
        #expect(try CompositionCLITests.stamps(out) == Array(0..<10))
    }

    @Test("plan: a picture SVT-AV1 cannot take is refused naming the track and the size; a box too small names the setting")
    func pictureSize() throws {
        let dir = Scratch()
        let src = try Self.clip(dir, width: 62, height: 64)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("mkv", "{ codec: av1 }"))
        let p = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
        #expect(p.status == 1, "\(p.stderr)")
        #expect(p.stderr == "error: \(src): track #0: SVT-AV1 (codec av1) takes pictures from 64x64 to 16384x8704, not 62x64\n")
        let fits = try Self.clip(dir, width: 64, height: 64)
        #expect(try Binary.run(["plan", recipe, "-i", fits], timeLimit: 60).status == 0)
        let boxed = try NegotiationCLITests.recipe(dir, Self.recipe("mkv", "{ codec: av1, height: 48 }"), name: "boxed.yaml")
        let b = try Binary.run(["plan", boxed, "-i", try Self.clip(dir)], timeLimit: 60)
        #expect(b.status == 65, "\(b.stderr)")
        #expect(b.stderr.split(separator: "\n").first.map(String.init) == "\(boxed):8:44: error: SVT-AV1 (codec av1) takes pictures from 64x64 to 16384x8704, not 64x48", "\(b.stderr)")
    }
}
