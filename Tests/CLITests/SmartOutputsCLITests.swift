import Foundation
import Pipeline
import Recipe
import Testing

/// A smart-rendered track among several outputs of one read (issue 28): its lane copies samples
/// and makes no decoded pictures, so a track whose read also makes another output's track or
/// stills is planned as a full encode with a notice naming why (`smart: auto`), or refused at the
/// `smart` key (`require`, 65, nothing written) — by `plan` and `run` alike. A smart output whose
/// pictures no other output takes stays smart.
@Suite("reencode with a smart-rendered track beside other outputs or stills", .serialized)
struct SmartOutputsCLITests {
    /// A trim (1.5–4.2 s of SmartRenderCLITests' 6 s source) with `outputs:` entries.
    static func recipe(_ outputs: String) -> String {
        """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        session:
          time-range: { start: 1.5s, end: 4.2s }
        outputs:
        \(outputs)
        """
    }

    static func smartOutput(_ smart: String) -> String {
        """
          - path: smart.mp4
            inputs:
              - { source: picture, settings: { codec: h264, smart: \(smart) } }
              - { source: sound, settings: aac-stereo }
        """
    }

    static let smallOutput = """
          - path: small.mp4
            inputs:
              - { source: picture, settings: { codec: h264, width: 160, codec-options: { preset: ultrafast } } }
        """

    static let stillsOutput = """
          - path: "still-{n}.png"
            images: { source: picture, at: [0.5s, 2s] }
        """

    static func write(_ dir: Scratch, _ text: String) throws {
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
    }

    static func plan(_ dir: Scratch) throws -> Binary.Result {
        try Binary.run(["plan", "r.yaml", "-i", "clip.mp4"], timeLimit: 120, cwd: dir.path)
    }

    static func run(_ dir: Scratch) throws -> Binary.Result {
        try Binary.run(["run", "r.yaml", "-i", "clip.mp4", "--quiet"], timeLimit: 300, cwd: dir.path)
    }

