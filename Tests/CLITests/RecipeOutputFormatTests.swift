import Foundation
import Testing

/// A recipe's own output path tells the container as `-o` does (`OutputLocation.format`): the
/// same rules, one-character and extensionless names included, with the recipe's line:col.
@Suite("reencode plan: the container from the recipe's output path")
struct RecipeOutputFormatTests {
    @Test("a recipe output path without a usable extension is a recipe error at its line:col (65), never a crash",
          arguments: [("x", "has no extension to tell the container from: end it in .mp4, .mov, .m4a, .mkv, .webm, .flac, .opus, .ogg or .wav, or name the format"),
                      ("{dir}/y", "has no extension to tell the container from: end it in .mp4, .mov, .m4a, .mkv, .webm, .flac, .opus, .ogg or .wav, or name the format"),
                      ("{dir}/z.avi", "cannot tell the container from the extension '.avi': use mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav, or name the format"),
                      ("{dir}/.mkv", "has no extension to tell the container from: end it in .mp4, .mov, .m4a, .mkv, .webm, .flac, .opus, .ogg or .wav, or name the format")])
    func noContainer(template: String, why: String) throws {
        let dir = Scratch()
        let src = dir.file("s.mp4")
        try makeShortSource(src)
        try """
            recipe: 1
            output: "\(template)"
            reader: { outputs: { v: { track: video } } }
            writer: { inputs: [ { source: v } ] }
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 30, cwd: dir.path)
        let out = template.replacingOccurrences(of: "{dir}", with: dir.path)
        #expect(r.status == 65, "\(template): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("\(dir.file("r.yaml")):2:9: error: \(out): \(why)\n"), "\(template): \(r.stderr)")
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }
}
