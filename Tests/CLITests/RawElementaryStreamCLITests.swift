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
}
