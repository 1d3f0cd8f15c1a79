import Foundation
import Pipeline
import Recipe
import Testing

/// Still images of a composition: on frame-stamped files, each still shows the source frame the
/// composition shows at its time (the same as the composition's own encoded frame there), a
/// still in a cross-fade shows both frames blended, `plan` names the frames; refusals at their
/// recipe line (65) with nothing written. Stills with no output of the composition's video, at
/// the render size, under layers, of HDR: CompositionStillsDrawnCLITests.
@Suite("reencode with stills of a composition", .serialized)
struct CompositionStillsCLITests {
    /// a.mp4 shows stamps 100…159, b.mp4 200…259: 2 s each at 30 fps, 160x96.
    static func sources(_ dir: Scratch) throws {
        try MixInputCLITests.clip(dir.file("a.mp4"), base: 100, sound: false)
        try MixInputCLITests.clip(dir.file("b.mp4"), base: 200, sound: false)
    }

    static func recipe(_ video: String, images: String, media: Bool = true, rate: String = "frame-rate: 30, ") -> String {
        """
        recipe: 1
        sources:
          a: a.mp4
          b: b.mp4
        composition:
          video:
        \(video)
        reader:
          outputs:
            picture: { track: video }
        outputs:
        \(media ? "  - path: out.mp4\n    inputs:\n      - { source: picture, settings: { codec: h264, \(rate)codec-options: { preset: ultrafast } } }\n" : "")\(images)

        """
    }

    /// a's first second, then b's 0.5–1.5 s at half speed (2 s): 3 s in all.
    static let slowed = """
            - { source: a, end: 1s }
            - { source: b, start: 0.5s, end: 1.5s, speed: 1/2 }
        """

    /// The stamp of a picture file (a still, or the first picture of a file).
    static func stamp(_ path: String) throws -> Int? {
        try SampleReader(path: path, track: .type(.video, 0)).nextPicture()?.stamp
    }

    /// The picture of `path`'s video on display at `t`: the last that starts at or before it.
    static func shown(_ path: String, at t: Double) throws -> DecodedPicture? {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var last: DecodedPicture?
        while let p = try r.nextPicture(), p.pts.seconds <= t + 1e-9 { last = p }
        return last
    }

    /// The stamp band's 16 blocks, each as its mean luma says: 1 white, 0 black, nil between (a blend).
    static func blocks(_ p: DecodedPicture) -> [Int?] {
        let band = max(2, (p.height / 8) & ~1)
        return (0..<16).map { bit in
            let x0 = bit * p.width / 16, x1 = (bit + 1) * p.width / 16
            var sum = 0, n = 0
            for y in band / 4..<(band - band / 4) { for x in (x0 + (x1 - x0) / 4)..<(x1 - (x1 - x0) / 4) { sum += Int(p.luma[y * p.width + x]); n += 1 } }
            let mean = sum / max(n, 1)
            return mean > 170 ? 1 : mean < 80 ? 0 : (mean > 95 && mean < 160 ? nil : -1)
        }
    }

    /// What an error at `line`:`column` of `text` prints.
    static func diagnostic(_ text: String, line: Int, column: Int, _ message: String) -> String {
        let source = text.components(separatedBy: "\n")[line - 1]
        return "r.yaml:\(line):\(column): error: \(message)\n\(source)\n\(String(repeating: " ", count: column - 1))^\n"
    }

