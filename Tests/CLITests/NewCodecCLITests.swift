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
        ("mov", "{ codec: av1, codec-options: { preset: '13' } }", "8:30",
         "mov cannot hold what writer input 1 encodes: av1 only supported in MP4 and AVIF"),
    ]

    @Test("validate: a quality off the codec's scale, a codec the container cannot hold; each at its line, exit 65")
    func refusals() throws {
        let dir = Scratch()
        for (ext, settings, at, message) in Self.refused {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, settings))
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 65, "\(settings): \(v.stderr)")
            #expect(v.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(at): error: \(message)", "\(v.stderr)")
        }
        for (ext, settings) in [("mkv", "{ codec: av1, quality: 63 }"), ("mp4", "{ codec: av1, pixel-format: yuv420p10le }")] {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, settings))
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 0 && v.stderr == "", "\(settings): \(v.stderr)")
        }
    }
}
