import Foundation
import Pipeline
import Recipe
import Testing

/// Where a single-source composition's segments land: `at:` leaves a gap (black pictures,
/// silence), and what the file contradicts is refused at the segment's line (65), nothing made.
@Suite("reencode run with a composition of the input: placement and its refusals", .serialized)
struct CompositionPlacementCLITests {
    static func recipe(_ segments: String) -> String {
        """
        recipe: 1
        output: "{dir}/{stem}-out.mp4"
        composition:
          video:
        \(segments)
        presets:
          video-30:
            base: h264-640x480
            frame-rate: 30
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio, optional: true }
        writer:
          inputs:
            - { source: picture, settings: video-30 }
            - { source: sound, settings: aac-stereo }
        """
    }

    @Test("'at: 1.5s' after a 1 s segment: 0.5 s of black and silence, then the segment from its source start")
    func atLeavesGap() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 30, frames: 90, bursts: [75])  // 3 s; a burst at 2.5 s
        let path = dir.file("r.yaml")
        try Self.recipe("    - { end: 1s }\n    - { start: 2s, at: 1.5s }").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("clip-out.mp4")
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.count == 75)  // 2.5 s at 30 fps
        for (k, s) in stamps.enumerated() {
            #expect(s.pts == FrameRate(frames: 30).frameDuration * Int64(k), "output frame \(k)")
            switch k {
            case 0..<30: #expect(s.stamp == k, "output frame \(k)")
            case 30..<45: break  // black, below
            default: #expect(s.stamp == 60 + (k - 45), "output frame \(k)")
            }
        }
        // Black: every luma sample at video black (16, limited range), within coding noise.
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0
        while let picture = try reader.nextPicture() {
            let black = picture.luma.allSatisfy { $0 <= 20 }
            #expect(black == (30..<45).contains(k), "output frame \(k) black: \(black)")
            k += 1
        }
        // Source 2.5 s is 0.5 s into the second segment, which starts at 1.5 s: 2 s.
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        #expect(onsets.count == 1, "\(onsets)")
        #expect(abs((onsets.first ?? 0) - 2.0) <= 1.0 / 30, "\(onsets)")
    }

    @Test("'at: 1s' on the first segment: 1 s of black and silence first, then the segment, its burst with its frame")
    func leadingGap() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 30, frames: 60, bursts: [15])  // 2 s; a burst at 0.5 s
        let path = dir.file("r.yaml")
        try Self.recipe("    - { end: 1s, at: 1s }").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("clip-out.mp4")
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0
        while let picture = try reader.nextPicture() {
            #expect(picture.pts == FrameRate(frames: 30).frameDuration * Int64(k), "output frame \(k)")
            if k < 30 {
                #expect(picture.luma.allSatisfy { $0 <= 20 }, "output frame \(k) is black")
            } else {
                #expect(picture.stamp == k - 30, "output frame \(k)")
            }
            k += 1
        }
        #expect(k == 60)
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        #expect(onsets.count == 1, "\(onsets)")
        #expect(abs((onsets.first ?? 0) - 1.5) <= 1.0 / 30, "\(onsets)")
        let audio = try #require(try Asset.load(out).track(.audio, ordinal: 0))
        #expect(abs(audio.duration.seconds - 2.0) < 0.03, "sound lasts \(audio.duration.seconds) s")
    }

    @Test("refused at the segment's line (65): an overlap, a start after the file's end")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 30, frames: 90)
        let path = dir.file("r.yaml")
        let cases: [(String, String)] = [
            // The first runs to the file's end (3 s), known only from the file.
            ("    - { start: 1s }\n    - { end: 1s, at: 1s }",
             "\(path):6:22: error: \(src): segment 2: it starts at 1.000s on the timeline, before segment 1 ends (2.000s): segments cannot overlap\n    - { end: 1s, at: 1s }\n                     ^\n"),
            ("    - { end: 1s }\n    - { start: 5s }",
             "\(path):6:16: error: \(src): segment 2: it starts at 5.000s, at or after the end of \(src) (3.000s)\n    - { start: 5s }\n               ^\n"),
        ]
        for (segments, want) in cases {
            try Self.recipe(segments).write(toFile: path, atomically: true, encoding: .utf8)
            for command in ["plan", "run"] {
                let r = try Binary.run([command, path, "-i", src], timeLimit: 120, cwd: dir.path)
                #expect(r.status == 65, "\(command) \(segments)")
                #expect(r.stderr == want, "\(command): \(r.stderr)")
                #expect(r.stdout == "")
            }
            #expect(dir.contents == ["clip.mp4", "r.yaml"])
        }
    }
}
