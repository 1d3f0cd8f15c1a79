import Foundation
import Pipeline
import Recipe
import Testing

@Suite("Recipe-caused plan errors on the command line")
struct RecipePlanErrorCLITests {
    @Test("plan and run print a recipe-caused refusal at its line with the caret, exit 65, and write nothing")
    func pixelFormatAtItsLine() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<10 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            again: { track: "#0" }
        writer:
          inputs:
            - source: picture
              settings: { codec: h264, pixel-format: rgb24 }
            - { source: again }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let formats = SettingsAssistant.system.capabilities("libx264")!.pixelFormats.joined(separator: ", ")
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr == """
            \(recipe):10:17: error: writer input 2 reads track #0 of \(src) ('again'), which writer input 1 already writes ('picture'): a track can be written once
                - { source: again }
                            ^

            """, "\(command)")
        }
        // With the second writer input gone, the pixel format is what is left to refuse.
        let single = try String(contentsOfFile: recipe, encoding: .utf8).replacingOccurrences(of: "    - { source: again }\n", with: "")
            .replacingOccurrences(of: "    again: { track: \"#0\" }\n", with: "")
        try single.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(r.status == 65)
        #expect(r.stderr == "\(recipe):8:32: error: pixel format 'rgb24' is not supported by libx264 (it takes \(formats))\n"
                + "      settings: { codec: h264, pixel-format: rgb24 }\n" + String(repeating: " ", count: 31) + "^\n")
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }
}
