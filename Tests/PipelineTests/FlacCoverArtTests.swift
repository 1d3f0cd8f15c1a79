import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Cover art into a `.flac` output: each picture a METADATA_BLOCK_PICTURE, byte for byte the
/// source's, with the picture type and description the source states (an MP4 `covr`, which
/// states none, as the front cover); read back by ffprobe and by ExifTool. Sources: FLAC with a
/// front and a back cover, MP3 with an ID3v2 picture, M4A with a `covr`.
@Suite("Cover art kept in FLAC outputs")
struct FlacCoverArtTests {
    static func ffmpeg(_ args: [String]) throws { _ = try AudioCodecTests.ffmpeg(args) }

    /// A picture file made by ffmpeg (`ext`: png or jpg), its bytes.
    static func picture(_ dir: Scratch, _ name: String, size: String) throws -> (path: String, bytes: [UInt8]) {
        let path = dir.file(name)
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=s=\(size):d=0.04", "-frames:v", "1", path])
        return (path, Array(try #require(FileManager.default.contents(atPath: path))))
    }

    /// Each attached picture's (codec, type, description), in stream order.
    static func pictures(_ file: String) throws -> [String] {
        try #require(try FFprobe.streams(file)).filter { (($0["disposition"] as? [String: Any])?["attached_pic"] as? Int) == 1 }.map { s in
            let tags = s["tags"] as? [String: String] ?? [:]
            return "\(s["codec_name"] ?? "") \(tags["comment"] ?? "-") \(tags["title"] ?? "-")"
        }
    }

    /// The bytes of attached picture `n` (among the file's attached pictures), as ffmpeg copies it out.
    static func pictureBytes(_ file: String, _ n: Int, dir: Scratch) throws -> [UInt8] {
        let out = dir.file("pic-\(UInt32.random(in: 0...UInt32.max)).bin")
        try ffmpeg(["-i", file, "-map", "0:v:\(n)", "-c", "copy", "-f", "image2", out])
        return Array(try #require(FileManager.default.contents(atPath: out)))
    }

    /// The source's sound into `out` with the settings `.flac` takes when none are named.
    static func convert(_ src: String, _ out: String) throws -> ConversionPlan {
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
        try ExportSession(plan: plan).run()
        return plan
    }

    @Test("a FLAC source's front and back covers: both kept in a .flac, byte for byte, with their types and description (ffprobe and ExifTool); every sample kept")
    func fromFLAC() throws {
        let dir = Scratch()
        let front = try Self.picture(dir, "front.png", size: "40x30"), back = try Self.picture(dir, "back.jpg", size: "32x24")
        let src = dir.file("song.flac")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:r=44100", "-i", front.path, "-i", back.path, "-map", "0", "-map", "1", "-map", "2",
                         "-c:a", "flac", "-c:v", "copy", "-disposition:v", "attached_pic",
                         "-metadata:s:v:0", "comment=Cover (front)", "-metadata:s:v:0", "title=The front",
                         "-metadata:s:v:1", "comment=Cover (back)", src])
        try #require(try Self.pictures(src) == ["png Cover (front) The front", "mjpeg Cover (back) -"])
        let out = dir.file("out.flac")
        let plan = try Self.convert(src, out)
        #expect(plan.notices.filter { $0.item == "cover-art" }.isEmpty, "\(plan.notices)")
        #expect(plan.kept.pictures.map(\.summary) == ["png 40x30", "mjpeg 32x24"])
        #expect(try FFprobe.format(out)?["format_name"] == "flac")
        #expect(try Self.pictures(out) == ["png Cover (front) The front", "mjpeg Cover (back) -"])
        #expect(try Self.pictureBytes(out, 0, dir: dir) == front.bytes)
        #expect(try Self.pictureBytes(out, 1, dir: dir) == back.bytes)
        #expect(try AudioCodecTests.samplesMD5(out, format: "s16") == AudioCodecTests.samplesMD5(src, format: "s16"))
        // A second reader: ExifTool reads the picture blocks itself (`-a`: each block's, in order;
        // each tag's values listed together).
        if let exif = try Self.exifTool(["-a", "-b", "-Picture", out]) {
            #expect(Array(exif) == front.bytes + back.bytes)
        }
        if let types = try Self.exifTool(["-s3", "-a", "-PictureType", "-PictureMIMEType", "-PictureDescription", out]) {
            #expect(String(decoding: types, as: UTF8.self).components(separatedBy: "\n")
                    == ["Front Cover", "Back Cover", "image/png", "image/jpeg", "The front", "", ""])
        }
    }

    @Test("an MP3's ID3v2 picture and an M4A's covr into .flac: the same bytes; the MP4 covr, which states no type, as the front cover",
          arguments: ["mp3", "m4a"])
    func fromOthers(_ ext: String) throws {
        let dir = Scratch()
        let cover = try Self.picture(dir, "cover.jpg", size: "48x48")
        let src = dir.file("song.\(ext)")
        let tags = ext == "mp3" ? ["-metadata:s:v", "comment=Media (e.g. label side of CD)", "-metadata:s:v", "title=Label", "-id3v2_version", "3"] : []
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:r=44100", "-i", cover.path, "-map", "0", "-map", "1",
                         "-c:a", ext == "mp3" ? "libmp3lame" : "aac", "-c:v", "copy", "-disposition:v", "attached_pic"] + tags + [src])
        let stated = ext == "mp3" ? "mjpeg Media (e.g. label side of CD) Label" : "mjpeg - -"
        try #require(try Self.pictures(src) == [stated])
        let out = dir.file("out.flac")
        let plan = try Self.convert(src, out)
        #expect(plan.notices.filter { $0.item == "cover-art" }.isEmpty, "\(plan.notices)")
        #expect(try Self.pictures(out) == [ext == "mp3" ? stated : "mjpeg Cover (front) -"])
        #expect(try Self.pictureBytes(out, 0, dir: dir) == cover.bytes)
    }

    @Test("the FLAC's cover into .m4a is kept as covr, byte for byte; into .opus and .ogg it is said dropped, naming the containers that keep it",
          arguments: ["m4a", "opus", "ogg"])
    func fromFLACToOthers(_ ext: String) throws {
        let dir = Scratch()
        let front = try Self.picture(dir, "front.png", size: "40x30")
        let src = dir.file("song.flac")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:r=44100", "-i", front.path, "-map", "0", "-map", "1",
                         "-c:a", "flac", "-c:v", "copy", "-disposition:v", "attached_pic", "-metadata:s:v:0", "comment=Cover (front)", src])
        let out = dir.file("out.\(ext)")
        let plan = try Self.convert(src, out)
        let notices = plan.notices.filter { $0.item == "cover-art" }.map(\.message)
        if ext == "m4a" {
            #expect(notices.isEmpty)
            #expect(try Self.pictureBytes(out, 0, dir: dir) == front.bytes)
        } else {
            let name = ext == "opus" ? "Ogg Opus" : "Ogg"
            #expect(notices == ["cover art (png 40x30) is dropped: reencode writes no cover art into \(name) files (.flac, .m4a and .mkv keep it)"])
            #expect(try Self.pictures(out) == [])
        }
    }

    @Test("a picture FLAC has no type for (GIF: FFmpeg's FLAC writer has none) is said dropped, naming the kinds it holds; the sound is written")
    func gifDropped() throws {
        let dir = Scratch()
        let gif = try Self.picture(dir, "anim.gif", size: "40x30")
        let src = dir.file("song.mkv")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2:r=44100", "-attach", gif.path, "-metadata:s:t", "mimetype=image/gif",
                         "-map", "0", "-c:a", "flac", src])
        let out = dir.file("out.flac")
        let plan = try Self.convert(src, out)
        #expect(plan.notices.filter { $0.item == "cover-art" }.map(\.message) == ["cover art (gif 40x30) is dropped: FLAC files hold cover art as JPEG, PNG, BMP or TIFF only"])
        #expect(try Self.pictures(out) == [])
        #expect(try AudioCodecTests.samplesMD5(out, format: "s16") == AudioCodecTests.samplesMD5(src, format: "s16"))
    }

    /// ExifTool's output for `args` (stdout bytes); nil where it is not installed.
    static func exifTool(_ args: [String]) throws -> Data? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else { print("ExifTool missing: its checks skipped"); return nil }
        return try FFprobe.output(of: "/usr/bin/exiftool", args)
    }
}
