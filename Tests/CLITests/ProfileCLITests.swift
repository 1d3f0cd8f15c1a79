import Foundation
import Testing

/// A pixel format asked for without a profile gets one that can carry it: the run encodes, and
/// the plan names the profile the output really has.
@Suite("Profile from a 4:2:2 or 4:4:4 pixel format")
struct ProfileCLITests {
    @Test("10-bit 4:2:2 H.264 and 8-bit 4:4:4 HEVC: plan and run succeed, the output has the plan's profile", arguments: [
        ("{ codec: h264, pixel-format: yuv422p10le }", "High 4:2:2"),
        ("{ codec: hevc, pixel-format: yuv444p }", "Rext"),
    ])
    func encodes(settings: String, profile: String) throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        let recipe = try NegotiationCLITests.recipe(dir, """
        recipe: 1
        reader:
          outputs:
            v: { track: video }
        writer:
          inputs:
            - { source: v, settings: \(settings) }

        """)
        let out = dir.file("out.mkv")
        let plan = try Binary.run(["plan", recipe, "-i", src, "-o", out], timeLimit: 60)
        #expect(plan.status == 0, "\(plan.stderr)")
        let run = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"], timeLimit: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let inspect = try Binary.run(["inspect", out], timeLimit: 60)
        let line = inspect.stdout.split(separator: "\n").first { $0.contains("#0 video") }.map(String.init) ?? ""
        #expect(line.contains(" \(profile) "), "\(line)")
    }
}
