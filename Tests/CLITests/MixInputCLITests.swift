import Foundation
import Pipeline
import Recipe
import Testing

/// `plan` for a composition's `mix:` inputs whose files have pictures: a mix input plays only
/// their sound.
@Suite("reencode with mix inputs from files with pictures", .serialized)
struct MixInputCLITests {
    static func recipe(music: String) -> String {
        """
        recipe: 1
        output: out.mp4
        sources:
          a: a.mp4
          b: b.mp4
        composition:
          video:
            - { source: a }
          mix:
            - segments:
                - \(music)
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

    /// 2 s at 30 fps (stamps from `base`), with a 48 kHz stereo track of silence when `sound`.
    static func clip(_ path: String, base: Int, sound: Bool) throws {
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 160, height: 96, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, videos: [v], audios: sound ? [GeneratedAudioFormat()] : [])
        for i in 0..<60 {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: base + i, into: $0) }
            if sound { try s.appendAudio(count: 1600) { _, _ in 0 } }
        }
        try s.finish()
    }

    @Test("a mix input's segment from a file without sound is still the mix input's: plan marks it 'mix 1', draws it on its own row and counts no frames of it")
    func soundlessMixInput() throws {
        let dir = Scratch()
        try Self.clip(dir.file("a.mp4"), base: 100, sound: true)
        try Self.clip(dir.file("b.mp4"), base: 200, sound: false)
        try Self.recipe(music: "{ source: b, end: 1s }").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("""
            segment  1: source [0.000s, 2.000s) at 0.000s for 2.000s, speed 1  (a.mp4, 60 frames, 96000 samples)
            segment  2: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (b.mp4, 48000 samples)  mix 1
            timeline |a.mp4 =========================================================|
            mix 1    |b.mp4 =========================|································
            """), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(json.status == 0, "\(json.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let segments = try #require(o["segments"] as? [[String: Any]])
        #expect(segments.map { $0["mixInput"] as? Int } == [nil, 1])
        #expect(segments.map { $0["frames"] as? Int } == [60, nil])
    }

    @Test("a mix input's segment from a file with pictures is cut where asked, not at that file's frames (which it does not show): no warning")
    func mixInputNotSnappedToPictures() throws {
        let dir = Scratch()
        try Self.clip(dir.file("a.mp4"), base: 100, sound: true)
        try Self.clip(dir.file("b.mp4"), base: 200, sound: true)
        try Self.recipe(music: "{ source: b, start: 0.25s, end: 1.01s }").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("segment  2: source [0.250s, 1.010s) at 0.000s for 0.760s, speed 1  (b.mp4, 36480 samples)  mix 1"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("warning"), "\(plan.stdout)")
    }

    @Test("a notice about a segment's range names that segment's file and list: a later video segment's cut at frames, a mix input's range past its file's end")
    func noticesNameTheirFile() throws {
        let dir = Scratch()
        try Self.clip(dir.file("a.mp4"), base: 100, sound: true)
        try Self.clip(dir.file("b.mp4"), base: 200, sound: true)
        let recipe = Self.recipe(music: "{ source: b, end: 9s }")
            .replacingOccurrences(of: "    - { source: a }\n", with: "    - { source: a }\n    - { source: b, start: 0.01s }\n")
        try recipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(json.status == 0, "\(json.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let files = try #require((o["segments"] as? [[String: Any]])?.compactMap { $0["file"] as? String })
        let a = try #require(files.first), b = try #require(files.last)
        #expect(a != b && b.hasSuffix("b.mp4"), "\(files)")
        let warnings = try #require(o["warnings"] as? [[String: Any]])
        #expect(warnings.map { "\($0["item"] ?? "") \($0["file"] ?? "")" } == [
            "composition.segment.2 \(b)", "composition.mix-1-segment.1 \(b)",
        ], "\(warnings)")
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.stdout.contains("warning: \(b): segment 2's range 0.010s–2.000s is cut at frame boundaries (the output's 30 fps frames): 0.000s–2.000s\n"), "\(plan.stdout)")
        #expect(plan.stdout.contains("warning: \(b): segment 1 of mix input 1 asks for \(b) up to 9.000s, but the file ends at 2.000s: it plays to the file's end\n"), "\(plan.stdout)")
    }

    @Test("the audio list's fades are where it plays: an audio list placed at 0.5 s for 1 s of a 2 s timeline fades in from 0.5 s and out to 1.5 s")
    func audioListFadesWhereItPlays() throws {
        let dir = Scratch()
        try Self.clip(dir.file("a.mp4"), base: 100, sound: true)
        try Self.clip(dir.file("b.mp4"), base: 200, sound: true)
        let recipe = Self.recipe(music: "{ source: b, end: 0.5s }").replacingOccurrences(of: "  mix:\n", with: """
              audio:
                segments:
                  - { source: b, end: 1s, at: 0.5s }
                fade-in: 0.25s
                fade-out: 0.5s
              mix:

            """)
        try recipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("mix      sound: volume 1 (0.0 dB), fade in 0.500s–0.750s, fade out 1.000s–1.500s\n"), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "--json"], timeLimit: 120, cwd: dir.path)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let inputs = try #require((o["mix"] as? [String: Any])?["inputs"] as? [[String: Any]])
        let fades = try #require(inputs.first?["fades"] as? [[String: Any]])
        #expect(fades.map { "\($0["kind"] ?? "") \($0["start"] ?? "")–\($0["end"] ?? "")" } == ["in 0.5–0.75", "out 1–1.5"])
    }

    @Test("a mix input's segment placed at or after the timeline's end is not played, and plan says so (a warning naming its file), not silently")
    func lateSegmentSaid() throws {
        let dir = Scratch()
        try Self.clip(dir.file("a.mp4"), base: 100, sound: true)
        try Self.clip(dir.file("b.mp4"), base: 200, sound: true)
        try Self.recipe(music: "{ source: b, end: 0.5s }\n        - { source: b, end: 1s, at: 2s }").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("timeline 2.000s, 2 segments"), "\(plan.stdout)")
        #expect(plan.stdout.hasSuffix("\nwarning: b.mp4: segment 2 of mix input 1 starts at 2.000s on the timeline, at or after its end (2.000s): it is not played\n"), "\(plan.stdout)")
    }
}