    @Test("segments of two files, one at half speed: each still shows the source frame the composition shows at its time (its own output's frame there); every and plan count on the composition's 3 s")
    func segments() throws {
        let dir = Scratch()
        try Self.sources(dir)
        let text = Self.recipe(Self.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 1.6s, 2.95s] }
              - path: "e-{n}.jpg"
                images: { source: picture, every: 1s }
            """)
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        // Slot 88 (2.933 s) holds 2.95 s: b at 0.5 + 1.933/2 = 1.467 s, its frame 44.
        #expect(plan.stdout.contains("""
              #1 at 0.500s: the composed frame at 0.500s (segment 1 a.mp4 0.500s) → s-1.png
              #2 at 1.600s: the composed frame at 1.600s (segment 2 b.mp4 0.800s) → s-2.png
              #3 at 2.950s: the composed frame at 2.933s (segment 2 b.mp4 1.467s) → s-3.png
            """), "\(plan.stdout)")
        #expect(plan.stdout.contains("""
              #1 at 0.000s: the composed frame at 0.000s (segment 1 a.mp4 0.000s) → e-1.jpg
              #2 at 1.000s: the composed frame at 1.000s (segment 2 b.mp4 0.500s) → e-2.jpg
              #3 at 2.000s: the composed frame at 2.000s (segment 2 b.mp4 1.000s) → e-3.jpg
            """), "\(plan.stdout)")
        #expect(plan.stdout.contains("3 stills of the composition (3.000s) as output track 1 draws it, 160x96 PNG"), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        let o = try #require(BatchFixture.json(json.stdout))
        let images = try #require(o["images"] as? [[String: Any]])
        #expect(images.map { $0["decode"] as? String } == ["shared", "shared"])
        let composition = try #require(images[0]["composition"] as? [String: Any])
        #expect(composition["outputTrack"] as? Int == 1 && composition["frameRate"] as? String == "30", "\(composition)")
        let stills = try #require(images[0]["stills"] as? [[String: Any]])
        #expect(stills.map { $0["frame"] as? String } == ["composed", "composed", "composed"])
        #expect(stills.map { $0["time"] as? Double } == [0.5, 1.6, 88.0 / 30] && stills.allSatisfy { $0["decodedFrom"] == nil })
        let second = try #require((stills[1]["sources"] as? [[String: Any]])?.first)
        #expect(second["segment"] as? Int == 2 && (second["file"] as? String)?.hasSuffix("b.mp4") == true && second["time"] as? Double == 0.8, "\(second)")

        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(dir.contents == ["a.mp4", "b.mp4", "e-1.jpg", "e-2.jpg", "e-3.jpg", "out.mp4", "r.yaml", "s-1.png", "s-2.png", "s-3.png"])
        let out = dir.file("out.mp4")
        for (name, t, stamp) in [("s-1.png", 0.5, 115), ("s-2.png", 1.6, 224), ("s-3.png", 2.95, 244), ("e-1.jpg", 0, 100), ("e-2.jpg", 1, 215), ("e-3.jpg", 2, 230)] {
            #expect(try Self.stamp(dir.file(name)) == stamp, "\(name)")
            #expect(try Self.shown(out, at: t)?.stamp == stamp, "the output's frame at \(t) s")
            let still = try #require(try SampleReader(path: dir.file(name), track: .type(.video, 0)).nextPicture())
            #expect(still.width == 160 && still.height == 96, "\(name)")
        }
    }

    @Test("without a frame rate (the sources' timing): each still shows the frame on display at its time, as the output there; plan says where that frame starts")
    func sourceTiming() throws {
        let dir = Scratch()
        try Self.sources(dir)
        let text = Self.recipe(Self.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 1.6s, 2.95s] }
            """, rate: "")
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        // 2.95 s: b at 1.475 s, whose frame 44 (1.467 s) starts at 1 + 0.967·2 = 2.933 s.
        #expect(plan.stdout.contains("""
              #2 at 1.600s: the composed frame at 1.600s (segment 2 b.mp4 0.800s) → s-2.png
              #3 at 2.950s: the composed frame at 2.933s (segment 2 b.mp4 1.467s) → s-3.png
            """), "\(plan.stdout)")
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        for (name, t, stamp) in [("s-1.png", 0.5, 115), ("s-2.png", 1.6, 224), ("s-3.png", 2.95, 244)] {
            #expect(try Self.stamp(dir.file(name)) == stamp, "\(name)")
            #expect(try Self.shown(dir.file("out.mp4"), at: t)?.stamp == stamp, "the output's frame at \(t) s")
        }
    }

    @Test("a still in a cross-fade shows both frames blended, as the encoded output's frame there; either side, one frame")
    func crossFade() throws {
        let dir = Scratch()
        try Self.sources(dir)
        let text = Self.recipe("""
                - { source: a }
                - { source: b, transition: { kind: cross-fade, duration: 1s } }
            """, images: """
              - path: "x-{n}.png"
                images: { source: picture, at: [1s, 2s, 3s] }
            """)
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        // At the cut (2 s) a's last frame (held: the file ends) and b's first, half each.
        #expect(plan.stdout.contains("#2 at 2.000s: the composed frame at 2.000s (segment 1 a.mp4 1.967s + segment 2 b.mp4 0.000s) → x-2.png"), "\(plan.stdout)")
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.stamp(dir.file("x-1.png")) == 130)
        #expect(try Self.stamp(dir.file("x-3.png")) == 230)
        // 159 and 200 blended: a block white in both is white, black in both black, else between.
        let blend = try #require(try SampleReader(path: dir.file("x-2.png"), track: .type(.video, 0)).nextPicture())
        let want: [Int?] = (0..<16).map { bit in
            let (p, q) = ((159 >> (15 - bit)) & 1, (200 >> (15 - bit)) & 1)
            return p == q ? p : nil
        }
        #expect(Self.blocks(blend) == want)
        #expect(want.contains { $0 == nil }, "the two stamps differ")
        let encoded = try #require(try Self.shown(dir.file("out.mp4"), at: 2))
        #expect(Self.blocks(encoded) == want, "the output's own frame at 2 s")
    }

    @Test("a still at a dip's cut shows the colour it dips to, as the encoded output there: the stills are taken after the fades")
    func dip() throws {
        let dir = Scratch()
        try Self.sources(dir)
        let text = Self.recipe("""
                - { source: a }
                - { source: b, transition: { kind: dip, duration: 1s } }
            """, images: """
              - path: "d-{n}.png"
                images: { source: picture, at: [1s, 2s] }
            """)
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.stamp(dir.file("d-1.png")) == 130)
        func mean(_ p: DecodedPicture) -> Double { Double(p.luma.reduce(0) { $0 + Int($1) }) / Double(p.luma.count) }
        let cut = try #require(try SampleReader(path: dir.file("d-2.png"), track: .type(.video, 0)).nextPicture())
        let encoded = try #require(try Self.shown(dir.file("out.mp4"), at: 2))
        #expect(mean(cut) < 20 && mean(encoded) < 24, "black at the cut: \(mean(cut)), the output's \(mean(encoded))")
    }

    @Test("refusals at their line (65), nothing written: a time past the composition's end, a keyframe tolerance")
    func refusals() throws {
        let dir = Scratch()
        try Self.sources(dir)
        let files = ["a.mp4", "b.mp4", "r.yaml"]
        // 5 s in a composition of 3 s: at the line of `at`.
        let outside = Self.recipe(Self.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 5s] }
            """)
        try outside.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let line = outside.components(separatedBy: "\n").firstIndex { $0.contains("at: [0.5s, 5s]") }! + 1
        let column = outside.components(separatedBy: "\n")[line - 1].distance(of: "[")! + 1
        let want = Self.diagnostic(outside, line: line, column: column, "the time 5.000s is outside the composition, which lasts 3.000s")
        for command in ["run", "plan"] {
            let r = try Binary.run([command, "r.yaml"], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 65 && r.stderr == want, "\(command): \(r.stderr)")
            #expect(dir.contents == files)
        }
        // `keyframe`: at the tolerance.
        let keyframe = Self.recipe(Self.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: 1s, tolerance: keyframe }
            """)
        try keyframe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let kLine = keyframe.components(separatedBy: "\n").firstIndex { $0.contains("tolerance: keyframe") }! + 1
        let kColumn = keyframe.components(separatedBy: "\n")[kLine - 1].distance(of: "keyframe")! + 1
        let kWant = Self.diagnostic(keyframe, line: kLine, column: kColumn, "the images of output 2 are of the composition, whose pictures are drawn frame by frame: a tolerance other than 'exact' has no meaning for them (no keyframe of the composition lies near an instant); leave out 'tolerance'")
        for command in ["run", "plan", "validate"] {
            let r = try Binary.run([command, "r.yaml"], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 65 && r.stderr.hasPrefix(kWant), "\(command): \(r.stderr)")
            #expect(dir.contents == files)
        }
    }
}

private extension String {
    /// The offset of `s`'s first occurrence, in characters.
    func distance(of s: String) -> Int? {
        range(of: s).map { distance(from: startIndex, to: $0.lowerBound) }
    }
}
