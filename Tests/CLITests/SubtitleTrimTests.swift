import Foundation
import Pipeline
import Recipe
import Testing

/// Subtitles under a trim, where the session does not start at the file's start: what is shown
/// across the range start is still shown at the output's start, whatever the container.
@Suite("Subtitles shown across a late range start")
struct SubtitleTrimTests {
    /// 4 s at 10 fps, a sync sample every 0.5 s; "Early" shown 1.9–2.6 s, "Late" 3.0–3.3 s. The
    /// pictures are large enough (over 4 KiB a sync sample) for FFmpeg's Matroska writer to start
    /// a cluster at each sync sample, as in real files.
    static func source(_ path: String, codec: String) throws {
        var v = GeneratedVideoFormat(width: 640, height: 480, frameRate: FrameRate(frames: 10))
        v.codecOptions = ["preset": "ultrafast"]
        v.gop = 5
        let s = try FrameSource(path: path, video: v, audio: nil, subtitle: GeneratedSubtitleFormat(codec: codec))
        let ms = { (n: Int64) in MediaTime(value: n, timescale: 1000) }
        for i in 0..<40 {
            let t = MediaTime(value: Int64(i), timescale: 10)
            if t == ms(1900) { try s.appendSubtitle("Early", at: ms(1900), duration: ms(700)) }
            if t == ms(3000) { try s.appendSubtitle("Late", at: ms(3000), duration: ms(300)) }
            try s.appendPicture(at: t) { TestPattern.draw(index: i, into: $0) }
        }
        try s.finish()
    }

    @Test("a subtitle read before the sync sample the file is sought to is kept (Matroska seeks by cluster)",
          arguments: [("src.mkv", "subrip", "mkv"), ("src.mkv", "subrip", "mp4"), ("src.mkv", "ass", "mkv"), ("src.mp4", "mov_text", "mp4")])
    func acrossRangeStart(source: String, codec: String, ext: String) throws {
        let dir = Scratch()
        let src = dir.file(source)
        try Self.source(src, codec: codec)
        let out = dir.file("out.\(ext)")
        let recipe = try SubtitleTests.recipe(dir, range: "session: { time-range: { start: 2.2s, end: 3.5s } }")
        let r = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        if let text = try SubtitleTests.srt(out) {
            #expect(text == "1\n00:00:00,000 --> 00:00:00,400\nEarly\n\n2\n00:00:00,800 --> 00:00:01,100\nLate\n\n")
        }
    }

    @Test("copied subtitles (decode: false) are cut to the range too: none starts before the output, none delays the other tracks",
          arguments: [("src.mkv", "subrip", "mkv"), ("src.mkv", "ass", "mkv"), ("src.mp4", "mov_text", "mp4"), ("src.mp4", "mov_text", "mov")])
    func copiedAcrossRangeStart(source: String, codec: String, ext: String) throws {
        let dir = Scratch()
        let src = dir.file(source)
        try Self.source(src, codec: codec)
        let recipe = dir.file("copy.yaml")
        try """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                text: { track: subtitle, decode: false }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
                - { source: text }
            session: { time-range: { start: 2.2s, end: 3.5s } }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let out = dir.file("out.\(ext)")
        let r = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let kept = try Asset.load(out)
        #expect(kept.tracks.map(\.format.codec) == ["h264", codec])
        #expect(kept.tracks.map(\.startTime) == [.zero, .zero])
        if let text = try SubtitleTests.srt(out) {
            #expect(text == "1\n00:00:00,000 --> 00:00:00,400\nEarly\n\n2\n00:00:00,800 --> 00:00:01,100\nLate\n\n")
        }
    }
}

/// A copy of subtitles the container cannot hold says what would work.
@Suite("Subtitles: copies the container cannot hold")
struct SubtitleCopyRefusalTests {
    @Test("SubRip copied into MP4 is refused at the reader output's line, saying that without the copy it is converted to mov_text")
    func textCopy() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try SubtitleTests.source(src, codec: "subrip")
        let recipe = dir.file("copy.yaml")
        try """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                text: { track: subtitle, decode: false }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
                - { source: text }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")])
        #expect(r.status == 66)
        #expect(r.stderr.hasPrefix("\(recipe):5:5: error: \(src): track #1: subrip cannot be copied into MP4 files as it is: without 'decode: false' or 'codec: copy' it is converted to mov_text\n"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }
}
