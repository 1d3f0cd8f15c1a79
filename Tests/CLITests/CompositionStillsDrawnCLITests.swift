import Foundation
import Pipeline
import Recipe
import Testing

/// Stills of a composition at its render size, and drawn for themselves where no output draws
/// them (issue 24): on frame-stamped files, a recipe of stills only shows the source frames the
/// composition shows (a cross-fade blended) and writes no video; stills are at the render size
/// whatever size the video output is; layers show under stills; an HDR composition's stills are
/// tone-mapped as a file's still is.
@Suite("reencode with stills of a composition drawn at its render size", .serialized)
struct CompositionStillsDrawnCLITests {
    typealias Base = CompositionStillsCLITests

    static func write(_ text: String, _ dir: Scratch) throws {
        try text.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
    }

    static func picture(_ path: String) throws -> DecodedPicture {
        try #require(try SampleReader(path: path, track: .type(.video, 0)).nextPicture())
    }

    static func planJSON(_ dir: Scratch) throws -> [[String: Any]] {
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(json.status == 0, "\(json.stderr)")
        let o = try #require(BatchFixture.json(json.stdout))
        return try #require(o["images"] as? [[String: Any]])
    }

    @Test("stills only: the composition is drawn for them (nothing encoded, no video file), each still shows the source frame the composition shows at its time; plan says so")
    func stillsOnly() throws {
        let dir = Scratch()
        try Base.sources(dir)
        try Self.write(Base.recipe(Base.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 1.6s, 2.95s] }
            """, media: false), dir)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        // Two files of 30 fps: the composition's own rate is 30 fps, as an output without `frame-rate` has it.
        #expect(plan.stdout.contains("""
            3 stills of the composition (3.000s) drawn at 160x96 for them alone (nothing encoded), 160x96 PNG
              #1 at 0.500s: the composed frame at 0.500s (segment 1 a.mp4 0.500s) → s-1.png
              #2 at 1.600s: the composed frame at 1.600s (segment 2 b.mp4 0.800s) → s-2.png
              #3 at 2.950s: the composed frame at 2.933s (segment 2 b.mp4 1.467s) → s-3.png
            """), "\(plan.stdout)")
        #expect(plan.stdout.contains("  stills of output 1: the composition's video drawn for them alone (nothing encoded), up to the last still's picture"),
                "\(plan.stdout)")
        let images = try Self.planJSON(dir)
        #expect(images.map { $0["decode"] as? String } == ["own"])
        let composition = try #require(images[0]["composition"] as? [String: Any])
        #expect(composition["drawnAlone"] as? Bool == true && composition["outputTrack"] is NSNull && composition["renderSize"] as? String == "160x96",
                "\(composition)")
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        // No video file, no file of the drawing: the stills only.
        #expect(dir.contents == ["a.mp4", "b.mp4", "r.yaml", "s-1.png", "s-2.png", "s-3.png"])
        for (name, stamp) in [("s-1.png", 115), ("s-2.png", 224), ("s-3.png", 244)] {
            let still = try Self.picture(dir.file(name))
            #expect(still.stamp == stamp && still.width == 160 && still.height == 96, "\(name): \(String(describing: still.stamp)) \(still.width)x\(still.height)")
        }
    }

    @Test("stills only, in a cross-fade: the still at the cut shows both frames blended, either side one frame; a dip's cut shows its colour")
    func stillsOnlyCrossFade() throws {
        let dir = Scratch()
        try Base.sources(dir)
        try Self.write(Base.recipe("""
                - { source: a }
                - { source: b, transition: { kind: cross-fade, duration: 1s } }
                - { source: a, transition: { kind: dip, duration: 1s } }
            """, images: """
              - path: "x-{n}.png"
                images: { source: picture, at: [1s, 2s, 3s, 4s] }
            """, media: false), dir)
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(dir.contents == ["a.mp4", "b.mp4", "r.yaml", "x-1.png", "x-2.png", "x-3.png", "x-4.png"])
        #expect(try Self.picture(dir.file("x-1.png")).stamp == 130)
        #expect(try Self.picture(dir.file("x-3.png")).stamp == 230)
        let want: [Int?] = (0..<16).map { bit in
            let (p, q) = ((159 >> (15 - bit)) & 1, (200 >> (15 - bit)) & 1)
            return p == q ? p : nil
        }
        #expect(Base.blocks(try Self.picture(dir.file("x-2.png"))) == want)
        // The dip into the third segment (at 4 s) is black at its cut.
        let cut = try Self.picture(dir.file("x-4.png"))
        let mean = Double(cut.luma.reduce(0) { $0 + Int($1) }) / Double(cut.luma.count)
        #expect(mean < 20, "black at the dip's cut: \(mean)")
    }

    /// The mean difference of two pictures' luma (same size).
    static func difference(_ a: DecodedPicture, _ b: DecodedPicture) -> Double {
        guard a.luma.count == b.luma.count, !a.luma.isEmpty else { return .infinity }
        return Double(zip(a.luma, b.luma).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.luma.count)
    }

    @Test("a video output smaller than the render size: the stills are drawn at the render size (then fitted in their size), from that output's read: the same pictures as beside an output at the render size")
    func renderSize() throws {
        let full = Scratch()
        try Base.sources(full)
        try Self.write(Base.recipe(Base.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 1.6s] }
            """), full)
        let made = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: full.path)
        #expect(made.status == 0, "\(made.stderr)")
        let dir = Scratch()
        try Base.sources(dir)
        try Self.write(Base.recipe(Base.slowed, images: """
              - path: "s-{n}.png"
                images: { source: picture, at: [0.5s, 1.6s] }
              - path: "small.png"
                images: { source: picture, at: 1.6s, size: 100x100 }
            """, rate: "frame-rate: 30, width: 80, height: 48, "), dir)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("2 stills of the composition (3.000s) as output track 1 draws it, 160x96 PNG"), "\(plan.stdout)")
        #expect(plan.stdout.contains("1 still of the composition (3.000s) as output track 1 draws it, 100x60 PNG"), "\(plan.stdout)")
        let images = try Self.planJSON(dir)
        #expect(images.map { $0["decode"] as? String } == ["shared", "shared"])
        #expect((images[0]["composition"] as? [String: Any])?["renderSize"] as? String == "160x96")
        let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        let encoded = try Self.picture(dir.file("out.mp4"))
        #expect(encoded.width == 80 && encoded.height == 48)
        for (name, stamp) in [("s-1.png", 115), ("s-2.png", 224)] {
            let still = try Self.picture(dir.file(name))
            #expect(still.width == 160 && still.height == 96 && still.stamp == stamp, "\(name): \(still.width)x\(still.height) \(String(describing: still.stamp))")
            // Drawn from the source's pictures, not from the 80x48 ones scaled up.
            let difference = Self.difference(still, try Self.picture(full.file(name)))
            #expect(difference < 0.5, "\(name): \(difference) from the still beside a 160x96 output")
        }
        let small = try Self.picture(dir.file("small.png"))
        #expect(small.width == 100 && small.height == 60 && small.stamp == 224, "\(small.width)x\(small.height) \(String(describing: small.stamp))")
    }

    static let layered = """
            - { source: a }
          layers:
            - rect: { x: 0, y: 24, width: 120, height: 72 }
              segments:
                - { source: b, at: 0.5s, duration: 1.5s }
        """

    @Test("layers under stills: each still shows the base frame and the layer's frame in its place; with a smaller video output, drawn for the stills at the render size")
    func layers() throws {
        var full: Scratch?
        for small in [false, true] {
            let dir = Scratch()
            if !small { full = dir }
            try Base.sources(dir)
            try Self.write(Base.recipe(Self.layered, images: """
                  - path: "l-{n}.png"
                    images: { source: picture, at: [0.25s, 1s, 1.9s] }
                """, rate: "frame-rate: 30, " + (small ? "width: 80, height: 48, " : "")), dir)
            let images = try Self.planJSON(dir)
            // The layers are drawn on the output's canvas: at the render size it is shared, smaller not.
            #expect(images.map { $0["decode"] as? String } == [small ? "own" : "shared"], "small: \(small)")
            let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
            #expect(plan.stdout.contains("#2 at 1.000s: the composed frame at 1.000s (segment 1 a.mp4 1.000s + segment 2 b.mp4 0.500s) → l-2.png"),
                    "\(plan.stdout)")
            let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(dir.contents == ["a.mp4", "b.mp4", "l-1.png", "l-2.png", "l-3.png", "out.mp4", "r.yaml"])
            // a's band across the top; b's frame (0.5 s into its segment: 15, then 1.4 s: 42) in the rectangle.
            for (name, base, layer) in [("l-1.png", 107, nil), ("l-2.png", 130, 215), ("l-3.png", 157, 242)] as [(String, Int, Int?)] {
                let still = try Self.picture(dir.file(name))
                #expect(still.width == 160 && still.height == 96, "\(name) small: \(small)")
                #expect(still.stamp == base, "\(name) small: \(small): \(String(describing: still.stamp))")
                if let layer {
                    #expect(still.stamp(x: 0, y: 24, width: 120, height: 72) == layer, "\(name) small: \(small)")
                }
                // Drawn at the render size, not the 80x48 canvas scaled up.
                if small, let full {
                    let difference = Self.difference(still, try Self.picture(full.file(name)))
                    #expect(difference < 0.5, "\(name): \(difference) from the still beside a 160x96 output")
                }
            }
            // Before the layer starts, its place shows a's stripes (no stamp band there).
            #expect(try Self.picture(dir.file("l-1.png")).stamp(x: 0, y: 24, width: 120, height: 72) != 215)
        }
    }

    /// 10-bit HEVC tagged BT.2020 PQ (mastered to 1000 cd/m²), 64x64, 6 frames of flat code 509 (99.9 cd/m²).
    static func pqSource(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "yuv420p10le"
        v.colorPrimaries = "bt2020"; v.colorTransfer = "smpte2084"; v.colorMatrix = "bt2020nc"
        v.masteringDisplay = MasteringDisplay(red: .init(34000, 16000), green: .init(13250, 34500), blue: .init(7500, 3000),
                                              whitePoint: .init(15635, 16450), minLuminance: 50, maxLuminance: 10_000_000)
        v.contentLightLevel = ContentLightLevel(maxCLL: 1000, maxFALL: 400)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<6 {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, sample: 509)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, sample: 512)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, sample: 512)
            }
        }
        try s.finish()
    }

    /// The mean luma of a still's middle (JPEG: full range).
    static func grey(_ path: String) throws -> Double {
        let planes = try #require(try SampleReader(path: path, track: .type(.video, 0)).nextPlanes())
        return planes.mean(planes.y, x: 16, y: 16, width: 32, height: 32, planeWidth: planes.width)
    }

    @Test("an HDR composition's stills are tone-mapped to SDR as a file's still is (100 cd/m² grey at its BT.1886 code), whether the video output tone-maps, keeps HDR, or there is none; one file or two")
    func hdr() throws {
        let dir = Scratch()
        try Self.pqSource(dir.file("p.mp4"))
        try Self.pqSource(dir.file("q.mp4"))
        // The file's own still, as `reencode images` makes it.
        let file = try Binary.run(["images", "p.mp4", "--at", "0.05s", "-o", "file.jpg"], timeLimit: 120, cwd: dir.path)
        #expect(file.status == 0, "\(file.stderr)")
        let fileGrey = try Self.grey(dir.file("file.jpg"))
        // (179.0 − 16) · 255/219 = 189.8 in full range (StillImageTests); not tone-mapped, about 129.
        #expect(abs(fileGrey - 189.8) <= 2.5, "the file's still: \(fileGrey)")
        let cases: [(name: String, segments: String, settings: String?)] = [
            ("one-tone-mapped", "- { source: p }", "{ codec: h264, codec-options: { preset: ultrafast } }"),
            ("one-kept", "- { source: p }", "{ codec: hevc, hdr: keep, codec-options: { preset: ultrafast } }"),
            ("one-alone", "- { source: p }", nil),
            ("two-tone-mapped", "- { source: p, end: 0.1s }\n    - { source: q }", "{ codec: h264, codec-options: { preset: ultrafast } }"),
            ("two-kept", "- { source: p, end: 0.1s }\n    - { source: q }", "{ codec: hevc, hdr: keep, codec-options: { preset: ultrafast } }"),
            ("two-alone", "- { source: p, end: 0.1s }\n    - { source: q }", nil),
        ]
        for c in cases {
            let media = c.settings.map { "  - path: \(c.name).mp4\n    inputs:\n      - { source: picture, settings: \($0) }\n" } ?? ""
            try """
                recipe: 1
                sources:
                  p: p.mp4
                  q: q.mp4
                composition:
                  video:
                    \(c.segments)
                reader:
                  outputs:
                    picture: { track: video }
                outputs:
                \(media)  - path: "\(c.name)-{n}.jpg"
                    images: { source: picture, at: [0.05s, 0.15s] }

                """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
            let run = try Binary.run(["run", "r.yaml", "--quiet"], timeLimit: 300, cwd: dir.path)
            #expect(run.status == 0, "\(c.name): \(run.stderr)")
            for n in 1...2 {
                let grey = try Self.grey(dir.file("\(c.name)-\(n).jpg"))
                #expect(abs(grey - fileGrey) <= 1.5, "\(c.name) #\(n): \(grey), the file's still \(fileGrey)")
            }
        }
    }
}
