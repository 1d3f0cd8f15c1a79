import Foundation
import Pipeline
import Recipe
import Testing

/// `format: hls` on an entry of `outputs:`: a folder with an init segment and media segments per
/// rendition cut on one grid, a media playlist each and a master playlist, read back by ffmpeg
/// and checked against the rules Apple's validator applies.
@Suite("reencode run: an HLS package of two video renditions and one audio rendition from one read", .serialized)
struct HLSPackageCLITests {
    static func recipe(segment: String = "2s", path: String = "out-hls") -> String {
        """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        outputs:
          - path: \(path)
            format: hls
            segment: \(segment)
            renditions:
              - name: 360p
                inputs:
                  - { source: picture, settings: { codec: h264, width: 640, height: 360, codec-options: { preset: ultrafast } } }
              - name: 180p
                inputs:
                  - { source: picture, settings: { codec: h264, width: 320, height: 180, codec-options: { preset: ultrafast } } }
              - name: audio
                inputs:
                  - { source: sound, settings: { codec: aac, bitrate: 96k, channels: 2 } }
        """
    }

    /// One run, shared by the checks below: 9 s at 30 fps in 2 s segments (its folder is left in
    /// the temporary folder: a static is never deinitialised).
    struct Made: Sendable {
        let path: String
        let status: Int32
        let stderr: String
        func file(_ name: String) -> String { path + "/" + name }
        var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }
    static let made: Made = {
        let path = NSTemporaryDirectory() + "reencode-cli-tests/hls-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try! PackageTools.source(path + "/s.mp4", seconds: 9)
        try! recipe().write(toFile: path + "/r.yaml", atomically: true, encoding: .utf8)
        let r = try! Binary.run(["run", path + "/r.yaml", "-i", path + "/s.mp4"], timeLimit: 300, cwd: path)
        return Made(path: path, status: r.status, stderr: r.stderr)
    }()
    static var package: WrittenPackage { WrittenPackage(folder: made.file("out-hls")) }
    static let video = ["360p", "180p"]

    @Test("the folder holds master.m3u8 and per rendition init.mp4, playlist.m3u8 and seg-1…5.m4s, nothing else; nothing is left beside it")
    func folder() throws {
        #expect(Self.made.status == 0, "\(Self.made.stderr)")
        #expect(Self.made.contents == ["out-hls", "r.yaml", "s.mp4"])
        let names = try FileManager.default.subpathsOfDirectory(atPath: Self.package.folder).sorted()
        let each = ["init.mp4", "playlist.m3u8"] + (1...5).map { "seg-\($0).m4s" }
        #expect(names == (["180p", "360p", "audio"].flatMap { r in [r] + each.map { "\(r)/\($0)" } } + ["master.m3u8"]).sorted())
    }

