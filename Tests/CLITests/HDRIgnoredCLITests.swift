import Foundation
import Testing

/// `hdr` on a track that is copied (codec: copy, or its reader output not decoded) does nothing:
/// the HLG pictures stay HLG. The plan says so, as it does for every other ignored setting.
@Suite("hdr on a copied track: said to have no effect")
struct HDRIgnoredCLITests {
    @Test("'hdr: tone-map' with codec: copy, and with decode: false: plan warns that 'hdr' has no effect", arguments: [
        ("{ track: video }", "{ codec: copy, hdr: tone-map }", "the track is copied as it is"),
        ("{ track: video, decode: false }", "{ hdr: tone-map }",
         "reader output 'picture' is not decoded (decode: false), so the track is copied as it is"),
    ])
    func copied(output: String, settings: String, why: String) throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4")
        try HDRCLITests.hlgSource(src)
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        reader:
          outputs:
            picture: \(output)
        writer:
          inputs:
            - { source: picture, settings: \(settings) }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stdout.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings == ["warning: track #0: 'hdr' has no effect: \(why)"])
    }
}
