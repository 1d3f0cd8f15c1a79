import Foundation
@testable import Pipeline
import Recipe
import Testing

/// WebM and the audio-only containers (`.flac`, `.opus`, `.wav`): each written from a
/// frame-stamped source with the codec the container takes where none is asked, checked with
/// ffprobe and against ffmpeg's output with the same settings; copies between MKV and WebM are
/// the packets `ffmpeg -c copy` writes.
@Suite("Containers: WebM, FLAC, Ogg Opus, WAV")
struct ContainerFormatTests {
    static let rate = FrameRate(frames: 30)

    /// 60 frame-stamped pictures at 30 fps with stereo 48 kHz sound, bursts at 0.5 s and 1.5 s.
    static func source(_ dir: Scratch) throws -> String { try AudioCodecTests.source(dir) }

    static func ffmpeg(_ args: [String]) throws { _ = try AudioCodecTests.ffmpeg(args) }

    /// Every packet of every track as `ffmpeg -f framemd5` lists it: stream, times, size, checksum.
    static func packets(_ file: String) throws -> [String] {
        String(decoding: try FFprobe.output(of: "/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-map", "0", "-c", "copy", "-f", "framemd5", "-"]), as: UTF8.self)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    static func burstsInPlace(_ file: String, source: String) throws -> Bool {
        let (a, b) = (try Media.burstOnsets(file), try Media.burstOnsets(source))
        return a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 0.001 }
    }

    @Test("VP9 and AV1 with Opus in WebM: webm's own codecs where none is asked (plan says why), every picture in place, the sound where the source has it, Opus as ffmpeg writes it",
          arguments: [VideoCodec.vp9, .av1])
    func webm(_ codec: VideoCodec) throws {
        let dir = Scratch()
        let src = try Self.source(dir), out = dir.file("out.webm"), theirs = dir.file("ffmpeg.webm")
        let row = try #require(VideoFamily.of(codec))
        // VP9 is left open (WebM's default); the fastest speed of each: the machine is shared.
        let speed = try #require(row.encoder(where: CodecSupport.canEncode).speed)
        let video = VideoSettings(codec: codec == .vp9 ? nil : codec, codecOptions: [speed.option: speed.names[0]])
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(video)), TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
        #expect(plan.format == .webm)
        guard case .video(let v) = plan.lanes[0].kind, case .audio(let a) = plan.lanes[1].kind else { Issue.record("lanes: \(plan.lanes)"); return }
        if codec == .vp9 {
            #expect(v.decision("codec")?.rule == "codec.container")
            #expect(v.decision("codec")?.reason == "no codec asked for: a WebM file holds VP8, VP9 or AV1 video: VP9, which every browser that plays WebM plays, made faster than AV1")
        }
        #expect(a.codec == .opus && a.decision("codec")?.rule == "audio-codec.container")
        #expect(a.decision("codec")?.reason == "no codec asked for: a WebM file holds Opus or Vorbis audio: Opus, which sounds better than Vorbis at every bit rate")
        try ExportSession(plan: plan).run()

        #expect(try FFprobe.format(out)?["format_name"] == "matroska,webm")
        #expect(try FFprobe.stream(out, "v:0", "codec_name")?["codec_name"] == row.streamCodec)
        #expect(try FFprobe.stream(out, "a:0", "codec_name")?["codec_name"] == "opus")
        #expect(try FFprobe.frameCount(out, "v:0") == 60)
        // ffmpeg with the same settings: the same pictures at the same times (both 7 ms late: the
        // Matroska writer moves every track by Opus's 6.5 ms pre-skip, rounded to its millisecond),
        // the same Opus stream and packets.
        let encoder = codec == .vp9 ? ["-c:v", "libvpx-vp9", "-cpu-used", "8", "-crf", "31", "-b:v", "0", "-row-mt", "1"]
            : ["-c:v", "libsvtav1", "-preset", "13", "-crf", "35"]
        try Self.ffmpeg(["-i", src] + encoder + ["-c:a", "libopus", "-b:a", "\(a.bitrate)", theirs])
        let (stamps, reference) = (try Media.stamps(out), try Media.stamps(theirs))
        #expect(stamps.map(\.stamp) == Array(0..<60))
        #expect(stamps.map(\.pts) == reference.map(\.pts))
        #expect(stamps.first?.pts == MediaTime(value: 7, timescale: 1000))
        #expect(try Self.burstsInPlace(out, source: src))
        #expect(try AudioCodecTests.described(out) == AudioCodecTests.described(theirs))
        #expect(try FFprobe.frameCount(out, "a:0") == FFprobe.frameCount(theirs, "a:0"))
    }

    @Test("VP9 + Opus copied WebM → MKV → WebM: the packets ffmpeg -c copy writes, every picture and sound kept")
    func copies() throws {
        let dir = Scratch()
        let src = try Self.source(dir), webm = dir.file("a.webm")
        try runConversion(ConversionRequest(source: src, output: webm, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["cpu-used": "8"]))), TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
        var from = webm
        for to in [dir.file("b.mkv"), dir.file("c.webm")] {
            try runConversion(ConversionRequest(source: from, output: to, tracks: [TrackRequest(.type(.video, 0), .passthrough), TrackRequest(.type(.audio, 0), .passthrough)]))
            let theirs = dir.file("ffmpeg-" + FilePaths.name(of: to))
            try Self.ffmpeg(["-i", from, "-map", "0", "-c", "copy", theirs])
            #expect(try Self.packets(to) == Self.packets(theirs), "\(from) → \(to)")
            #expect(try Media.stamps(to).map(\.stamp) == Array(0..<60))
            #expect(try AudioCodecTests.samplesMD5(to, format: "s16") == AudioCodecTests.samplesMD5(webm, format: "s16"))
            from = to
        }
        #expect(try FFprobe.format(dir.file("c.webm"))?["format_name"] == "matroska,webm")
    }

    @Test("Vorbis (libvorbis) in WebM as ffmpeg writes it, the sound in place; copied into MKV and back, every sample kept")
    func vorbis() throws {
        let dir = Scratch()
        let src = try Self.source(dir), out = dir.file("v.webm"), theirs = dir.file("ffmpeg.webm")
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .vorbis, bitrate: 96_000)))]))
        guard case .audio(let a) = plan.lanes[0].kind else { Issue.record("no audio lane"); return }
        #expect(a.encoderName == "libvorbis" && a.sampleRate == 48000 && a.sampleFormat == "fltp" && a.bitrate == 96_000)
        try ExportSession(plan: plan).run()
        try Self.ffmpeg(["-i", src, "-map", "0:a", "-c:a", "libvorbis", "-b:a", "96k", theirs])
        #expect(try AudioCodecTests.described(out) == AudioCodecTests.described(theirs))
        #expect(try AudioCodecTests.described(out)["codec_name"] == "vorbis")
        #expect(try Self.burstsInPlace(out, source: src))
        let mkv = dir.file("v.mkv"), back = dir.file("back.webm")
        for (from, to) in [(out, mkv), (mkv, back)] {
            try runConversion(ConversionRequest(source: from, output: to, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .copy)))]))
            #expect(try AudioCodecTests.samplesMD5(to, format: "s16") == AudioCodecTests.samplesMD5(out, format: "s16"), "\(to)")
        }
    }

    /// (extension, ffprobe's format name, codec, what the plan says of it).
    static let audioOnly: [(String, String, String, String)] = [
        ("flac", "flac", "flac", "no codec asked for: a FLAC file holds FLAC"),
        ("opus", "ogg", "opus", "no codec asked for: an Ogg Opus file holds Opus"),
        ("wav", "wav", "pcm_s16le", "no codec asked for: a WAV file holds PCM"),
    ]

    @Test("audio-only .flac, .opus, .wav: the container's codec where none is asked, the stream ffmpeg writes there, lossless ones every sample ffmpeg's has",
          arguments: audioOnly.indices)
    func audioOnlyFile(_ i: Int) throws {
        let (ext, formatName, codec, reason) = Self.audioOnly[i]
        let dir = Scratch()
        let src = try Self.source(dir), out = dir.file("out.\(ext)"), theirs = dir.file("ffmpeg.\(ext)")
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
        guard case .audio(let a) = plan.lanes[0].kind else { Issue.record("no audio lane"); return }
        #expect(a.decision("codec")?.rule == "audio-codec.container" && a.decision("codec")?.reason == reason)
        try ExportSession(plan: plan).run()
        // ffmpeg's own default for the extension is the same codec; lossless ones in 16 bits.
        try Self.ffmpeg(["-i", src, "-map", "0:a"] + (ext == "opus" ? ["-b:a", "\(a.bitrate)"] : ["-sample_fmt", "s16"]) + [theirs])
        #expect(try FFprobe.format(out)?["format_name"] == formatName)
        #expect(try AudioCodecTests.described(out) == AudioCodecTests.described(theirs))
        #expect(try AudioCodecTests.described(out)["codec_name"] == codec)
        #expect(try Self.burstsInPlace(out, source: src))
        if ext != "opus" {
            let (ours, ref) = (try AudioCodecTests.samples(out), try AudioCodecTests.samples(theirs))
            #expect(ours.count == 2 * 96000 && ref.starts(with: ours), "\(ours.count) and \(ref.count) samples")
        }
    }

    @Test("a 24-bit source into .wav and .flac keeps 24 bits: pcm_s24le and 24-bit FLAC, every sample the source's")
    func depthFromSource() throws {
        let dir = Scratch()
        let made = try Self.source(dir), src = dir.file("src24.flac")
        try Self.ffmpeg(["-i", made, "-map", "0:a", "-c:a", "flac", "-sample_fmt", "s32", src])
        try #require(try FFprobe.stream(src, "a:0", "bits_per_raw_sample")?["bits_per_raw_sample"] == "24")
        for (ext, codec) in [("wav", "pcm_s24le"), ("flac", "flac")] {
            let out = dir.file("out.\(ext)")
            try runConversion(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
            let s = try #require(try FFprobe.stream(out, "a:0", "codec_name,bits_per_raw_sample,bits_per_sample"))
            #expect(s["codec_name"] == codec)
            #expect((ext == "wav" ? s["bits_per_sample"] : s["bits_per_raw_sample"]) == "24")
            #expect(try AudioCodecTests.samplesMD5(out, format: "s32") == AudioCodecTests.samplesMD5(src, format: "s32"), "\(ext)")
        }
    }

    @Test("copies the container cannot hold are refused naming the track and the container: H.264 or AAC into WebM, Opus into .flac")
    func copyRefusals() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        for (track, output, message) in [
            (TrackSelector.type(.video, 0), "x.webm", "h264 cannot be copied into webm as it is: reencode it instead"),
            (.type(.audio, 0), "x.webm", "aac cannot be copied into webm as it is: reencode it instead"),
            (.type(.audio, 0), "x.wav", "aac cannot be copied into wav as it is: reencode it instead"),
            (.type(.video, 0), "x.flac", "a flac file holds audio only: the video track cannot be copied into it"),
            (.type(.audio, 0), "x.ogg", "aac cannot be copied into ogg as it is: reencode it instead"),
            (.type(.video, 0), "x.oga", "an ogg file holds audio only: the video track cannot be copied into it"),
        ] {
            do throws(MediaError) {
                _ = try Planner.plan(ConversionRequest(source: src, output: dir.file(output), tracks: [TrackRequest(track, .passthrough)]))
                Issue.record("\(output): planned")
            } catch {
                #expect(error.message == message && error.track == (track == .type(.video, 0) ? 0 : 1) && error.kind == .unsupported, "\(output): \(error)")
            }
        }
        #expect(dir.contents == ["src.mp4"])
    }

    /// (extension, chapters ffprobe reads back, the plan's notices). The source is a Matroska
    /// file, whose tag names are capitals (`MAKE`).
    static func keptCases(_ codec: String) -> [(String, [String], [String])] {
        let cover = "cover-art: cover art (\(codec) 40x30) is dropped: "
        return [
            ("webm", KeptItemsTests.allChapters, [cover + "WebM files hold no cover art (.mkv keeps it)"]),
            // A FLAC picture block keeps it (FlacCoverArtTests).
            ("flac", [], ["chapters: 3 chapters are dropped: reencode writes no chapters into FLAC files (.m4a and .mkv keep them)",
                          "track-title: the track title 'Lead' is dropped: FLAC files state none",
                                                  "track-language: the track language 'eng' is dropped: FLAC files state none"]),
            // FFmpeg 5.1's Ogg writer misplaces chapters (2.5 s written as 3.5 s): none are written.
            ("opus", [], [cover + "reencode writes no cover art into Ogg Opus files (.flac, .m4a and .mkv keep it)",
                          "chapters: 3 chapters are dropped: reencode writes no chapters into Ogg Opus files (.m4a and .mkv keep them)",
                                                  "track-title: the track title 'Lead' is dropped: Ogg Opus files state none",
                                                  "track-language: the track language 'eng' is dropped: Ogg Opus files state none"]),
            ("wav", [], [cover + "reencode writes no cover art into WAV files (.flac, .m4a and .mkv keep it)",
                         "metadata: metadata MAKE is dropped: WAV files hold only album, artist, comment, copyright, date, genre, language, title, track (RIFF INFO)",
                         "chapters: 3 chapters are dropped: reencode writes no chapters into WAV files (.m4a and .mkv keep them)",
                         "track-title: the track title 'Lead' is dropped: WAV files state none",
                         "track-language: the track language 'eng' is dropped: WAV files state none"]),
        ]
    }

    @Test("what WebM, FLAC, Ogg Opus and WAV keep of a source's chapters, tags and cover art, and each thing they drop said",
          arguments: 0..<4)
    func kept(_ i: Int) throws {
        let dir = Scratch()
        let src = dir.file("song.mkv")
        let cover = try TestPicture.make(codec: "png", width: 40, height: 30)
        try KeptMedia.make(src, video: false, kept: KeptItems(metadata: ["title": "A Song", "make": "TestMaker"], chapters: KeptMedia.threeChapters, pictures: [cover]),
                           audioMetadata: ["title": "Lead", "language": "eng"])
        let (ext, chapters, notices) = Self.keptCases("png")[i]
        let out = dir.file("out.\(ext)")
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))]))
        try ExportSession(plan: plan).run()
        #expect(plan.notices.map { "\($0.item): \($0.message)" } == notices, "\(ext)")
        #expect(try FFprobe.chapters(out) == chapters, "\(ext)")
        // An Ogg file's tags are its one stream's.
        let tags = try #require(ext == "opus" ? try FFprobe.stream(out, "a:0", "codec_name") : try FFprobe.tags(out))
        #expect(tags.first { $0.key.lowercased() == "title" }?.value == "A Song", "\(ext): \(tags)")
        #expect(tags.contains { $0.key.lowercased() == "make" } == (ext != "wav"), "\(ext): \(tags)")
    }
}
