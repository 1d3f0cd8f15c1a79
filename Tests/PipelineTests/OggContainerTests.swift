import Foundation
@testable import Pipeline
import Recipe
import Testing

/// `.ogg` and `.oga` outputs: Ogg holding Opus, Vorbis or FLAC sound (Vorbis where the recipe
/// names no codec), each checked with ffprobe (format, codec, rate, layout, duration) and against
/// ffmpeg's output with the same settings; an Opus track copied into Ogg is the packets
/// `ffmpeg -c copy` writes.
@Suite("Ogg outputs: Opus, Vorbis and FLAC in .ogg and .oga")
struct OggContainerTests {
    /// 2 s of stereo sound at 44.1 kHz with bursts at 0.5 s and 1.5 s, as 16-bit WAV: a rate
    /// Vorbis and FLAC keep and Opus does not.
    static func source(_ dir: Scratch) throws -> String {
        let made = try AudioCodecTests.source(dir), wav = dir.file("src44.wav")
        _ = try AudioCodecTests.ffmpeg(["-i", made, "-map", "0:a", "-ar", "44100", "-c:a", "pcm_s16le", wav])
        return wav
    }

    static func describe(_ file: String) throws -> [String: String] {
        try #require(try FFprobe.stream(file, "a:0", "codec_name,sample_rate,channels,channel_layout"))
            .filter { ["codec_name", "sample_rate", "channels", "channel_layout"].contains($0.key) }
    }

    static func duration(_ file: String) throws -> Double {
        Double(try #require(try FFprobe.format(file)?["duration"])) ?? -1
    }

    /// (output name, codec asked, the stream ffprobe reads, its rate, ffmpeg's encoder options).
    static let cases: [(String, AudioCodec?, String, String, [String])] = [
        ("out.ogg", nil, "vorbis", "44100", ["-c:a", "libvorbis"]),
        ("out.oga", .vorbis, "vorbis", "44100", ["-c:a", "libvorbis"]),
        ("out.ogg", .opus, "opus", "48000", ["-c:a", "libopus", "-ar", "48000"]),
        ("out.oga", .flac, "flac", "44100", ["-c:a", "flac", "-sample_fmt", "s16"]),
    ]

    @Test("Vorbis (where none is asked: plan says why), Opus (48 kHz) and FLAC in Ogg: format ogg, the codec, rate, stereo layout and 2 s, the stream ffmpeg writes, the sound in place; FLAC every sample",
          arguments: cases.indices)
    func encoded(_ i: Int) throws {
        let (name, codec, stream, rate, encoder) = Self.cases[i]
        let dir = Scratch()
        let src = try Self.source(dir), out = dir.file(name), theirs = dir.file("ffmpeg-" + name)
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: codec)))]))
        #expect(plan.format == .ogg)
        guard case .audio(let a) = plan.lanes[0].kind else { Issue.record("no audio lane"); return }
        if codec == nil {
            #expect(a.decision("codec").map { "\($0.rule) \($0.reason)" }
                    == "audio-codec.container no codec asked for: an Ogg file holds Opus, Vorbis or FLAC audio: Vorbis, which every player that opens .ogg files plays (.opus names an Ogg Opus file)")
        }
        try ExportSession(plan: plan).run()
        #expect(try FFprobe.format(out)?["format_name"] == "ogg")
        #expect(try Self.describe(out) == ["codec_name": stream, "sample_rate": rate, "channels": "2", "channel_layout": "stereo"])
        #expect(try ContainerFormatTests.burstsInPlace(out, source: src))
        // ffmpeg with the same settings writes the same kind of stream, as long: the source's
        // length (Opus: and its 6.5 ms pre-skip), as many samples.
        _ = try AudioCodecTests.ffmpeg(["-i", src, "-map", "0:a"] + encoder + (a.bitrate > 0 ? ["-b:a", "\(a.bitrate)"] : []) + ["-f", "ogg", theirs])
        #expect(try AudioCodecTests.described(out) == AudioCodecTests.described(theirs))
        let (seconds, reference, source) = (try Self.duration(out), try Self.duration(theirs), try Self.duration(src))
        #expect(abs(seconds - reference) < 0.0005 && abs(seconds - source) < (stream == "opus" ? 0.008 : 0.0005), "\(seconds) s, ffmpeg's \(reference) s, the source \(source) s")
        #expect(try AudioCodecTests.samples(out).count == AudioCodecTests.samples(theirs).count)
        if stream == "flac" {
            #expect(try AudioCodecTests.samplesMD5(out, format: "s16") == AudioCodecTests.samplesMD5(src, format: "s16"))
        }
    }

    @Test("an Opus track copied into .ogg from an Ogg Opus file and from MKV: the packets ffmpeg -c copy writes from the Ogg Opus file, every sample kept")
    func copied() throws {
        let dir = Scratch()
        let src = try Self.source(dir), opus = dir.file("a.opus")
        _ = try AudioCodecTests.convert(src, opus, AudioSettings())
        let mkv = dir.file("a.mkv")
        try runConversion(ConversionRequest(source: opus, output: mkv, tracks: [TrackRequest(.type(.audio, 0), .passthrough)]))
        let theirs = dir.file("ffmpeg-a.ogg")
        _ = try AudioCodecTests.ffmpeg(["-i", opus, "-map", "0:a", "-c", "copy", theirs])
        for from in [opus, mkv] {
            let to = dir.file("copy-\(FilePaths.name(of: from)).ogg")
            let plan = try Planner.plan(ConversionRequest(source: from, output: to, tracks: [TrackRequest(.type(.audio, 0), .passthrough)]))
            guard case .passthrough = plan.lanes[0].kind else { Issue.record("\(from): not copied: \(plan.lanes[0].kind)"); return }
            try ExportSession(plan: plan).run()
            #expect(try FFprobe.format(to)?["format_name"] == "ogg")
            #expect(try Self.describe(to) == ["codec_name": "opus", "sample_rate": "48000", "channels": "2", "channel_layout": "stereo"])
            // From MKV too: the first packet at −312 (the pre-skip), not where Matroska's
            // milliseconds put it, and the end trimmed (ffmpeg's own copy from MKV is 7.5 ms late
            // and untrimmed).
            #expect(try ContainerFormatTests.packets(to) == ContainerFormatTests.packets(theirs), "\(from)")
            #expect(try AudioCodecTests.samplesMD5(to, format: "s16") == AudioCodecTests.samplesMD5(opus, format: "s16"), "\(from)")
        }
    }

    @Test("plan's containers: Opus, Vorbis and FLAC fit Ogg, AAC and a video track do not")
    func fits() throws {
        let dir = Scratch()
        let src = try AudioCodecTests.source(dir)
        for (tracks, holds) in [
            ([TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .opus)))], true),
            ([TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .flac)))], true),
            ([TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .aac)))], false),
            ([TrackRequest(.type(.video, 0), .video(.fast())), TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .opus)))], false),
        ] {
            let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("x.mkv"), tracks: tracks))
            let ogg = try #require(plan.containerFits.first { $0.format == .ogg })
            #expect(ogg.holds == holds, "\(tracks): \(ogg.refusal ?? "")")
        }
    }
}
