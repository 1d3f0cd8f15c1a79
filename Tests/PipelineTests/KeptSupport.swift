import Foundation
import Pipeline
import Recipe

/// Test media with chapters, cover art and metadata (made-up values only), and ffprobe's view
/// of what an output kept.
enum KeptMedia {
    /// A made-up place (ISO 6709), never a real file's.
    static let location = "+12.3456-098.7654+010.000/"
    static let iPhoneKeys = [
        "com.apple.quicktime.make": "TestMaker", "com.apple.quicktime.model": "Model 7",
        "com.apple.quicktime.software": "1.2.3", "com.apple.quicktime.location.ISO6709": location,
        "com.apple.quicktime.creationdate": "2020-05-06T07:08:09+0200",
    ]
    static let threeChapters = [
        Chapter(start: .zero, end: MediaTime(seconds: 1), title: "One"),
        Chapter(start: MediaTime(seconds: 1), end: MediaTime(value: 5, timescale: 2), title: "Two"),
        Chapter(start: MediaTime(value: 5, timescale: 2), end: MediaTime(seconds: 3), title: "Three"),
    ]

    /// 3 s of 64x48 video at 10 fps (and stereo AAC when `audio`), with what `kept` holds.
    static func make(_ path: String, audio: Bool = true, video: Bool = true, kept: KeptItems,
                     audioMetadata: [String: String] = [:], videoMetadata: [String: String] = [:]) throws {
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 10))
        v.codecOptions = ["preset": "ultrafast"]
        v.metadata = videoMetadata
        var a = GeneratedAudioFormat()
        a.metadata = audioMetadata
        let source = try FrameSource(path: path, video: video ? v : nil, audio: audio ? a : nil, kept: kept)
        var samples = 0
        for i in 0..<30 {
            if video { try source.appendPicture(at: MediaTime(value: Int64(i), timescale: 10)) { TestPattern.draw(index: i, into: $0) } }
            if audio {
                try source.appendAudio(count: 4800) { _, n in Float(sin(Double(n) / 20)) * 0.2 }
                samples += 4800
            }
        }
        try source.finish()
    }
}

extension FFprobe {
    /// (start, end, title) of every chapter, times as ffprobe prints them (seconds, 6 decimals).
    static func chapters(_ file: String) throws -> [String]? {
        try run(["-show_chapters", "-of", "csv=p=0", "-show_entries", "chapter=start_time,end_time:chapter_tags=title", file])?
            .split(separator: "\n").map(String.init)
    }

    /// The file's tags.
    static func tags(_ file: String) throws -> [String: String]? {
        guard let out = try run(["-show_entries", "format_tags", "-of", "json", file]) else { return nil }
        let o = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        return (o?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    /// One stream's tags and whether it is an attached picture, with ffprobe's codec name.
    static func streams(_ file: String) throws -> [[String: Any]]? {
        guard let out = try run(["-show_entries", "stream=index,codec_type,codec_name:stream_tags:stream_disposition=attached_pic", "-of", "json", file]) else { return nil }
        let o = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        return o?["streams"] as? [[String: Any]]
    }

    /// The bytes of the first attached picture (cover art), as ffmpeg copies it out; nil when
    /// the file has none.
    static func coverBytes(_ file: String, dir: Scratch) throws -> [UInt8]? {
        guard let streams = try streams(file),
              let cover = streams.first(where: { (($0["disposition"] as? [String: Any])?["attached_pic"] as? Int) == 1 }),
              let index = cover["index"] as? Int else { return nil }
        let out = dir.file("cover-\(index).bin")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y", "-i", file, "-map", "0:\(index)", "-c", "copy", "-f", "image2", out]
        try p.run()
        p.waitUntilExit()
        return FileManager.default.contents(atPath: out).map { Array($0) }
    }
}
