import Foundation
import Pipeline
import Recipe
import Testing

/// Subtitles a recipe asks for (`track: subtitle`) reach the output in the form its container
/// holds: text as mov_text in MP4/MOV, as SubRip in Matroska, with their text and timing; bitmap
/// subtitles into MP4 are refused before anything is written.
@Suite("Subtitles: mov_text in MP4, SubRip in MKV, cut with the time range")
struct SubtitleTests {
    static func recipe(_ dir: Scratch, range: String = "", settings: String = "") throws -> String {
        let path = dir.file("subs.yaml")
        try """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                text: { track: subtitle }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
                - { source: text\(settings) }
            \(range)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// 3 s of video with two subtitles: "Hello there" 0.5–1.2 s, "Second line" 2.0–2.8 s.
    static func source(_ path: String, codec: String) throws {
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 10))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil,
                                subtitle: GeneratedSubtitleFormat(codec: codec, metadata: ["language": "eng"]))
        let ms = { (n: Int64) in MediaTime(value: n, timescale: 1000) }
        for i in 0..<30 {
            let t = MediaTime(value: Int64(i), timescale: 10)
            if t == ms(500) { try s.appendSubtitle("Hello there", at: ms(500), duration: ms(700)) }
            if t == ms(2000) { try s.appendSubtitle("Second line", at: ms(2000), duration: ms(800)) }
            try s.appendPicture(at: t) { TestPattern.draw(index: i, into: $0) }
        }
        try s.finish()
    }

    /// The file's first subtitle track as SubRip text, by the ffmpeg command line (nil without it).
    static func srt(_ file: String) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", file, "-map", "0:s:0", "-f", "srt", "-"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func probe(_ file: String) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-select_streams", "s", "-show_entries", "stream=codec_name:stream_tags=language", "-of", "csv=p=0", file]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let both = "1\n00:00:00,500 --> 00:00:01,200\nHello there\n\n2\n00:00:02,000 --> 00:00:02,800\nSecond line\n\n"

    @Test("SubRip from MKV becomes mov_text in MP4 and MOV; mov_text from MP4 becomes SubRip in MKV; text, times and language kept",
          arguments: [("src.mkv", "subrip", "mp4", "mov_text"), ("src.mkv", "subrip", "mov", "mov_text"), ("src.mp4", "mov_text", "mkv", "subrip"),
                      ("src.mp4", "mov_text", "mp4", "mov_text"), ("src.mkv", "subrip", "mkv", "subrip")])
    func converted(source: String, codec: String, ext: String, expected: String) throws {
        let dir = Scratch()
        let src = dir.file(source)
        try Self.source(src, codec: codec)
        let out = dir.file("out.\(ext)")
        let r = try Binary.run(["run", try Self.recipe(dir), "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(try Self.probe(out) == nil || Self.probe(out) == "\(expected),eng")
        #expect(try Self.srt(out) == nil || Self.srt(out) == Self.both)
    }

    @Test("a trim cuts subtitles at its ends and moves them to the output's start, also where the format stays",
          arguments: [("src.mkv", "subrip", "mp4"), ("src.mkv", "subrip", "mkv"), ("src.mp4", "mov_text", "mp4"), ("src.mkv", "ass", "mkv")])
    func trimmed(source: String, codec: String, ext: String) throws {
        let dir = Scratch()
        let src = dir.file(source)
        try Self.source(src, codec: codec)
        let out = dir.file("out.\(ext)")
        let recipe = try Self.recipe(dir, range: "session: { time-range: { start: 1s, end: 2.5s } }")
        let r = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.srt(out) == nil || Self.srt(out) == "1\n00:00:00,000 --> 00:00:00,200\nHello there\n\n2\n00:00:01,000 --> 00:00:01,500\nSecond line\n\n")
    }

    @Test("plan shows the subtitle track and what it becomes")
    func plan() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try Self.source(src, codec: "subrip")
        let r = try Binary.run(["plan", try Self.recipe(dir), "-i", src, "-o", dir.file("out.mp4")])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let track = try #require(lines.firstIndex { $0.hasPrefix("output track 2") })
        #expect(lines[track...].prefix(3) == ["output track 2  ← reader output 'text' (#1 subtitle subrip)", "  subtitles: text converted to mov_text (what mp4 holds)",
                                           "graph (each edge with the format both stages agreed on)"])
        // In the graph, the subtitle sink hands the writer mov_text.
        let sink = try #require(lines.firstIndex(of: "  sink of output track 2 → file \(dir.file("out.mp4"))"), "\(r.stdout)")
        #expect(lines.dropFirst(sink + 1).first == "      stream mov_text, time base 1/1000")
    }

    @Test("a source's subtitles the recipe does not take are named in a warning")
    func leftOut() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try Self.source(src, codec: "subrip")
        let recipe = dir.file("v.yaml")
        try """
            recipe: 1
            reader: { outputs: { picture: { track: video } } }
            writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4"), "--quiet"])
        #expect(r.status == 0)
        #expect(r.stderr == "warning: \(src): track #1: subtitle subrip (eng) is not written: no writer input takes it\n")
    }

    @Test("settings for a subtitle track other than codec: copy are a recipe error at their line")
    func settingsRefused() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try Self.source(src, codec: "subrip")
        let recipe = try Self.recipe(dir, settings: ", settings: { codec: aac }")
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("\(recipe):9:35: error: the settings of writer input 2 sets 'codec', but writer input 2 reads a subtitle track ('text'): subtitles take no settings but 'codec: copy'"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }

    @Test("bitmap subtitles (PGS) into an MP4 are refused before anything is written (corpus)",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func bitmapIntoMP4() throws {
        let dir = Scratch()
        let src = (ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? "") + "/androidx-media/mkv_sample_with_pgs_subtitles.mkv"
        let recipe = try Self.recipe(dir)
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")])
        #expect(r.status == 66)
        #expect(r.stderr.hasPrefix("\(recipe):5:5: error: \(src): track #2 (hdmv_pgs_subtitle) holds bitmap subtitles, which cannot become text: MP4 files hold text subtitles only (mov_text); write to .mkv, or leave the track out"), "\(r.stderr)")
        #expect(dir.contents == ["subs.yaml"])
        let mkv = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mkv"), "--quiet"])
        #expect(mkv.status == 0, "\(mkv.stderr)")
        #expect(try Self.probe(dir.file("out.mkv")) == nil || Self.probe(dir.file("out.mkv")) == "hdmv_pgs_subtitle,eng")
    }
}
