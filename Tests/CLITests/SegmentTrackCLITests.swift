import Foundation
import Pipeline
import Recipe
import Testing

/// `plan` and `run` with segments that name their file's track.
@Suite("reencode with a composition segment's own track", .serialized)
struct SegmentTrackCLITests {
    static let recipe = """
    recipe: 1
    output: out.mp4
    composition:
      video:
        - { end: 1s }
        - { start: 1s, end: 2s, track: "video:1" }
      audio:
        - { end: 1s, track: "audio:1" }
        - { start: 1s, end: 2s }
    reader:
      outputs:
        picture: { track: video }
        sound: { track: audio }
    writer:
      inputs:
        - { source: picture, settings: h264-640x480 }
        - { source: sound, settings: aac-stereo }

    """

    /// 2 s at 30 fps: two video tracks (stamps 1000+i, 5000+i) and two 48 kHz stereo audio tracks.
    static func twoOfEach(_ path: String) throws {
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 160, height: 96, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, videos: [v, v], audios: [GeneratedAudioFormat(), GeneratedAudioFormat()])
        for i in 0..<60 {
            try s.appendPicture(track: 0, at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: 1000 + i, into: $0) }
            try s.appendPicture(track: 1, at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: 5000 + i, into: $0) }
            for k in 0..<2 { try s.appendAudio(track: k, count: 1600) { _, _ in 0 } }
        }
        try s.finish()
    }

    @Test("plan names the track a segment reads when it is not its file's first (text and JSON); run shows video:1's pictures in its segment")
    func planAndRun() throws {
        let dir = Scratch()
        let src = dir.file("two.mp4")
        try Self.twoOfEach(src)
        try Self.recipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml", "-i", "two.mp4"], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        // In play order: both lists' first segments at 0, then their second ones at 1 s.
        #expect(plan.stdout.contains("""
            segment  1: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (two.mp4, 30 frames, 48000 samples)
            segment  2: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (two.mp4 #3, 30 frames, 48000 samples)
            segment  3: source [1.000s, 2.000s) at 1.000s for 1.000s, speed 1  (two.mp4 #1, 30 frames, 48000 samples)
            segment  4: source [1.000s, 2.000s) at 1.000s for 1.000s, speed 1  (two.mp4, 30 frames, 48000 samples)
            """), "\(plan.stdout)")
        let json = try Binary.run(["plan", "r.yaml", "-i", "two.mp4", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let segments = (object?["segments"] as? [[String: Any]]) ?? []
        #expect(segments.map { $0["track"] as? Int } == [nil, 3, 1, nil])
        #expect(segments.map { $0["track"] is NSNull } == [true, false, false, true])

        let run = try Binary.run(["run", "r.yaml", "-i", "two.mp4", "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        let r = try SampleReader(path: dir.file("out.mp4"), track: .type(.video, 0))
        var stamps: [Int?] = []
        while let p = try r.nextPicture() { stamps.append(p.stamp) }
        #expect(stamps == (Array(1000..<1030) + Array(5030..<5060)).map { Optional($0) })
    }

    @Test("plan: a segment's track its file lacks is refused at its 'track:' with 66, naming the file")
    func missingTrack() throws {
        let dir = Scratch()
        try Self.twoOfEach(dir.file("two.mp4"))
        try Self.recipe.replacingOccurrences(of: "track: \"video:1\"", with: "track: \"video:2\"")
            .write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", "r.yaml", "-i", "two.mp4"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 66)
        #expect(r.stderr == """
            r.yaml:6:36: error: two.mp4: segment 2: it reads the video:2 track, but the file has none (it has #0 video, #1 video, #2 audio, #3 audio)
                - { start: 1s, end: 2s, track: "video:2" }
                                               ^

            """, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }
}
