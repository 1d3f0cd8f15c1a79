import Foundation
import Pipeline
import Recipe
import Testing

/// A composition's layers each hold a decoder and its pictures while they show, so `plan` bounds
/// how many show at once (`composition.layer-limit`, 16 by default): more is refused at the
/// segment that goes over it, naming the instant, the layers and the limit (65); up to the
/// limit converts.
@Suite("reencode: the most layers that show at once", .serialized)
struct LayerLimitCLITests {
    /// `layers:` entries of b.mp4, each `(at, duration)` in seconds.
    static func layers(_ spans: [(Double, Double)]) -> String {
        "  layers:\n" + spans.map { "    - { rect: { x: 0, y: 0, width: 25%, height: 25% }, segments: [ { source: b, at: \($0.0)s, duration: \($0.1)s } ] }" }
            .joined(separator: "\n")
    }

    @Test("limit 2: the third layer showing at 1.0s is refused at its 'at', naming the layers and the limit (65); nothing is written")
    func overTheLimit() throws {
        let dir = Scratch()
        try LayerCLITests.write(dir, "  layer-limit: 2\n  video:\n    - { source: a }\n" + Self.layers([(0, 1.5), (0.5, 1), (1, 0.5)]))
        let run = try Binary.run(["run", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(run.status == 65)
        #expect(run.stderr.contains("r.yaml:13:85: error: a.mp4: 3 layers show at once at 1.000s (layers 1–3), more than the limit of 2: each layer that shows holds its own decoder and pictures; show fewer at once, or raise 'layer-limit' under 'composition:' (at most 1024)"), "\(run.stderr)")
        #expect(dir.contents == ["a.mp4", "b.mp4", "r.yaml"])
    }

    @Test("no layer-limit: 17 layers at once are refused at the 17th (the default limit is 16), 16 are planned")
    func defaultLimit() throws {
        let dir = Scratch()
        let seventeen = Array(repeating: (0.0, 1.0), count: 17)
        try LayerCLITests.write(dir, "  video:\n    - { source: a }\n" + Self.layers(seventeen))
        let over = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(over.status == 65)
        #expect(over.stderr.contains("r.yaml:26:85: error: a.mp4: 17 layers show at once at 0.000s (layers 1–17), more than the limit of \(LayerBound.defaultLimit):"), "\(over.stderr)")
        try LayerCLITests.recipe("  video:\n    - { source: a }\n" + Self.layers(Array(seventeen.dropLast()))).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let under = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(under.status == 0, "\(under.stderr)")
    }

    @Test("limit 2: a layer that starts as another ends does not count with it; the composition converts, every frame")
    func underTheLimit() throws {
        let dir = Scratch()
        try LayerCLITests.write(dir, "  layer-limit: 2\n  video:\n    - { source: a }\n" + Self.layers([(0, 1), (0.5, 1), (1, 0.5), (1.5, 0.5)]))
        let run = try Binary.run(["run", "r.yaml"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        // a.mp4 is 2 s at 30 fps.
        #expect(try BatchFixture.frames(dir.file("out.mp4")).count == 60)
    }

    @Test("layer-limit out of range or not a number: validate says so at its line (65)")
    func badLimit() throws {
        let dir = Scratch()
        for (value, column) in [("0", 16), ("many", 16), ("1025", 16)] {
            try LayerCLITests.recipe("  layer-limit: \(value)\n  video:\n    - { source: a }").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
            let v = try Binary.run(["validate", "r.yaml"], timeLimit: 60, cwd: dir.path)
            #expect(v.status == 65)
            #expect(v.stderr.contains("r.yaml:7:\(column): error: 'layer-limit' must be a whole number from 1 to 1024 layers, not"), "\(v.stderr)")
        }
    }
}
