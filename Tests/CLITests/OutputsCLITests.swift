import Foundation
import Pipeline
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let renditions = repo.appendingPathComponent("recipes/renditions.yaml").path

/// recipes/renditions.yaml through the command line: three files and a poster from one read.
@Suite("reencode run, plan, batch with a recipe of several outputs", .serialized)
struct OutputsCLITests {
    @Test("run: every output written, said in order, the poster with the frame it shows; --progress json ends with one done line listing them")
    func run() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 320, height: 180)
        let r = try Binary.run(["run", renditions, "-i", dir.file("s.mp4"), "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.prefix(3).map { String($0.split(separator: ":")[0]) } == ["1080p", "720p", "480p"].map { "wrote " + dir.file("s-\($0).mp4") })
        // 10 % of 1 s at 30 fps: frame 3, at 0.100 s.
        #expect(Array(lines.dropFirst(3)) == ["\(dir.file("s.mp4")): 1 still of track #0, 320x180 JPEG",
                                              "  #1 at 10% (0.100s): the frame at 0.100s (exact) → \(dir.file("s-poster.jpg"))"], "\(r.stdout)")
        #expect(dir.contents.sorted() == ["s-1080p.mp4", "s-480p.mp4", "s-720p.mp4", "s-poster.jpg", "s.mp4"])

        let again = try Binary.run(["run", renditions, "-i", dir.file("s.mp4"), "--progress", "json", "--overwrite"])
        #expect(again.status == 0, "\(again.stderr)")
        let last = try #require(again.stdout.split(separator: "\n").last)
        let done = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(done["type"] as? String == "done")
        let outputs = try #require(done["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["output"] as? String } == ["1080p", "720p", "480p"].map { dir.file("s-\($0).mp4") })
        #expect(outputs.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 && ($0["duration"] as? Double) == 1.0 })
        let images = try #require(done["images"] as? [[String: Any]])
        let still = try #require((images.first?["stills"] as? [[String: Any]])?.first)
        #expect(images.count == 1 && still["file"] as? String == dir.file("s-poster.jpg") && still["time"] as? Double == 0.1 && still["frame"] as? String == "exact")
    }

    @Test("plan --json: each output's plan, and which source track feeds which outputs' tracks")
    func plan() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 320, height: 180)
        let r = try Binary.run(["plan", "--json", renditions, "-i", dir.file("s.mp4")])
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let outputs = try #require(o["outputs"] as? [[String: Any]])
        #expect(outputs.compactMap { $0["output"] as? String } == ["1080p", "720p", "480p"].map { dir.file("s-\($0).mp4") })
        let images = try #require(o["images"] as? [[String: Any]])
        #expect(images.map { $0["output"] as? Int } == [4] && images.map { $0["decode"] as? String } == ["shared"])
        let reads = try #require(o["reads"] as? [[String: Any]])
        #expect(reads.map { $0["sourceTrack"] as? Int } == [0, 1])
        #expect(reads.map { ($0["feeds"] as? [[String: Int]])?.map { [$0["output"] ?? 0, $0["track"] ?? 0] } ?? [] }
                == [[[1, 1], [2, 1], [3, 1]], [[1, 2], [2, 2], [3, 2]]])
        #expect(reads.map { $0["stills"] as? [Int] } == [[4], nil])
        // The 1080p and 720p outputs ask for the same sound: one encode written into both.
        #expect(reads.map { ($0["sharedEncodes"] as? [[[String: Int]]])?.map { $0.map { [$0["output"] ?? 0, $0["track"] ?? 0] } } } == [nil, [[[1, 2], [2, 2]]]])
        let text = try Binary.run(["plan", renditions, "-i", dir.file("s.mp4")])
        #expect(text.stdout.contains("one read of \(dir.file("s.mp4")) for 4 outputs\n  #0 video decoded once → output 1 track 1, output 2 track 1, output 3 track 1, stills of output 4\n"
                                     + "  #1 audio decoded once → output 1 track 2, output 2 track 2, output 3 track 2; encoded once for output 1 track 2, output 2 track 2\n"), "\(text.stdout)")
        #expect(text.stdout.contains("output 4 of 4: still images\n\(dir.file("s.mp4")): 1 still of track #0, 320x180 JPEG\n  #1 at 10% (0.100s): the frame at 0.100s (exact) → \(dir.file("s-poster.jpg"))\n"), "\(text.stdout)")
    }

    @Test("one output cannot be written whole (a file-size limit, as a full disk): 74 naming it, and no output at all", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func oneFails() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 320, height: 180)
        // The first output is large (near-lossless pictures), the second only sound (a few kB).
        try """
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            outputs:
              - path: big.mp4
                inputs: [ { source: v, settings: { codec: h264, quality: 1, codec-options: { preset: ultrafast } } } ]
              - path: sound.m4a
                inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ]
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", "r.yaml", "-i", "s.mp4", "--progress", "none"], cwd: dir.path, shell: "ulimit -f 64")
        #expect(r.status == 74, "\(r.status) \(r.stderr)")
        // The track the first output leaves out is said of that output: the second takes it.
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "warning: s.mp4 → big.mp4: track #1: audio aac \"SoundHandler\" is not written: no writer input takes it", "\(r.stderr)")
        #expect(lines.dropFirst().first == "warning: s.mp4 → sound.m4a: track #0: video h264 \"VideoHandler\" is not written: no writer input takes it")
        // The reason is big.mp4's own: not a line the other output's muxer logged before it.
        #expect(lines.count == 3 && lines[2].hasPrefix("error: big.mp4: ") && lines[2].contains("File too large") && !lines[2].contains("ipod"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(dir.contents.sorted() == ["r.yaml", "s.mp4"], "\(dir.contents)")
    }

    @Test("-o with several outputs is a usage error (64), nothing written; batch takes them: each source makes every output, mirrored, and the ledger lists them")
    func refusals() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in/day1"), withIntermediateDirectories: true)
        try makeShortSource(dir.file("in/day1/s.mp4"), seconds: 1, width: 320, height: 180)
        let r = try Binary.run(["run", renditions, "-i", dir.file("in/day1/s.mp4"), "-o", dir.file("x.mp4")])
        #expect(r.status == 64)
        #expect(r.stderr == "error: \(renditions): -o names one output, but the recipe writes 4 ('outputs' (13:1)): each one's path is in the recipe\n")
        #expect(dir.contents.sorted() == ["in"])
        BatchFixture.settle(dir.file("in"))
        let b = try Binary.run(["batch", renditions, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--settle", "0"], timeLimit: 180)
        #expect(b.status == 0, "\(b.stdout) \(b.stderr)")
        let made = ["1080p.mp4", "720p.mp4", "480p.mp4", "poster.jpg"].map { "day1/s-" + $0 }
        #expect(made.allSatisfy { FileManager.default.fileExists(atPath: dir.file("out/" + $0)) })
        let done = try #require(BatchFixture.ledger(dir.file("out")).last)
        #expect(done.status == .done && done.output == made[0] && done.outputs?.map(\.path) == made)
    }

    @Test("stills in a recipe: a time outside the source refused at its line (65) by run and plan, nothing written")
    func stillRefusals() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 1, width: 320, height: 180)
        try """
            recipe: 1
            reader: { outputs: { v: { track: video } } }
            outputs:
              - path: a.mp4
                inputs: [ { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } } ]
              - path: "t-{n}.png"
                images: { source: v, at: [0.5s, 2s] }
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", "r.yaml", "-i", "s.mp4"], cwd: dir.path)
        #expect(r.status == 65)
        #expect(r.stderr == "r.yaml:7:30: error: s.mp4: the time 2.000s is outside the source, which lasts 1.000s\n    images: { source: v, at: [0.5s, 2s] }\n                             ^\n", "\(r.stderr)")
        let plan = try Binary.run(["plan", "r.yaml", "-i", "s.mp4"], cwd: dir.path)
        #expect(plan.status == 65 && plan.stderr == r.stderr)
        #expect(dir.contents.sorted() == ["r.yaml", "s.mp4"])
    }

    @Test("a composition with several outputs: plan says it is played once for both, run writes both cut alike; a second frame rate refused at its line (65), nothing written")
    func composition() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), seconds: 2, width: 320, height: 180)
        func recipe(_ second: String) -> String {
            """
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            composition:
              video:
                - { end: 0.5s }
                - { start: 1.5s }
            outputs:
              - path: big.mp4
                inputs:
                  - { source: v, settings: { codec: h264, frame-rate: 30, codec-options: { preset: ultrafast } } }
                  - { source: a, settings: { codec: aac } }
              - path: small.mkv
                inputs:
                  - { source: v, settings: { codec: h264, \(second), codec-options: { preset: ultrafast } } }
            """
        }
        try recipe("width: 160, height: 90, frame-rate: 30").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", "r.yaml", "-i", "s.mp4"], cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.hasSuffix("one play of the composition for 2 outputs (each track read, drawn and mixed once)\n"
            + "  the composition's video played once → output 1 track 1, output 2 track 1\n  the composition's audio played → output 1 track 2\n"), "\(plan.stdout)")
        let r = try Binary.run(["run", "r.yaml", "-i", "s.mp4", "--progress", "none"], cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        // 0.5 s and the last 0.5 s of 120 fps pictures at 30 fps: 15 + 15 frames.
        for (file, probed) in [("big.mp4", "320,180,30"), ("small.mkv", "160,90,30")] {
            let got = try SlowMotionCompositionCLITests.ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames",
                                                                "-of", "csv=p=0", dir.file(file)])
            #expect(got == [probed], "\(file)")
        }
        try FileManager.default.removeItem(atPath: dir.file("big.mp4"))
        try FileManager.default.removeItem(atPath: dir.file("small.mkv"))

        try recipe("frame-rate: 24").write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let refused = try Binary.run(["run", "r.yaml", "-i", "s.mp4"], cwd: dir.path)
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("r.yaml:14:32: error: output 2's video is at 24 fps, output 1's at 30 fps: the outputs of a composition show its pictures at one frame rate\n"), "\(refused.stderr)")
        #expect(dir.contents.sorted() == ["r.yaml", "s.mp4"])
    }
}
