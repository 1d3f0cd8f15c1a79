import Foundation
import Pipeline
import Recipe
import Testing

/// A subtitle event longer than a first guess at its encoded size (a whole page of lyrics, a
/// hostile file's megabyte of text) is written whole where the format holds it, and refused
/// with its size and the format's limit where it does not.
@Suite("Subtitles: long events")
struct SubtitleLongEventTests {
    /// 70,000 bytes of text in 700 lines.
    static let page = (0..<700).map { String(format: "%03d", $0) + String(repeating: "x", count: 96) }.joined(separator: "\\N")

    static func source(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 10))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil, subtitle: GeneratedSubtitleFormat(codec: "subrip"))
        for i in 0..<30 {
            let t = MediaTime(value: Int64(i), timescale: 10)
            if i == 5 { try s.appendSubtitle(Self.page, at: t, duration: MediaTime(seconds: 1)) }
            try s.appendPicture(at: t) { TestPattern.draw(index: i, into: $0) }
        }
        try s.finish()
    }

    @Test("a 70,000-byte event is cut and written whole as SubRip")
    func writtenWhole() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try Self.source(src)
        let out = dir.file("out.mkv")
        let recipe = try SubtitleTests.recipe(dir, range: "session: { time-range: { start: 1s, end: 2.5s } }")
        let r = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        if let text = try SubtitleTests.srt(out) {
            // FFmpeg's SubRip writer ends a line inside an event with CR LF.
            #expect(text == "1\n00:00:00,000 --> 00:00:00,500\n" + Self.page.replacingOccurrences(of: "\\N", with: "\r\n") + "\n\n")
        }
    }

    @Test("into MP4 it is refused with its size and mov_text's limit, naming the file, track and time; nothing is written")
    func tooLongForMovText() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try Self.source(src)
        let out = dir.file("out.mp4")
        let r = try Binary.run(["run", try SubtitleTests.recipe(dir), "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 1)
        #expect(r.stderr == "error: \(src): track #1 at 0.500s: a subtitle event of 70718 bytes is longer than mov_text holds (65535 bytes): write to .mkv, or leave the track out\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
