import Foundation
import Pipeline
import Recipe
import Testing

/// `plan` and `run` with video layers and cross-fades: what plan prints and its JSON, and a
/// refusal at the recipe line that caused it.
@Suite("reencode with video layers and cross-fades", .serialized)
struct LayerCLITests {
    static func recipe(_ composition: String) -> String {
        """
        recipe: 1
        output: out.mp4
        sources:
          a: a.mp4
          b: b.mp4
        composition:
        \(composition)
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: h264-640x480 }
            - { source: sound, settings: aac-stereo }

        """
    }

    static func write(_ dir: Scratch, _ composition: String) throws {
        try MixInputCLITests.clip(dir.file("a.mp4"), base: 100, sound: true)
        try MixInputCLITests.clip(dir.file("b.mp4"), base: 200, sound: true)
        try Self.recipe(composition).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
    }

    @Test("a cross-fade and a layer: plan prints the rolls, the layer's bar, the cross-fade, each layer's place and opacity, the sound's ramps; JSON likewise")
    func planShowsLayers() throws {
        let dir = Scratch()
        try Self.write(dir, """
          video:
            - { source: a }
            - { source: b, transition: { kind: cross-fade, duration: 1s } }
          layers:
            - rect: { x: 80, y: 8, width: 50%, height: 25% }
              opacity: 0.5
              segments:
                - { source: b, at: 1s, duration: 1s }
        """)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("""
            segment  1: source [0.000s, 2.000s) at 0.000s for 2.000s, speed 1  (a.mp4, 60 frames, 96000 samples)
            segment  2: source [0.000s, 1.000s) at 1.000s for 1.000s, speed 1  (b.mp4)  layer 1
            segment  3: source [0.000s, 2.000s) at 2.000s for 2.000s, speed 1  (b.mp4, 60 frames, 96000 samples)  video (cross-fades)
            timeline |a.mp4 =========================|b.mp4 =========================|
            layer 1  ················|b.mp4 =========|································
                     0.000s          1.000s          2.000s                          4.000s
            cross-fade 1.500s–2.500s into segment 2, the sound with it (equal power)
            layers   drawn bottom first in 160x96, over black
                     video: whole frame, fit, opacity 1
                     video (cross-fades): whole frame, fit, opacity 0 from 0.000s, ramps 1.500s–2.500s 0 → 1 linear
                     layer 1: 80x24+80+8, fit, opacity 0.5
            mix      sound: volume 1 (0.0 dB) from 0.000s, ramps 1.500s–2.500s 1 → 0 equal-power
                     sound, cross-fading in and out: volume 0 (silence) from 0.000s, ramps 1.500s–2.500s 0 → 1 equal-power
            """), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(json.status == 0, "\(json.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let video = try #require(o["video"] as? [String: Any])
        #expect(video["background"] as? String == "black")
        let layers = try #require(video["layers"] as? [[String: Any]])
        #expect(layers.map { $0["name"] as? String } == ["video", "video (cross-fades)", "layer 1"])
        #expect((layers[2]["rect"] as? [String: Int]) == ["x": 80, "y": 8, "width": 80, "height": 24])
        #expect(layers[2]["opacity"] as? Double == 0.5)
        #expect((layers[1]["ramps"] as? [[String: Any]])?.map { $0["to"] as? Double } == [1])
        let fades = try #require(o["crossFades"] as? [[String: Any]])
        #expect(fades.map { $0["segment"] as? Int } == [2] && fades.map { $0["start"] as? Double } == [1.5])
        let segments = try #require(o["segments"] as? [[String: Any]])
        #expect(segments.map { $0["layer"] as? Int } == [nil, 1, nil])
        #expect(segments.map { $0["videoLayer"] as? Int } == [0, 2, 1])
    }

    @Test("a cross-fade into a segment placed after a gap is refused at its transition, naming the file (65); nothing is written")
    func gapRefused() throws {
        let dir = Scratch()
        try Self.write(dir, """
          video:
            - { source: a }
            - { source: b, at: 3s, transition: { kind: cross-fade, duration: 1s } }
        """)
        let run = try Binary.run(["run", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(run.status == 65)
        #expect(run.stderr.contains("r.yaml:9:40: error: a.mp4: the cross-fade into segment 2: segment 1 ends at 2.000s and segment 2 starts at 3.000s; a cross-fade joins two segments that meet (leave out 'at', or use 'kind: dip')"), "\(run.stderr)")
        #expect(dir.contents == ["a.mp4", "b.mp4", "r.yaml"])
    }
}
