import Foundation
import Testing

/// `fragment:` refused by `run` as a recipe error: 65, at its line, nothing written.
@Suite("reencode run: a fragment that cannot be made is a recipe error (65) and writes nothing")
struct FragmentCLITests {
    @Test("fragment on an mkv output; fragments shorter than a frame (5ms at 120 fps): 65 at the fragment line, no output",
          arguments: [("o.mkv", "2s", "'fragment' makes a fragmented MP4, but this output is an mkv file: use an mp4, mov or m4a output"),
                      ("o.mp4", "5ms", "track #0: fragments of 0.005s are shorter than one frame at 120 fps (0.008s): each fragment starts with a picture of its own")])
    func refused(path: String, fragment: String, why: String) throws {
        let dir = Scratch()
        let src = dir.file("s.mp4")
        try makeShortSource(src)
        try """
            recipe: 1
            output: { path: \(path), fragment: \(fragment) }
            reader: { outputs: { v: { track: video } } }
            writer: { inputs: [ { source: v } ] }
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", src], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 65, "\(path): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("\(dir.file("r.yaml")):2:\(29 + path.utf8.count): error: ") && r.stderr.contains(why), "\(path): \(r.stderr)")
        #expect(dir.contents.sorted() == ["r.yaml", "s.mp4"])
    }
}
