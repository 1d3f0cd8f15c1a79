@testable import Pipeline
import Recipe
import Testing

/// Settings never make a track richer than its source unless the recipe asks: no higher sample
/// rate, bit rate or channel count; HEVC keeps the chroma format; anamorphic pictures keep their
/// stored size and pixel aspect. Where a value is changed, the plan says why.
@Suite("Settings never raise what the source has")
struct NeverRaisedTests {
    /// FFmpeg 5.1's encoders as Debian builds them (libx265 takes 4:2:2 and 4:4:4).
    static let assistant = SettingsAssistant { name in
        switch name {
        case "libx264": return EncoderCapabilities(pixelFormats: ["yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "yuv420p10le", "yuv422p10le", "yuv444p10le"])
        case "libx265": return EncoderCapabilities(pixelFormats: ["yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "yuv420p10le", "yuv422p10le", "yuv444p10le"])
        case "aac": return EncoderCapabilities(sampleRates: AudioFamily.aac.sampleRates)
        default: return nil
        }
    }

    static func sound(_ rate: Int, _ channels: Int, bitRate: Int?) -> FormatDescription {
        var f = FormatDescription(mediaType: .audio, codec: "aac")
        f.sampleRate = rate; f.channels = channels; f.bitRate = bitRate
        return f
    }

    static func picture(_ w: Int, _ h: Int, pixelFormat: String, sar: Ratio = .square, bitDepth: Int = 8) -> FormatDescription {
        var f = SettingsAssistantTests.video(w, h, fps: FrameRate(frames: 25), sar: sar, bitDepth: bitDepth)
        f.pixelFormat = pixelFormat
        return f
    }

    /// A built-in preset as a writer input that names it gets it (built-ins have no `base:`).
    static func preset(_ name: String) throws -> PresetDefinition {
        try #require(BuiltinPresets.named(name))
    }

    @Test("aac-stereo on a 24 kb/s 16 kHz mono track: 16 kHz mono at 24 kb/s, and the plan says why")
    func aacStereoOnPoorSound() throws {
        let r = try Self.assistant.audio(source: Self.sound(16000, 1, bitRate: 24_000), settings: try Self.preset("aac-stereo").audio)
        #expect((r.sampleRate, r.channels, r.bitrate) == (16000, 1, 24_000))
        #expect(r.decision("sample-rate")?.description == "sample-rate = 16000  [sample-rate.kept] the source's rate (never raised)")
        #expect(r.decision("bitrate")?.description
                == "bitrate = 24000  [audio-bitrate.source] the source's 24 kb/s: the preset's 128 kb/s would be more than it has, and a re-encode adds nothing (never raised unless the recipe asks)")
        // A richer source gets the preset's rate, said as a ceiling.
        let rich = try Self.assistant.audio(source: Self.sound(48000, 2, bitRate: 320_000), settings: try Self.preset("aac-stereo").audio)
        #expect(rich.bitrate == 128_000)
        #expect(rich.decision("bitrate")?.reason == "the preset's 128 kb/s, at most the source's 320 kb/s")
    }

    @Test("a bit rate the recipe writes is taken, and the plan says it is above the source's")
    func askedBitrate() throws {
        // Written over a built-in preset: the recipe's own value is an ask, not a ceiling.
        let settings = AudioSettings(bitrate: 192_000).over(try Self.preset("aac-stereo").audio)
        let r = try Self.assistant.audio(source: Self.sound(16000, 1, bitRate: 24_000), settings: settings)
        #expect(r.bitrate == 192_000)
        #expect(r.decision("bitrate")?.description == "bitrate = 192000  [settings] as asked (above the source's 24 kb/s)")
        let rate = try Self.assistant.audio(source: Self.sound(16000, 1, bitRate: 24_000), settings: AudioSettings(sampleRate: 48000))
        #expect(rate.sampleRate == 48000)
        #expect(rate.decision("sample-rate")?.reason == "as asked (above the source's 16000 Hz: resampled up, nothing gained)")
        let layout = try Self.assistant.audio(source: Self.sound(16000, 1, bitRate: 24_000), settings: AudioSettings(channelLayout: "stereo"))
        #expect(layout.channels == 2)
        #expect(layout.decision("channels")?.reason == "the stereo layout has 2 channels (the source has 1: more than it has, as asked)")
    }

    @Test("sample rate: kept where AAC takes it, never raised, lowered above 48 kHz", arguments: [
        (16000, 16000, "sample-rate.kept"), (8000, 8000, "sample-rate.kept"), (32000, 32000, "sample-rate.kept"),
        (37800, 32000, "sample-rate.nearest-below"), (88200, 44100, "sample-rate.lowered"),
        (192000, 48000, "sample-rate.lowered"), (6000, 7350, "sample-rate.encoder-lowest"),
    ])
    func sampleRate(_ source: Int, _ expected: Int, _ rule: String) throws {
        let r = try Self.assistant.audio(source: Self.sound(source, 2, bitRate: nil), settings: AudioSettings())
        #expect(r.sampleRate == expected)
        #expect(r.decision("sample-rate")?.rule == rule)
    }

    @Test("the default 64 kb/s per channel stays under the source's bit rate, and says when the source states none")
    func defaultBitrate() throws {
        let poor = try Self.assistant.audio(source: Self.sound(22050, 2, bitRate: 48_000), settings: AudioSettings())
        #expect(poor.bitrate == 48_000 && poor.decision("bitrate")?.rule == "audio-bitrate.source")
        let unknown = try Self.assistant.audio(source: Self.sound(48000, 2, bitRate: nil), settings: AudioSettings())
        #expect(unknown.bitrate == 128_000)
        #expect(unknown.decision("bitrate")?.reason == "64 kb/s per channel (the source states no bit rate to stay under)")
    }

    @Test("HEVC keeps the chroma format: 4:2:2 stays 4:2:2, 4:1:1 becomes 4:2:2, 4:4:4 stays", arguments: [
        ("yuv422p", 8, "yuv422p", "main422-10", "the source is 4:2:2: HEVC keeps it"),
        ("yuv422p10le", 10, "yuv422p10le", "main422-10", "the source is 10-bit 4:2:2: HEVC keeps it"),
        ("yuv411p", 8, "yuv422p", "main422-10", "the source is 4:1:1: HEVC has no 4:1:1 format: 4:2:2 holds every chroma sample"),
        ("yuv444p", 8, "yuv444p", "main444-8", "the source is 4:4:4: HEVC keeps it"),
        ("yuvj422p", 8, "yuv422p", "main422-10", "the source is 4:2:2: HEVC keeps it"),
    ])
    func hevcChroma(_ source: String, _ depth: Int, _ expected: String, _ profile: String, _ reason: String) throws {
        let r = try Self.assistant.video(source: Self.picture(720, 576, pixelFormat: source, bitDepth: depth),
                                         settings: try Self.preset("hevc-highest-quality").video)
        #expect(r.pixelFormat == expected)
        #expect(r.profile == profile)
        #expect(r.decision("pixel-format")?.rule == "pixel-format.keep-chroma")
        #expect(r.decision("pixel-format")?.reason == reason)
    }

    @Test("H.264 makes 4:2:2 4:2:0 and says why; an HEVC encoder without 4:2:2 says so too")
    func chromaReducedWithReason() throws {
        let avc = try Self.assistant.video(source: Self.picture(720, 576, pixelFormat: "yuv422p"), settings: VideoSettings(codec: .h264))
        #expect(avc.pixelFormat == "yuv420p")
        #expect(avc.decision("pixel-format")?.description
                == "pixel-format = yuv420p  [pixel-format.h264-420] H.264 players expect 8-bit 4:2:0; the 4:2:2 source is reduced (a 'pixel-format' keeps more, or 'codec: hevc')")
        let narrow = SettingsAssistant { $0 == "libx265" ? EncoderCapabilities(pixelFormats: ["yuv420p", "yuv420p10le"]) : nil }
        let hevc = try narrow.video(source: Self.picture(720, 576, pixelFormat: "yuv422p"), settings: VideoSettings(codec: .hevc))
        #expect(hevc.pixelFormat == "yuv420p")
        #expect(hevc.decision("pixel-format")?.reason == "the source is 4:2:2, but this libx265 does not take yuv422p: made 4:2:0")
    }

    @Test("anamorphic DV keeps its stored size and pixel aspect, unless a box resizes it")
    func anamorphic() throws {
        let dv = Self.picture(720, 576, pixelFormat: "yuv420p", sar: Ratio(16, 15))
        for name in ["hevc-highest-quality", "highest-quality", "h264-1920x1080"] {
            let r = try Self.assistant.video(source: dv, settings: try Self.preset(name).video)
            #expect((r.width, r.height, r.pixelAspect) == (720, 576, Ratio(16, 15)), "\(name)")
            #expect(r.decision("pixel-aspect")?.description
                    == "pixel-aspect = 16:15  [pixel-aspect.source] the source's: its pictures keep their stored size and are shown at 768x576, as the source's are", "\(name)")
        }
        let small = try Self.assistant.video(source: dv, settings: try Self.preset("low-quality").video)
        #expect((small.width, small.height, small.pixelAspect) == (480, 360, Ratio.square))
        #expect(small.decision("pixel-aspect")?.reason == "the pictures are resized to fit the box: made square pixels (the source's are 16:15)")
        // Rotated: the stored size is kept as stored.
        var turned = dv
        turned.rotation = 90
        let upright = try Self.assistant.video(source: turned, settings: VideoSettings())
        #expect((upright.width, upright.height, upright.pixelAspect) == (720, 576, Ratio(16, 15)))
    }

    /// Poor sources every preset meets: low-rate mono sound, anamorphic 4:2:2 and small pictures.
    static let poorSounds = [sound(16000, 1, bitRate: 24_000), sound(22050, 2, bitRate: 64_000), sound(11025, 1, bitRate: 16_000)]
    static let poorPictures = [picture(720, 576, pixelFormat: "yuv422p", sar: Ratio(16, 15)), picture(320, 240, pixelFormat: "yuv420p"),
                               picture(720, 480, pixelFormat: "yuv411p", sar: Ratio(8, 9))]

    @Test("no built-in preset gives a track more than its source has", arguments: BuiltinPresets.all.map(\.name))
    func catalogue(_ name: String) throws {
        let p = try Self.preset(name)
        if p.audio.codec != .copy {
            for s in Self.poorSounds {
                let r = try Self.assistant.audio(source: s, settings: p.audio)
                // Opus codes at 48 kHz whatever it is given (the one rate a codec makes itself).
                let rate = p.audio.codec.flatMap(AudioFamily.of)?.fixedRate?.rate ?? s.sampleRate
                #expect(r.sampleRate <= max(rate, s.sampleRate) && r.channels <= s.channels && r.bitrate <= s.bitRate!, "\(name): \(r.decisions)")
            }
        }
        guard p.video.codec != .copy, !BuiltinPresets.audioOnly.contains(name) else { return }
        for s in Self.poorPictures {
            let r = try Self.assistant.video(source: s, settings: p.video)
            // Never larger than stored or displayed, and the pixel aspect kept unless resized.
            #expect(r.width <= max(s.width, s.displaySize.width) && r.height <= s.height, "\(name): \(r.decisions)")
            if (r.width, r.height) == (s.width, s.height) { #expect(r.pixelAspect == s.pixelAspect, "\(name)") }
            else { #expect(r.decision("pixel-aspect")?.rule == (s.pixelAspect.isSquare ? nil : "pixel-aspect.square"), "\(name)") }
            // HEVC and VP9 keep the chroma (4:1:1 in 4:2:2) as far as the profiles the assistant
            // picks from carry it (AV1's Main and High: 4:2:0 or 4:4:4, no 4:2:2); H.264 reduces
            // it and says so; a ProRes profile fixes it (4:2:2 or 4:4:4, as ProRes requires).
            let row = VideoFamily.of(r.codec)
            let fixed = row?.profiles.first { $0.name == r.profile && !$0.pixelFormats.isEmpty }?.chroma
            let automatic = row.map { row in row.automaticProfiles.compactMap { name in row.profiles.first { $0.name == name } } } ?? []
            let sourceChroma = s.pixelFormat == "yuv420p" ? 420 : 422
            let kept = row?.pixelFormats.keepsDepth == true ? (automatic.contains { $0.carries(chroma: sourceChroma) } ? sourceChroma : 420) : 420
            let chroma = fixed ?? kept
            #expect(pixelFormatChroma(r.pixelFormat) == chroma, "\(name)")
            if s.pixelFormat != "yuv420p" && r.codec == .h264 { #expect(r.decision("pixel-format")?.rule == "pixel-format.h264-420", "\(name)") }
        }
    }
}
