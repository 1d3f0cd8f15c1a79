import Foundation
import Testing

/// The corpus files the issue names keep what they carry, or say what they drop (compared with
/// the source's own values, read at run time: no value of a corpus file is written here).
@Suite("Kept, or said: corpus files", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct KeptCorpusTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
    static let recipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("recipes").path

    static func tool(_ name: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        p.arguments = ["-v", "error"] + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func chapters(_ f: String) throws -> [String] {
        try tool("ffprobe", ["-show_chapters", "-of", "csv=p=0", "-show_entries", "chapter=start_time,end_time:chapter_tags=title", f])
            .split(separator: "\n").map(String.init)
    }

    static func tags(_ f: String) throws -> [String: String] {
        let o = try JSONSerialization.jsonObject(with: Data(try tool("ffprobe", ["-show_entries", "format_tags", "-of", "json", f]).utf8)) as? [String: Any]
        return (o?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    /// The first attached picture's bytes.
    static func cover(_ f: String, _ dir: Scratch) throws -> [UInt8]? {
        let o = try JSONSerialization.jsonObject(with: Data(try tool("ffprobe", ["-show_entries", "stream=index:stream_disposition=attached_pic", "-of", "json", f]).utf8)) as? [String: Any]
        let streams = o?["streams"] as? [[String: Any]] ?? []
        guard let s = streams.first(where: { (($0["disposition"] as? [String: Any])?["attached_pic"] as? Int) == 1 }), let i = s["index"] as? Int else { return nil }
        let out = dir.file("cover-\(i)-\(UInt32.random(in: 0...UInt32.max)).bin")
        _ = try tool("ffmpeg", ["-y", "-i", f, "-map", "0:\(i)", "-c", "copy", "-f", "image2", out])
        return FileManager.default.contents(atPath: out).map { Array($0) }
    }

    @Test("mp4_sample_with_chapters.mp4 keeps its 3 chapters in MP4, MOV and MKV", arguments: ["mp4", "mov", "mkv"])
    func chapters(ext: String) throws {
        let src = Self.corpus + "/androidx-media/mp4_sample_with_chapters.mp4"
        let dir = Scratch()
        let out = dir.file("out.\(ext)")
        let r = try Binary.run(["run", Self.recipes + "/remux-passthrough.yaml", "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "", "the chapter track is the chapters, not a track left out")
        let want = try Self.chapters(src)
        #expect(want.count == 3)
        #expect(try Self.chapters(out) == want)
    }

    @Test("nom-exif/meta.mov into MP4 keeps make, model, software, creation date and location")
    func captureMetadata() throws {
        let src = Self.corpus + "/nom-exif/meta.mov"
        let dir = Scratch()
        let out = dir.file("out.mp4")
        let r = try Binary.run(["run", Self.recipes + "/remux-passthrough.yaml", "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let want = try Self.tags(src), got = try Self.tags(out)
        let keys = ["com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.software",
                    "com.apple.quicktime.creationdate", "com.apple.quicktime.location.ISO6709"]
        for key in keys {
            #expect(want[key] != nil, "\(key) in the source")
            #expect(got[key] == want[key], "\(key)")
        }
        #expect(got["location"] != nil, "the location also as the 3GPP box")
    }

    @Test("an Android slow-motion MP4 keeps com.android.capture.fps")
    func androidCaptureRate() throws {
        let src = Self.corpus + "/androidx-media/mp4_sample_android_slow_motion.mp4"
        let dir = Scratch()
        let out = dir.file("out.mp4")
        let r = try Binary.run(["run", Self.recipes + "/remux-passthrough.yaml", "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let want = try Self.tags(src)["com.android.capture.fps"]
        #expect(want != nil)
        #expect(try Self.tags(out)["com.android.capture.fps"] == want)
    }

    @Test("flac_bear_with_picture.flac keeps its picture as M4A cover art, byte for byte")
    func coverArt() throws {
        let src = Self.corpus + "/androidx-media/flac_bear_with_picture.flac"
        let dir = Scratch()
        let out = dir.file("out.m4a")
        let r = try Binary.run(["run", Self.recipes + "/extract-audio-m4a.yaml", "-i", src, "-o", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        let want = try Self.cover(src, dir)
        #expect(want != nil)
        #expect(try Self.cover(out, dir) == want)
    }

    @Test("a GoPro file's timecode and telemetry tracks are each named as dropped")
    func goProTracks() throws {
        let src = Self.corpus + "/gpmf-parser/hero7.mp4"
        let dir = Scratch()
        let r = try Binary.run(["plan", Self.recipes + "/remux-passthrough.yaml", "-i", src, "-o", dir.file("out.mp4"), "--json"])
        #expect(r.status == 0)
        let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let warnings = (o?["warnings"] as? [[String: Any]] ?? []).map { "\($0["kind"]!) \($0["item"]!) \($0["track"]!): \($0["message"]!)" }
        #expect(warnings == [
            "dropped track 2: timecode tmcd \"GoPro TCD\" (eng) is not written: no writer input takes it",
            "dropped track 3: data gpmd \"GoPro MET\" (eng) is not written: no writer input takes it",
            "dropped track 4: data fdsc \"GoPro SOS\" (eng) is not written: no writer input takes it",
        ])
    }
}
