import Foundation
import Pipeline
import Recipe
import Testing

@Suite("reencode inspect and the command line")
struct InspectCommandTests {
    @Test("inspect --json prints the documented object")
    func json() throws {
        let dir = Scratch()
        let file = dir.file("clip.mov")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30000, seconds: 1001))
        v.codecOptions = ["preset": "ultrafast"]
        v.rotation = 270
        let s = try FrameSource(path: file, video: v, audio: GeneratedAudioFormat(), metadata: ["title": "clip"])
        for i in 0..<30 {
            try s.appendPicture(at: FrameRate(frames: 30000, seconds: 1001).frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        }
        try s.appendAudio(count: 48048) { _, _ in 0 }
        try s.finish()

        let r = try Binary.run(["inspect", "--json", file])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(o["file"] as? String == file)
        #expect((o["metadata"] as? [String: String])?["title"] == "clip")
        let tracks = try #require(o["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        let video = tracks[0]
        #expect(video["type"] as? String == "video")
        #expect(video["codec"] as? String == "h264")
        #expect(video["width"] as? Int == 320 && video["height"] as? Int == 240)
        #expect(video["displayWidth"] as? Int == 240 && video["displayHeight"] as? Int == 320)
        #expect(video["rotation"] as? Int == 270)
        #expect(video["frameRate"] as? String == "30000/1001")
        #expect(video["frameCount"] as? Int == 30)
        #expect(tracks[1]["sampleRate"] as? Int == 48000)
        #expect(tracks[1]["channelLayout"] as? String == "stereo")
        #expect(abs((o["duration"] as? Double ?? 0) - 1.001) < 0.03)
    }

    @Test("a file that is not media: one line naming it, exit 66")
    func notMedia() throws {
        let dir = Scratch()
        let junk = dir.file("notes.mp4")
        try Data("these are not frames\n".utf8).write(to: URL(fileURLWithPath: junk))
        let r = try Binary.run(["inspect", junk])
        #expect(r.status == 66)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("error: \(junk): not a media file FFmpeg can read"))
        #expect(r.stderr.split(separator: "\n").count == 1)
        let missing = try Binary.run(["inspect", dir.file("absent.mov")])
        #expect(missing.status == 66)
        #expect(missing.stderr == "error: \(dir.file("absent.mov")): no such file\n")
    }

    @Test("usage errors exit 64 with Error: and the usage; help and version exit 0")
    func usage() throws {
        let none = try Binary.run(["inspect"])
        #expect(none.status == 64)
        #expect(none.stderr.hasPrefix("Error: missing FILE\nUsage: reencode inspect [--json] [--loudness] FILE..."))
        let unknown = try Binary.run(["inspect", "--jsn", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: unknown option '--jsn'"))
        let sub = try Binary.run(["frobnicate"])
        #expect(sub.status == 64)
        #expect(sub.stderr.hasPrefix("Error: unknown subcommand 'frobnicate'"))
        let help = try Binary.run(["help", "inspect"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: reencode inspect [--json] [--loudness] FILE..."))
        #expect(try Binary.run(["inspect", "--help"]).stdout == help.stdout)
        let version = try Binary.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
    }
}