    /// `r.yaml:L:C: error: MESSAGE` at the `smart: require` key of `text`, with the line and caret.
    static func errorAtSmartKey(_ text: String, _ message: String) throws -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let n = try #require(lines.firstIndex { $0.contains("smart: require") })
        let column = try #require(lines[n].range(of: "smart:")).lowerBound.utf16Offset(in: lines[n]) + 1
        return "r.yaml:\(n + 1):\(column): error: \(message)\n\(lines[n])\n\(String(repeating: " ", count: column - 1))^\n"
    }

    /// smart.mp4 shows frames 45…125 at k/30, exactly as the full encode of the same trim (a
    /// recipe of its own, `smart: off`) shows them, and every packet is encoded: none is the source's.
    static func checkFullyEncoded(_ dir: Scratch) throws {
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(45..<126))
        try SmartRenderCLITests.recipe(output: "full.mp4", smart: "off", timing: SmartRenderCLITests.trim)
            .write(toFile: dir.file("full.yaml"), atomically: true, encoding: .utf8)
        let full = try Binary.run(["run", "full.yaml", "-i", dir.file("clip.mp4"), "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(full.status == 0, "\(full.stderr)")
        let a = try CompositionRunCLITests.stamps(out), b = try CompositionRunCLITests.stamps(dir.file("full.mp4"))
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        let source = try CopiedCompositionCLITests.packets(dir.file("clip.mp4"))
        let made = try CopiedCompositionCLITests.packets(out)
        #expect(made.count == 81)
        #expect(Set(made.map(\.hash)).isDisjoint(with: source.map(\.hash)), "a packet of smart.mp4 is the source's own: it was copied")
    }

    /// The notice line `plan` prints for the smart track.
    static func noticeLine(_ plan: Binary.Result) -> String? {
        (plan.stdout + plan.stderr).split(separator: "\n").map(String.init).first { $0.contains("smart rendering is off") }
    }

    @Test("smart: auto beside a second output of the same read: plan and run say it is encoded whole and why; it equals the full encode, no packet copied; the other output is written too")
    func autoBesideOutput() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, Self.recipe(Self.smartOutput("auto") + "\n" + Self.smallOutput))
        let reason = "track #0: smart rendering is off: output 2 takes its pictures from the same read (a smart-rendered track is written to one output alone); every picture is encoded"
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(Self.noticeLine(plan) == "warning: " + reason, "\(plan.stdout)\(plan.stderr)")
        #expect(!plan.stdout.contains("pictures copied"), "\(plan.stdout)")

        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(reason), "\(r.stderr)")
        try Self.checkFullyEncoded(dir)
        let small = try CompositionRunCLITests.stamps(dir.file("small.mp4"))
        #expect(small.map(\.stamp) == Array(45..<126).map { Optional($0) })
    }

    @Test("smart: auto as the second output, the first encoding the same pictures: plan says output 2 is encoded whole, as the run writes it")
    func autoAfterOutput() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, Self.recipe(Self.smallOutput + "\n" + Self.smartOutput("auto")))
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(Self.noticeLine(plan) == "warning: track #0: smart rendering is off: output 1 takes its pictures from the same read (a smart-rendered track is written to one output alone); every picture is encoded",
                "\(plan.stdout)\(plan.stderr)")
        #expect(!plan.stdout.contains("pictures copied"), "\(plan.stdout)")
        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        try Self.checkFullyEncoded(dir)
    }

    @Test("smart: require beside a second output of the same read: refused at the smart key by plan and run (65), nothing written")
    func requireBesideOutput() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        let text = Self.recipe(Self.smartOutput("require") + "\n" + Self.smallOutput)
        try Self.write(dir, text)
        let want = try Self.errorAtSmartKey(text, "smart rendering is required, but output 2 takes its pictures from the same read (a smart-rendered track is written to one output alone)")
        let r = try Self.run(dir)
        #expect(r.status == 65)
        #expect(r.stderr == want, "\(r.stderr)")
        let plan = try Self.plan(dir)
        #expect(plan.status == 65 && plan.stderr == want, "\(plan.stderr)")
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("smart: auto beside stills of its pictures: encoded whole, saying why; the stills show the frames at their times")
    func autoBesideStills() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, Self.recipe(Self.smartOutput("auto") + "\n" + Self.stillsOutput))
        let reason = "track #0: smart rendering is off: the stills of output 2 take its pictures from the same read (a smart-rendered track draws no stills); every picture is encoded"
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(Self.noticeLine(plan) == "warning: " + reason, "\(plan.stdout)\(plan.stderr)")
        #expect(!plan.stdout.contains("pictures copied"), "\(plan.stdout)")

        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(reason), "\(r.stderr)")
        try Self.checkFullyEncoded(dir)
        // 0.5 s and 2 s into the trim: source frames 60 and 105.
        #expect(try CompositionStillsCLITests.stamp(dir.file("still-1.png")) == 60)
        #expect(try CompositionStillsCLITests.stamp(dir.file("still-2.png")) == 105)
    }

    @Test("smart: require beside stills and another output: refused at the smart key naming both (65), nothing written")
    func requireBesideStills() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        let text = Self.recipe(Self.smartOutput("require") + "\n" + Self.smallOutput + "\n" + Self.stillsOutput)
        try Self.write(dir, text)
        let want = try Self.errorAtSmartKey(text, "smart rendering is required, but output 2 and the stills of output 3 take its pictures from the same read (a smart-rendered track is written to one output alone and draws no stills)")
        let r = try Self.run(dir)
        #expect(r.status == 65)
        #expect(r.stderr == want, "\(r.stderr)")
        let plan = try Self.plan(dir)
        #expect(plan.status == 65 && plan.stderr == want, "\(plan.stderr)")
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("smart: require beside an output of the sound alone: its pictures are its own, so it stays smart (2.0–4.0 s the source's packets)")
    func besideSoundOnly() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, Self.recipe(Self.smartOutput("require") + "\n" + """
              - path: sound.m4a
                inputs:
                  - { source: sound, settings: aac-stereo }
            """))
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("smart    output track 1: 60 pictures copied (2 groups of pictures), 21 encoded"), "\(plan.stdout)")
        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(45..<126))
        let source = try CopiedCompositionCLITests.packets(dir.file("clip.mp4")).sorted { $0.pts < $1.pts }
        let made = try CopiedCompositionCLITests.packets(out).sorted { $0.pts < $1.pts }
        #expect(made.count == 81)
        #expect(Array(made[16..<75]).map(\.hash) == Array(source[61..<120]).map(\.hash))
    }

    @Test("smart: require in a cut-out beside stills of the composition: the stills are drawn for themselves, the track stays smart (source packets between the cuts), the stills show the composed frames")
    func composedStills() throws {
        let dir = Scratch()
        try SmartRenderCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
            composition:
              video:
                - { start: 0.4s, end: 2.3s }
                - { start: 3.1s, end: 5.5s }
            outputs:
              - path: smart.mp4
                inputs:
                  - { source: picture, settings: { codec: h264, smart: require } }
              - path: "still-{n}.png"
                images: { source: picture, at: [0.5s, 2.5s] }
            """)
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("smart    output track 1: "), "\(plan.stdout)")
        #expect(plan.stdout.contains("stills of output 2: the composition's video drawn for them alone (nothing encoded)"), "\(plan.stdout)")
        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(12..<69) + Array(93..<165))
        let source = Set(try CopiedCompositionCLITests.packets(dir.file("clip.mp4")).map(\.hash))
        let copied = try CopiedCompositionCLITests.packets(out).filter { source.contains($0.hash) }.count
        // Two copied runs of one group (30 pictures) each; each run's first sample carries its
        // parameter sets before its own bytes.
        #expect(copied == 58, "\(copied) packets are the source's")
        // 0.5 s: segment 1 at 0.9 s (frame 27); 2.5 s: segment 2 (from 1.9 s) at 3.7 s (frame 111).
        #expect(try CompositionStillsCLITests.stamp(dir.file("still-1.png")) == 27)
        #expect(try CompositionStillsCLITests.stamp(dir.file("still-2.png")) == 111)
    }

    @Test("smart: require after an output of the sound alone: the pictures stay smart; plan says the smart output's sound is encoded whole, as output 1 takes it from the same read, and the run writes none of the source's sound frames")
    func soundAfterSoundOnly() throws {
        let dir = Scratch()
        // A tone under the bursts: no two of its sound frames alike.
        try SmartSoundCLITests.makeSource(dir.file("clip.mp4"), seconds: 6)
        try Self.write(dir, Self.recipe("""
              - path: sound.m4a
                inputs:
                  - { source: sound, settings: aac-stereo }
            """ + "\n" + Self.smartOutput("require")))
        let plan = try Self.plan(dir)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("smart    output track 1: 60 pictures copied (2 groups of pictures), 21 encoded"), "\(plan.stdout)")
        let sound = plan.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("sound    ") }
        #expect(sound == ["sound    output track 2: encoded whole: output 1 takes its sound from the same read (a copied sound is written to one output alone)"], "\(plan.stdout)")
        let r = try Self.run(dir)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(45..<126))
        let source = Set(try SmartSoundCLITests.soundPackets(dir.file("clip.mp4")).map(\.hash))
        let made = try SmartSoundCLITests.soundPackets(out)
        // 2.7 s of sound: the first packet is the priming the edit list hides.
        #expect(made.count >= 127 && made.dropFirst().allSatisfy { !source.contains($0.hash) }, "\(made.count) packets")
    }
}
