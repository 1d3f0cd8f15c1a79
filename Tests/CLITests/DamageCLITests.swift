import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let recipe = repo.appendingPathComponent("recipes/proxy-540p.yaml").path

/// 2 s of 320x240 30 fps with audio, by our writer.
private func makeClip(_ path: String) throws {
    var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
    v.codecOptions = ["preset": "ultrafast"]
    let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
    for i in 0..<60 {
        try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        if i % 30 == 29 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.06)) * 0.3 } }
    }
    try s.finish()
}

private func cut(_ src: String, to bytes: Int, as path: String) throws {
    try Data(contentsOf: URL(fileURLWithPath: src)).prefix(bytes).write(to: URL(fileURLWithPath: path))
}

@Suite("Damaged, cut-off and non-file sources on the command line")
struct DamageCLITests {
    @Test("a FIFO named x.mp4 fails at once with 66 in inspect, plan and run (never blocks in open)")
    func fifo() throws {
        let dir = Scratch()
        let fifo = dir.file("x.mp4")
        #expect(mkfifo(fifo, 0o644) == 0)
        let commands: [[String]] = [
            ["inspect", fifo],
            ["plan", recipe, "-i", fifo, "-o", dir.file("out.mp4")],
            ["run", recipe, "-i", fifo, "-o", dir.file("out.mp4")],
        ]
        for args in commands {
            // Killed after 10 s if it blocks: the status shows it (not 66), instead of a hang.
            let r = try Binary.run(args, timeLimit: 10)
            #expect(r.status == 66, "\(args[0]): status \(r.status)")
            #expect(r.stderr == "error: \(fifo): is a FIFO (named pipe), not a media file\n", "\(args[0])")
        }
        #expect(dir.contents == ["x.mp4"])
    }

    @Test("a directory or a device as the source says what it is (66)")
    func otherKinds() throws {
        let dir = Scratch()
        let folder = dir.file("clips.mp4")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var r = try Binary.run(["inspect", folder], timeLimit: 10)
        #expect(r.status == 66)
        #expect(r.stderr == "error: \(folder): is a directory, not a media file\n")
        r = try Binary.run(["run", recipe, "-i", "/dev/zero", "-o", dir.file("out.mp4")], timeLimit: 10)
        #expect(r.status == 66)
        #expect(r.stderr == "error: /dev/zero: is a character device, not a media file\n")
        #expect(dir.contents == ["clips.mp4"])
    }

    @Test("an MKV cut at 2/21 of its length: exit 1 naming the file, track and time; nothing written")
    func cutMKV() throws {
        let dir = Scratch()
        let src = dir.file("whole.mkv")
        try makeClip(src)
        let size = try FileManager.default.attributesOfItem(atPath: src)[.size] as! Int
        let damaged = dir.file("cut.mkv")
        try cut(src, to: size * 2 / 21, as: damaged)
        let r = try Binary.run(["run", recipe, "-i", damaged, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(r.status == 1, "\(r.stderr)")
        let pattern = #"^error: \#(NSRegularExpression.escapedPattern(for: damaged)): track #[01] at [0-9.]+s: the file is truncated or damaged \(ffmpeg: \[matroska,webm\] File ended prematurely\)\n$"#
        #expect(r.stderr.range(of: pattern, options: .regularExpression) != nil, "\(r.stderr)")
        #expect(dir.contents == ["cut.mkv", "whole.mkv"])
    }

    @Test("100 bytes of an MKV are not media (66), not an I/O error (74)")
    func shortMKV() throws {
        let dir = Scratch()
        let src = dir.file("whole.mkv")
        try makeClip(src)
        let short = dir.file("short.mkv")
        try cut(src, to: 100, as: short)
        for args in [["inspect", short], ["run", recipe, "-i", short, "-o", dir.file("out.mp4")]] {
            let r = try Binary.run(args, timeLimit: 30)
            #expect(r.status == 66, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: \(short): not a media file FFmpeg can read: the file ends too soon (cut off?) (ffmpeg: "), "\(r.stderr)")
        }
        #expect(dir.contents == ["short.mkv", "whole.mkv"])
    }
}
