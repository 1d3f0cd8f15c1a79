import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The audio rows of the codec table — Opus, FLAC, ALAC, PCM — each checked against ffmpeg's
/// output with the same settings: the stream ffprobe reads (codec, sample format, rate,
/// channels, bits), the decoded samples (lossless: the very same), and the sound in its place.
@Suite("Audio codecs from the table: Opus, FLAC, ALAC, PCM as ffmpeg makes them")
struct AudioCodecTests {
    /// 2 s of frame-stamped pictures and stereo 48 kHz sound with bursts at 0.5 s and 1.5 s.
    static func source(_ dir: Scratch, rate: Int = 48000) throws -> String {
        let path = dir.file("src.mp4")
        try Media.make(path, video: GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30)), frames: 60, audio: true,
                       markers: Media.Markers(firstMarker: 15, markerEvery: 30))
        return path
    }

    /// Runs ffmpeg; its stdout.
    static func ffmpeg(_ args: [String]) throws -> Data {
        try FFprobe.output(of: "/usr/bin/ffmpeg", ["-v", "error", "-y"] + args)
    }

    /// The MD5 of the first audio track's decoded samples, as `format` (`s16`, `s32`).
    static func samplesMD5(_ file: String, format: String) throws -> String {
        String(decoding: try ffmpeg(["-i", file, "-map", "0:a:0", "-f", "md5", "-c:a", "pcm_\(format)le", "-"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first audio track's decoded samples as 16-bit integers, channels interleaved.
    static func samples(_ file: String) throws -> [Int16] {
        try ffmpeg(["-i", file, "-map", "0:a:0", "-f", "s16le", "-c:a", "pcm_s16le", "-"]).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// What ffprobe says of the first audio stream that ffmpeg's and our output must share.
    static func described(_ file: String) throws -> [String: String] {
        let s = try #require(try FFprobe.stream(file, "a:0", "codec_name,sample_fmt,sample_rate,channels,bits_per_raw_sample"), "ffprobe is missing")
        return s.filter { ["codec_name", "sample_fmt", "sample_rate", "channels", "bits_per_raw_sample"].contains($0.key) }
    }

    /// The source's sound converted by reencode with `settings` into `output`.
    static func convert(_ source: String, _ output: String, _ settings: AudioSettings) throws -> ConversionPlan {
        let plan = try Planner.plan(ConversionRequest(source: source, output: output, tracks: [TrackRequest(.type(.audio, 0), .audio(settings))]))
        try ExportSession(plan: plan).run()
        return plan
    }

    @Test("FLAC, ALAC and PCM in MKV, MOV, M4A and MP4: the stream ffmpeg writes, the very samples ffmpeg's decode to, the sound in its place",
          arguments: [("flac", "mkv", "flac"), ("flac", "mp4", "flac"), ("alac", "m4a", "alac"), ("alac", "mov", "alac"),
                      ("pcm", "mov", "pcm_s16le"), ("pcm", "mkv", "pcm_s16le")])
    func lossless(codec: String, container: String, encoder: String) throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let ours = dir.file("ours.\(container)"), theirs = dir.file("ffmpeg.\(container)")
        let plan = try Self.convert(src, ours, AudioSettings(codec: AudioCodec(rawValue: codec)))
        _ = try Self.ffmpeg(["-i", src, "-map", "0:a", "-c:a", encoder, "-sample_fmt", codec == "alac" ? "s16p" : "s16", "-strict", "-2", theirs])
        #expect(try Self.described(ours) == Self.described(theirs), "\(codec) in \(container)")
        // AAC's float samples in 16 bits, as ffmpeg rounds them: the same samples, bit for bit.
        // (ffmpeg also keeps the AAC's padding after the source's last sample.)
        let (a, b) = (try Self.samples(ours), try Self.samples(theirs))
        #expect(a.count == 2 * 96000 && b.starts(with: a), "\(codec) in \(container): \(a.count) and \(b.count) samples")
        // Within 1 ms: Matroska stamps each block of samples to the millisecond.
        let onsets = (try Media.burstOnsets(ours), try Media.burstOnsets(src))
        #expect(onsets.0.count == onsets.1.count && zip(onsets.0, onsets.1).allSatisfy { abs($0 - $1) <= 0.001 },
                "\(codec) in \(container): the sound moved: \(onsets.0) vs \(onsets.1)")
        guard case .audio(let s) = plan.lanes[0].kind else { Issue.record("no audio lane"); return }
        #expect(s.bitDepth == 16 && s.bitrate == 0)
        #expect(s.decision("bit-depth")?.reason == "the source's aac decodes to float samples, with no depth of its own to keep: 16 bits, as a CD")
        #expect(s.decision("bitrate")?.value == "lossless")
        // FFmpeg writes FLAC into MP4 only as an experimental feature: said.
        #expect(plan.notices.filter { $0.item == "codec.experimental-in-container" }.map(\.message)
                == (codec == "flac" && container == "mp4" ? ["FLAC in MP4 is written as FFmpeg's experimental feature: some players do not read it (MKV holds it as a standard)"] : []))
    }

    @Test("Opus in MP4 and MKV: 48 kHz float, the stream ffmpeg writes; the bursts where the source has them (within 1 ms)",
          arguments: ["mp4", "mkv"])
    func opus(container: String) throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let ours = dir.file("ours.\(container)"), theirs = dir.file("ffmpeg.\(container)")
        let plan = try Self.convert(src, ours, AudioSettings(codec: .opus, bitrate: 96_000))
        _ = try Self.ffmpeg(["-i", src, "-map", "0:a", "-c:a", "libopus", "-b:a", "96k", theirs])
        #expect(try Self.described(ours) == Self.described(theirs))
        let (a, b) = (try Media.burstOnsets(ours), try Media.burstOnsets(src))
        #expect(a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 0.001 }, "\(a) vs \(b)")
        let packets = try FFprobe.frameCount(ours, "a:0"), reference = try FFprobe.frameCount(theirs, "a:0")
        #expect(packets == reference)
        guard case .audio(let s) = plan.lanes[0].kind else { Issue.record("no audio lane"); return }
        #expect(s.sampleRate == 48000 && s.sampleFormat == "flt" && s.bitDepth == nil)
        #expect(s.decision("sample-rate")?.reason == "the source's rate; Opus codes at 48 kHz inside, and players expect it")
    }

    @Test("Opus and FLAC copied between Matroska and MP4: the sound ffmpeg -c copy makes (FLAC's every sample; Opus's as the containers' clocks place it), FLAC into MP4 as FFmpeg's experimental feature")
    func copied() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        for (codec, settings) in [("opus", AudioSettings(codec: .opus)), ("flac", AudioSettings(codec: .flac))] {
            let mkv = dir.file("\(codec).mkv"), mp4 = dir.file("\(codec).mp4"), back = dir.file("\(codec)-back.mkv")
            _ = try Self.convert(src, mkv, settings)
            for (from, to) in [(mkv, mp4), (mp4, back)] {
                let plan = try Planner.plan(ConversionRequest(source: from, output: to, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings(codec: .copy)))]))
                try ExportSession(plan: plan).run()
                let theirs = dir.file("ffmpeg-" + FilePaths.name(of: to))
                _ = try Self.ffmpeg(["-i", from, "-map", "0:a", "-c", "copy", "-strict", "-2", theirs])
                #expect(try Self.described(to)["codec_name"] == codec, "\(to)")
                #expect(try Self.samplesMD5(to, format: "s16") == Self.samplesMD5(theirs, format: "s16"), "\(codec): \(from) → \(to) is not what ffmpeg's copy makes")
                // FLAC's samples are the same in every container; Opus's pre-skip is stamped to
                // Matroska's millisecond, so its first samples move by what that rounding moved.
                if codec == "flac" { #expect(try Self.samplesMD5(to, format: "s16") == Self.samplesMD5(mkv, format: "s16"), "\(to)") }
            }
        }
    }

    @Test("the assistant: Opus resamples 44.1 kHz to 48 kHz and says so; lossless keeps 96 kHz and 24 bits, rounds 32 to 24; PCM's encoder by depth")
    func assistant() throws {
        let assistant = SettingsAssistant.system
        var f = FormatDescription(mediaType: .audio, codec: "flac")
        (f.sampleRate, f.channels, f.sampleFormat) = (44100, 2, "s16")
        let opus = try assistant.audio(source: f, settings: AudioSettings(codec: .opus))
        #expect(opus.sampleRate == 48000)
        #expect(opus.decision("sample-rate")?.reason == "the source's 44100 Hz is resampled to 48000 Hz: Opus codes at 48 kHz inside, and players expect it")
        (f.sampleRate, f.bitDepth) = (96000, 24)
        let flac = try assistant.audio(source: f, settings: AudioSettings(codec: .flac))
        #expect(flac.sampleRate == 96000 && flac.bitDepth == 24 && flac.sampleFormat == "s32")
        #expect(flac.decision("bit-depth")?.reason == "the source's 24-bit samples, kept")
        f.bitDepth = 32
        let pcm = try assistant.audio(source: f, settings: AudioSettings(codec: .pcm))
        #expect(pcm.encoderName == "pcm_s24le" && pcm.bitDepth == 24 && pcm.sampleFormat == "s32")
        #expect(pcm.decision("bit-depth")?.reason == "the source's 32-bit samples, rounded to PCM's 24 bits")
        (f.bitDepth, f.channels) = (16, 6)
        let alac = try assistant.audio(source: f, settings: AudioSettings(codec: .alac))
        #expect(alac.encoderName == "alac" && alac.sampleFormat == "s16p")
        // A lossless copy keeps 5.1; a lossy one is made stereo unless asked.
        #expect(alac.channels == 6 && alac.decision("channels")?.reason == "the source's 6 channels fit within 8")
        #expect(try assistant.audio(source: f, settings: AudioSettings(codec: .opus)).channels == 2)
        // 44.1 kHz is no rate libopus takes.
        #expect(throws: MediaError.self) { _ = try assistant.audio(source: f, settings: AudioSettings(codec: .opus, sampleRate: 44100)) }
    }

    @Test("a bit rate beside a lossless codec has no effect, and plan says so")
    func ignoredBitrate() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("o.mkv"),
                                                      tracks: [TrackRequest(.index(1), .audio(AudioSettings(codec: .flac, bitrate: 128_000)))]))
        #expect(plan.notices.filter { $0.item == "setting.bitrate" }.map(\.message) == ["'bitrate' has no effect: FLAC is lossless: its size follows the sound"])
    }

    @Test("a 24-bit FLAC (corpus) into ALAC and PCM: 24 bits kept, every sample the same", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func deep() throws {
        let dir = Scratch()
        let src = (ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? "") + "/androidx-media/mka_bear-flac-24bit.mka"
        for (codec, file) in [(AudioCodec.alac, "out.m4a"), (.pcm, "out.mkv"), (.flac, "out.mp4")] {
            let plan = try Self.convert(src, dir.file(file), AudioSettings(codec: codec))
            guard case .audio(let s) = plan.lanes[0].kind else { Issue.record("no audio lane"); continue }
            #expect(s.bitDepth == 24, "\(codec)")
            #expect(try Self.described(dir.file(file))["bits_per_raw_sample"] == "24", "\(codec)")
            #expect(try Self.samplesMD5(dir.file(file), format: "s32") == Self.samplesMD5(src, format: "s32"), "\(codec): the samples changed")
        }
    }
}
