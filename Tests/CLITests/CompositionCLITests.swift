import Foundation
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `validate` reads compositions (issue 12); `plan`, `run` and `batch` refuse those of several
/// source files at the first `sources:` entry that is not the input, with 65, and make nothing.
@Suite("reencode with compositions: validate accepts, plan/run/batch refuse several sources", .serialized)
struct CompositionCLITests {
    static let recipe = """
    # two clips end to end
    recipe: 1
    output: out.mp4
    sources:
      a: a.mp4
      b: "{input}"
      c: c.mp4
    composition:
      video:
        - { source: a, end: 1s }
        - { source: b, start: 1s, end: 2s, speed: 1/8 }
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture, settings: h264-640x480 }
    """

    @Test("validate: the bundled composition recipes are ok, with nothing on stderr")
    func bundled() throws {
        let paths = ["concat", "cut-out", "slomo-240-to-30"].map { repo.appendingPathComponent("recipes/\($0).yaml").path }
        let r = try Binary.run(["validate"] + paths, timeLimit: 60)
        #expect(r.status == 0)
        #expect(r.stdout == paths.map { "\($0): ok\n" }.joined())
        #expect(r.stderr == "")
    }

    @Test("validate: what has no effect is a warning with its caret on stderr, and the recipe is ok (0)")
    func warning() throws {
        let dir = Scratch()
        let path = dir.file("r.yaml")
        try Self.recipe.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["validate", path], timeLimit: 60)
        #expect(r.status == 0)
        #expect(r.stdout == "\(path): ok\n")
        #expect(r.stderr == "\(path):7:3: warning: source 'c' is not used by any segment\n  c: c.mp4\n  ^\n")
    }

    @Test("validate: a mistake in a segment is an error at its line (65)")
    func error() throws {
        let dir = Scratch()
        let path = dir.file("r.yaml")
        try Self.recipe.replacingOccurrences(of: "speed: 1/8", with: "speed: 0").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["validate", path], timeLimit: 60)
        #expect(r.status == 65)
        #expect(r.stdout == "")
        #expect(r.stderr == "\(path):11:47: error: 'speed' must be from 1/32 to 32, not '0'\n    - { source: b, start: 1s, end: 2s, speed: 0 }\n                                              ^\n")
    }

    @Test("plan, run and batch: several source files are refused at the first other source's line (65), nothing made")
    func refused() throws {
        let dir = Scratch()
        let path = dir.file("r.yaml")
        try Self.recipe.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try Data("not media".utf8).write(to: URL(fileURLWithPath: dir.file("in/b.mp4")))
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let refusal = "\(path):5:3: error: several source files are not yet supported: this build composes segments of the input ('{input}') only\n  a: a.mp4\n  ^\n"
        for command in [["plan", path, "-i", dir.file("in/b.mp4")],
                        ["run", path, "-i", dir.file("in/b.mp4"), "-o", dir.file("out/o.mp4")],
                        ["batch", path, "--input-dir", dir.file("in"), "--output-dir", dir.file("out")]] {
            let r = try Binary.run(command, timeLimit: 60)
            #expect(r.status == 65, "\(command[0])")
            #expect(r.stderr == refusal, "\(command[0])")
            #expect(r.stdout == "", "\(command[0])")
        }
        #expect(dir.contents == ["in", "out", "r.yaml"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("in")) == ["b.mp4"])
    }
}