    @Test("media playlists: VOD, version 7, the init as EXT-X-MAP, exact durations, every segment ≤ TARGETDURATION = ceil(longest)")
    func mediaPlaylists() throws {
        for r in Self.video + ["audio"] {
            let m = try Self.package.media(r)
            #expect(m.lines.first == "#EXTM3U" && m.lines.last == "#EXT-X-ENDLIST", "\(r)")
            #expect(m.tag("#EXT-X-VERSION:") == "7" && m.tag("#EXT-X-PLAYLIST-TYPE:") == "VOD" && m.tag("#EXT-X-MAP:") == "URI=\"init.mp4\"", "\(r)")
            #expect(m.segments == (1...5).map { "seg-\($0).m4s" }, "\(r)")
            #expect(m.targetDuration == Int(m.durations.max()!.rounded(.up)), "\(r): \(m.durations)")
            #expect(m.durations.allSatisfy { $0 <= Double(m.targetDuration!) }, "\(r)")
        }
        // Video: frames 0, 60, 120, 180, 240 start the segments, 30 frames in the last.
        for r in Self.video { #expect(try Self.package.media(r).durations == [2, 2, 2, 2, 1], "\(r)") }
        // Sound: each boundary within one AAC frame (1024 samples at 48 kHz) of the video's.
        let audio = try Self.package.media("audio"), frame = 1024.0 / 48000
        for (k, start) in audio.starts.enumerated() { #expect(abs(start - Double(2 * k)) <= frame, "audio segment \(k + 1) starts at \(start)") }
        #expect(abs(audio.durations.reduce(0, +) - 9) <= frame, "\(audio.durations)")
    }

    @Test("each video segment (init + segment) starts with a keyframe at its boundary, and the renditions' boundaries are the same")
    func keyframes() throws {
        let dir = Scratch()
        for r in Self.video {
            var firsts: [Double] = []
            for k in 1...5 {
                try Self.package.joined(r, segments: [k], into: dir.file("one.mp4"))
                let packets = try PackageTools.packets(dir.file("one.mp4"))
                #expect(packets.first?.last?.contains("K") == true, "\(r) segment \(k): \(packets.first ?? [])")
                #expect(packets.count == (k == 5 ? 30 : 60), "\(r) segment \(k): \(packets.count) packets")
                firsts.append(packets.map { Double($0[0]) ?? .infinity }.min() ?? -1)
            }
            #expect(firsts == [0, 2, 4, 6, 8], "\(r): \(firsts)")
        }
    }

    @Test("master.m3u8: independent segments, a variant per video rendition with the audio group, BANDWIDTH ≥ every segment's bit rate, CODECS from the SPS")
    func master() throws {
        let p = Self.package, dir = Scratch()
        let text = try p.text("master.m3u8")
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n"))
        #expect(text.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/playlist.m3u8\"\n"))
        let variants = try p.variants()
        #expect(variants.map(\.uri) == ["360p/playlist.m3u8", "180p/playlist.m3u8"])
        try p.joined("audio", segments: [1], into: dir.file("a.mp4"))
        let aac = try #require(try PackageTools.aacCodec(dir.file("a.mp4")))
        let audio = try p.media("audio")
        let audioPeak = try zip(audio.segments, audio.durations).map { Double(try p.bytes("audio/\($0)") * 8) / $1 }.max()!
        for ((attributes, _), (r, size)) in zip(variants, zip(Self.video, ["640x360", "320x180"])) {
            try p.joined(r, segments: [1], into: dir.file("v.mp4"))
            let avc = try #require(try PackageTools.avcFromSPS(dir.file("v.mp4")))
            #expect(attributes["CODECS"] == "\(avc),\(aac)", "\(r): \(attributes)")
            #expect(attributes["RESOLUTION"] == size && attributes["FRAME-RATE"] == "30.000" && attributes["AUDIO"] == "audio", "\(r): \(attributes)")
            let m = try p.media(r)
            let rates = try zip(m.segments, m.durations).map { Double(try p.bytes("\(r)/\($0)") * 8) / $1 }
            let bandwidth = try #require(attributes["BANDWIDTH"].flatMap(Double.init)), average = try #require(attributes["AVERAGE-BANDWIDTH"].flatMap(Double.init))
            // The variant plays with the audio rendition: its peak is counted in.
            #expect(rates.allSatisfy { $0 + audioPeak <= bandwidth }, "\(r): \(rates) + \(audioPeak) > \(bandwidth)")
            #expect(bandwidth <= rates.max()! + audioPeak + 1, "\(r): BANDWIDTH \(bandwidth) is not the measured peak \(rates.max()! + audioPeak)")
            #expect(average < bandwidth && average > 0)
        }
    }

    @Test("ffmpeg reads master.m3u8, every rendition to its end, without an error: 270 pictures per video rendition, 9 s of sound")
    func ffmpegReads() throws {
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", Self.package.file("master.m3u8"), "-map", "0", "-f", "null", "-"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let probe = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames,width",
                                                               "-of", "csv=p=0", Self.package.file("master.m3u8")])
        let lines = Set(probe.stdout.split(separator: "\n").map(String.init))
        #expect(lines.contains("video,640,270") && lines.contains("video,320,270"), "\(probe.stdout) \(probe.stderr)")
    }

    static let gstPlay = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/gst-play.sh").path

    @Test("GStreamer (playbin: hlsdemux, qtdemux) plays master.m3u8 to its end without an error: the last picture at 269/30 s, sound to 9 s")
    func gstreamerPlays() throws {
        let r = try Binary.runTool(Self.gstPlay, [Self.package.file("master.m3u8")])
        if r.status == 77 { print("GStreamer check skipped: \(r.stderr)"); return }
        #expect(r.status == 0, "\(r.stderr)")
        let fields = r.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let video = fields.count == 6 ? Double(fields[3]) : nil, audio = fields.count == 6 ? Double(fields[5]) : nil
        #expect(video.map { abs($0 - 269.0 / 30) < 1e-6 } == true, "\(r.stdout)")
        // Its last AAC frame (1024 samples) starts within a frame of 9 s: one before it with the
        // edit list's priming cut, up to one after it where a player shows the priming (GStreamer 1.22 does).
        let frame = 1024.0 / 48000
        #expect(audio.map { $0 >= 9 - 2 * frame && $0 <= 9 + frame } == true, "\(r.stdout)")
    }

    @Test("a switch: 360p's segments 1–2 then 180p's 3–5, each after its own init, show source frames 0…269 once each, in order")
    func switchRenditions() throws {
        let dir = Scratch()
        try Self.package.joined("360p", segments: [1, 2], into: dir.file("a.mp4"))
        try Self.package.joined("180p", segments: [3, 4, 5], into: dir.file("b.mp4"))
        let a = try SampleReaderStamps.read(dir.file("a.mp4")), b = try SampleReaderStamps.read(dir.file("b.mp4"))
        #expect(a + b == (0..<270).map { Optional($0) }, "A \(a.count): \(a.suffix(3)) B \(b.count): \(b.prefix(3))")
        let first = try PackageTools.packets(dir.file("b.mp4")).map { Double($0[0]) ?? .infinity }.min()
        #expect(first == 4, "180p's segment 3 starts at \(first ?? -1) s")
    }
}
