import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("Raw H.264 on the command line")
struct RawElementaryStreamCLITests {
    @Test("inspect, plan and run (whole or trimmed, decoded or copied) refuse a raw H.264 stream with 66 and the way to wrap it; nothing written")
    func refusedEverywhere() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4"), src = dir.file("raw.h264")
        var v = GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast", "bf": "2"]
        let s = try FrameSource(path: mp4, video: v, audio: nil)
        for i in 0..<30 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
        try #require(ffmpeg != nil, "ffmpeg is needed to make a raw stream")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg!)
        p.arguments = ["-v", "error", "-i", mp4, "-c", "copy", "-f", "h264", src]
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        try FileManager.default.removeItem(atPath: mp4)
        let message = "error: \(src): raw H.264 video stream: its pictures carry no presentation times and may be stored out of display order; "
            + "wrap it with its frame rate first (30 fps, as its header states): mkvmerge -o raw.mkv --default-duration 0:30fps raw.h264 "
            + "(ffmpeg -c copy would time them in stored order)\n"
        let out = dir.file("out.mp4")
        let commands: [[String]] = [
            ["inspect", src],
            ["plan", repo.appendingPathComponent("recipes/proxy-540p.yaml").path, "-i", src, "-o", out],
            ["run", repo.appendingPathComponent("recipes/proxy-540p.yaml").path, "-i", src, "-o", out],
            ["run", repo.appendingPathComponent("recipes/trim-clip.yaml").path, "-i", src, "-o", out],
            ["run", repo.appendingPathComponent("recipes/remux-passthrough.yaml").path, "-i", src, "-o", out],
        ]
        for args in commands {
            let r = try Binary.run(args, timeLimit: 60)
            #expect(r.status == 66, "\(args[0]) \(args.count > 2 ? args[1] : ""): status \(r.status)")
            #expect(r.stderr == message, "\(args[0])")
        }
        #expect(dir.contents == ["raw.h264"])
    }

    @Test("inspect and plan say a raw MPEG-4 Part 2 stream states no length (not 'invalid'), and a copy of [0.5 s, 1.5 s) ends there")
    func mpeg4PartTwoLength() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4"), src = dir.file("clip.m4v"), out = dir.file("clip.mkv")
        let v = GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30))
        let s = try FrameSource(path: mp4, video: v, audio: nil)
        for i in 0..<60 { try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let ffmpeg = try #require(["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-v", "error", "-i", mp4, "-c:v", "mpeg4", "-q:v", "2", "-bf", "0", "-g", "10", "-f", "m4v", src]
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        let inspect = try Binary.run(["inspect", src], timeLimit: 60)
        #expect(inspect.status == 0)
        #expect(inspect.stdout.split(separator: "\n").first == "\(src)  (raw MPEG-4 video, length not stated)")
        #expect(inspect.stdout.split(separator: "\n").dropFirst().first?.hasSuffix("  length not stated") == true, "\(inspect.stdout)")
        let recipe = dir.file("copy.yaml")
        try """
            recipe: 1
            reader:
              outputs:
                picture: { track: video, decode: false }
            writer:
              inputs:
                - { source: picture }
            session:
              time-range: { start: 0.5s, duration: 1s }

            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", recipe, "-i", src, "-o", out], timeLimit: 60)
        #expect(plan.status == 0)
        #expect(plan.stdout.contains("source   \(src)  [length not stated]\n"), "\(plan.stdout)")
        let run = try Binary.run(["run", recipe, "-i", src, "-o", out], timeLimit: 60)
        #expect(run.status == 0, "\(run.stderr)")
        // Sync samples every 10 frames: the copy is frames 10 … 44, not on to the file's end (59).
        let r = try SampleReader(path: out, track: .type(.video, 0))
        var stamps: [Int?] = []
        while let picture = try r.nextPicture() { stamps.append(picture.stamp) }
        #expect(stamps == (10...44).map { Optional($0) })
    }
}
