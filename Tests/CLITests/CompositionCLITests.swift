import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `validate` reads compositions; `plan`, `run` and `batch` compose several files.
@Suite("reencode with compositions of several files: validate, plan, run, batch", .serialized)
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

    static let concatRecipe = """
    recipe: 1
    output: "{stem}-joined.mp4"
    sources:
      intro: intro.mp4
      clip: "{input}"
      outro: outro.mp4
    composition:
      video:
        - { source: intro }
        - { source: clip }
        - { source: outro, end: 0.5s }
    reader:
      outputs:
        picture: { track: video }
    writer:
      inputs:
        - { source: picture, settings: { base: h264-640x480, frame-rate: 30 } }
    """

    /// `frames` pictures at 30 fps stamped `base + i`.
    static func clip(_ path: String, base: Int, frames: Int, width: Int = 320, height: Int = 180) throws {
        let rate = FrameRate(frames: 30)
        let s = try FrameSource(path: path, video: GeneratedVideoFormat(width: width, height: height, frameRate: rate), audio: nil)
        for i in 0..<frames { try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: base + i, into: $0) } }
        try s.finish()
    }

    static func stamps(_ path: String) throws -> [Int?] {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var out: [Int?] = []
        while let p = try r.nextPicture() { out.append(p.stamp) }
        return out
    }

    @Test("plan, run and batch: an intro and an outro around each input, frame for frame; the plan lists the files")
    func severalFiles() throws {
        let dir = Scratch()
        try Self.concatRecipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        try Self.clip(dir.file("intro.mp4"), base: 1000, frames: 30)
        try Self.clip(dir.file("outro.mp4"), base: 3000, frames: 30)
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try Self.clip(dir.file("in/b.mp4"), base: 2000, frames: 45)
        try Self.clip(dir.file("in/c.mp4"), base: 4000, frames: 15)

        let plan = try Binary.run(["plan", "r.yaml", "-i", "in/b.mp4"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("""
            sources  intro.mp4  [1.000s]
                     in/b.mp4  [1.500s]
                     outro.mp4  [1.000s]
            """), "\(plan.stdout)")
        #expect(plan.stdout.contains("segment  3: source [0.000s, 0.500s) at 2.500s for 0.500s, speed 1  (outro.mp4, 15 frames)"), "\(plan.stdout)")

        let run = try Binary.run(["run", "r.yaml", "-i", "in/b.mp4", "-o", "b.mp4", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.stamps(dir.file("b.mp4")) == (Array(1000..<1030) + Array(2000..<2045) + Array(3000..<3015)).map { Optional($0) })

        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let batch = try Binary.run(["batch", "r.yaml", "--input-dir", "in", "--output-dir", "out", "--settle", "0"], timeLimit: 300, cwd: dir.path)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try Self.stamps(dir.file("out/b-joined.mp4")) == (Array(1000..<1030) + Array(2000..<2045) + Array(3000..<3015)).map { Optional($0) })
        #expect(try Self.stamps(dir.file("out/c-joined.mp4")) == (Array(1000..<1030) + Array(4000..<4015) + Array(3000..<3015)).map { Optional($0) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("in")).sorted() == ["b.mp4", "c.mp4"])
    }

    @Test("a source file that is missing is named, with 66, and nothing is made")
    func missingFile() throws {
        let dir = Scratch()
        try Self.concatRecipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        try Self.clip(dir.file("intro.mp4"), base: 1000, frames: 30)
        try Self.clip(dir.file("b.mp4"), base: 2000, frames: 30)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, "r.yaml", "-i", "b.mp4"], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 66, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("outro.mp4"), "\(command): \(r.stderr)")
            #expect(r.stdout == "")
        }
        #expect(dir.contents.sorted() == ["b.mp4", "intro.mp4", "r.yaml"])
    }

    @Test("run: an output naming another file of the composition is refused (73) even with --overwrite; that file is untouched")
    func outputIsOtherSource() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try CompositionRunCLITests.makeSource(a, fps: 30, frames: 30)
        try CompositionRunCLITests.makeSource(b, fps: 30, frames: 60)
        let before = FileManager.default.contents(atPath: a)
        let path = dir.file("r.yaml")
        // ./a.mp4: the same file under another spelling.
        try Self.recipe.replacingOccurrences(of: "output: out.mp4", with: "output: ./a.mp4").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", b, "--overwrite"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 73)
        #expect(r.stderr == "error: ./a.mp4: is the source a.mp4 (the same file): the output may never replace it; name another output\n", "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: a) == before)
        #expect(dir.contents.sorted() == ["a.mp4", "b.mp4", "r.yaml"])
    }

    @Test("plan: a segment's range outside its own file is refused at its line naming that file, not the input (65)")
    func segmentErrorNamesItsFile() throws {
        let dir = Scratch()
        try CompositionRunCLITests.makeSource(dir.file("a.mp4"), fps: 30, frames: 30)
        let b = dir.file("b.mp4")
        try CompositionRunCLITests.makeSource(b, fps: 30, frames: 60)
        let path = dir.file("r.yaml")
        try Self.recipe.replacingOccurrences(of: "{ source: a, end: 1s }", with: "{ source: a, start: 5s }").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", path, "-i", b], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 65)
        #expect(r.stderr == "\(path):10:27: error: a.mp4: segment 1: it starts at 5.000s, at or after the end of a.mp4 (1.000s)\n    - { source: a, start: 5s }\n                          ^\n", "\(r.stderr)")
    }

    @Test("run: a first file with video only (#0) and sound from a file whose sound is its #0: both written, each from its file")
    func sameTrackNumberInTwoFiles() throws {
        let dir = Scratch()
        let v = dir.file("v.mp4"), s = dir.file("s.m4a")
        try CompositionRunCLITests.makeSource(v, fps: 30, frames: 30)
        // Sound only: its one track is #0, as the video's is in v.mp4.
        let src = try FrameSource(path: s, video: nil, audio: GeneratedAudioFormat())
        try src.appendAudio(count: 48000) { _, _ in 0 }
        try src.finish()
        let path = dir.file("r.yaml")
        try """
        recipe: 1
        output: out.mp4
        sources:
          v: v.mp4
          s: s.m4a
        composition:
          video:
            - { source: v }
            - { source: s }
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: h264-640x480 }
            - { source: sound, settings: aac-stereo }

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", v, "--quiet"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try Asset.load(dir.file("out.mp4"))
        #expect(out.tracks.map(\.mediaType) == [.video, .audio])
        #expect(out.duration == MediaTime(seconds: 2))
    }
}
