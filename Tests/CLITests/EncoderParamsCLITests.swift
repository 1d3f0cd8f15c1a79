import Foundation
import Testing

/// x264 and x265 only warn about a parameter string they cannot parse (`x265-params`,
/// `x264-params`) and go on without it: a typo there must be refused like any other codec
/// option, at its line:col, before anything is written.
@Suite("Encoder parameter strings: refused, not ignored")
struct EncoderParamsCLITests {
    @Test("an unknown or unparsable x265-params/x264-params entry: validate, plan and run refuse it at its line, exit 65, nothing written")
    func garbageParams() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        let cases: [(settings: String, message: String)] = [
            ("{ codec: hevc, codec-options: { x265-params: \"log-level=error:garbage=1\" } }",
             "the libx265 encoder refuses x265-params: Unknown option: garbage"),
            ("{ codec: hevc, codec-options: { x265-params: \"crf=abc\" } }",
             "the libx265 encoder refuses x265-params: Invalid value for crf: abc"),
            ("{ codec: h264, codec-options: { x264-params: \"keyintt=10\" } }",
             "the libx264 encoder refuses x264-params: Error parsing option 'keyintt = 10'"),
        ]
        for c in cases {
            let recipe = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - source: v
                  settings: \(c.settings)

            """)
            let column = 49  // the params key
            let expected = """
            \(recipe):8:\(column): error: \(c.message)
                  settings: \(c.settings)

            """
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 65, "\(c.settings)")
            #expect(v.stderr.hasPrefix(expected), "\(c.settings): \(v.stderr)")
            for command in ["plan", "run"] {
                let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
                #expect(r.status == 65, "\(command) \(c.settings)")
                #expect(r.stderr.hasPrefix(expected), "\(command) \(c.settings): \(r.stderr)")
            }
            #expect(dir.contents == ["clip.mp4", "r.yaml"])
        }
    }

    @Test("valid parameter strings still open: x265-params and x264-params with known entries")
    func goodParams() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        for settings in ["{ codec: hevc, codec-options: { x265-params: \"log-level=error:aq-mode=2\" } }",
                         "{ codec: h264, codec-options: { x264-params: \"keyint=10:bframes=2\" } }"] {
            let recipe = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            reader:
              outputs:
                v: { track: video }
            writer:
              inputs:
                - source: v
                  settings: \(settings)

            """)
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 0, "\(settings): \(v.stderr)")
            let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4"), "--overwrite", "--quiet"], timeLimit: 60)
            #expect(r.status == 0, "\(settings): \(r.stderr)")
            // Only the note about the unused audio track: nothing from x264 or x265.
            #expect(r.stderr == "warning: \(src): track #1: audio aac \"SoundHandler\" is not written: no writer input takes it\n", "\(settings)")
        }
    }
}
