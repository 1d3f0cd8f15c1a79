import Foundation
import Pipeline
import Recipe
import Testing

/// What `plan` and `run` say about a composition's files: which one a message is about, a
/// composition that reads no input, files of one name in two folders.
@Suite("reencode with compositions: each message names its own file", .serialized)
struct CompositionFilesCLITests {
    static func recipe(output: String = "out.mp4", a: String = "a.mp4", b: String = "b.mp4", sound: Bool = false) -> String {
        """
        recipe: 1
        output: \(output)
        sources:
          a: \(a)
          b: \(b)
        composition:
          video:
            - { source: a }
            - { source: b }
        reader:
          outputs:
            picture: { track: video }
        \(sound ? "    sound: { track: audio }\n" : "")writer:
          inputs:
            - { source: picture, settings: h264-640x480 }
        \(sound ? "    - { source: sound, settings: aac-stereo }\n" : "")
        """
    }

    @Test("a composition that reads no input needs no -i: plan and run make its files' frames in order")
    func noInputNeeded() throws {
        let dir = Scratch()
        try CompositionCLITests.clip(dir.file("a.mp4"), base: 100, frames: 10)
        try CompositionCLITests.clip(dir.file("b.mp4"), base: 200, frames: 5)
        try Self.recipe().write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("segment  2: source [0.000s, 0.167s) at 0.333s for 0.167s, speed 1  (b.mp4, 5 frames)"), "\(plan.stdout)")
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try CompositionCLITests.stamps(dir.file("out.mp4")) == (Array(100..<110) + Array(200..<205)).map { Optional($0) })
    }

    @Test("a composition that reads no input but makes a path from its name asks for one (66), naming the path")
    func tokenNeedsInput() throws {
        let dir = Scratch()
        try CompositionCLITests.clip(dir.file("a.mp4"), base: 100, frames: 10)
        try CompositionCLITests.clip(dir.file("b.mp4"), base: 200, frames: 5)
        try Self.recipe(output: "\"{stem}-joined.mp4\"").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, "r.yaml"], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 66, "\(command)")
            #expect(r.stderr == "error: r.yaml: '{stem}-joined.mp4' is made from the input's name, but the composition reads no input and none is named: name one with -i INPUT or 'source:' in the recipe, or write the path out\n", "\(command): \(r.stderr)")
        }
        #expect(dir.contents.sorted() == ["a.mp4", "b.mp4", "r.yaml"])
    }

    @Test("two files of one name in two folders: plan names each by its path, in segments, the picture and the reasons")
    func sameNameTwoFolders() throws {
        let dir = Scratch()
        for f in ["x", "y"] { try FileManager.default.createDirectory(atPath: dir.file(f), withIntermediateDirectories: true) }
        try CompositionCLITests.clip(dir.file("x/clip.mp4"), base: 100, frames: 30, width: 320, height: 180)
        try CompositionCLITests.clip(dir.file("y/clip.mp4"), base: 200, frames: 30, width: 160, height: 90)
        try Self.recipe(a: "x/clip.mp4", b: "y/clip.mp4").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("segment  1: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (x/clip.mp4, 30 frames)"), "\(plan.stdout)")
        #expect(plan.stdout.contains("segment  2: source [0.000s, 1.000s) at 1.000s for 1.000s, speed 1  (y/clip.mp4, 30 frames)"), "\(plan.stdout)")
        #expect(plan.stdout.contains("timeline |x/clip.mp4 ="), "\(plan.stdout)")
        #expect(plan.stdout.contains("(x/clip.mp4 320x180, y/clip.mp4 160x90)"), "\(plan.stdout)")
    }

    @Test("a track no writer input takes is named with its own file, in plan, run and JSON")
    func unwrittenTrackOfAnotherFile() throws {
        let dir = Scratch()
        try CompositionRunCLITests.makeSource(dir.file("a.mp4"), fps: 30, frames: 15, bursts: [])
        try CompositionRunCLITests.makeSource(dir.file("b.mp4"), fps: 30, frames: 15, bursts: [])
        try Self.recipe().write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let message = "track #1: audio aac \"SoundHandler\" is not written: no writer input takes it"
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.hasSuffix("warning: \(message)\nwarning: b.mp4: \(message)\n"), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let warnings = object?["warnings"] as? [[String: Any]] ?? []
        #expect(warnings.map { $0["file"] as? String } == ["a.mp4", "b.mp4"])
        #expect(warnings.map { $0["track"] as? Int } == [1, 1])
        let run = try Binary.run(["run", "r.yaml"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("warning: a.mp4: \(message)\nwarning: b.mp4: \(message)\n"), "\(run.stderr)")
    }

    @Test("sound no file of the composition has is refused naming every file and its tracks (66)")
    func missingKindNamesEveryFile() throws {
        let dir = Scratch()
        try CompositionCLITests.clip(dir.file("a.mp4"), base: 100, frames: 10)
        try CompositionCLITests.clip(dir.file("b.mp4"), base: 200, frames: 5)
        try Self.recipe(sound: true).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 66)
        #expect(r.stderr.hasPrefix("r.yaml:13:5: error: reader output 'sound' wants the audio track, but none of the composition's files has one (a.mp4 has #0 video; b.mp4 has #0 video); add 'optional: true' to convert without it\n"), "\(r.stderr)")
    }
}
