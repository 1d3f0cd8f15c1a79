import Pipeline
import Recipe
import Testing

@Suite("Settings assistant rules")
struct SettingsAssistantTests {
    static let assistant = SettingsAssistant { name in
        switch name {
        case "libx264": return EncoderCapabilities(pixelFormats: ["yuv420p", "yuv422p", "yuv444p", "yuv420p10le"])
        case "libx265": return EncoderCapabilities(pixelFormats: ["yuv420p", "yuv420p10le"])
        case "aac": return EncoderCapabilities(sampleRates: [96000, 48000, 44100, 32000, 24000, 22050, 16000, 8000])
        default: return nil
        }
    }

    static func video(_ w: Int, _ h: Int, fps: FrameRate = FrameRate(frames: 30), rotation: Int = 0,
                      sar: Ratio = .square, bitDepth: Int = 8) -> FormatDescription {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        f.width = w; f.height = h; f.averageFrameRate = fps; f.rotation = rotation
        f.pixelAspect = sar; f.bitDepth = bitDepth; f.pixelFormat = bitDepth > 8 ? "yuv420p10le" : "yuv420p"
        return f
    }

    static func audio(_ rate: Int, _ channels: Int) -> FormatDescription {
        var f = FormatDescription(mediaType: .audio, codec: "aac")
        f.sampleRate = rate; f.channels = channels
        return f
    }

    struct SizeCase: Sendable {
        let source: FormatDescription
        let box: (Int?, Int?)
        let expected: (Int, Int)
        let rule: String
    }

    @Test("size: fitted inside the box, never upscaled, aspect, rotation and pixel aspect honoured, even", arguments: [
        SizeCase(source: video(1920, 1080), box: (1280, 720), expected: (1280, 720), rule: "size.fit-box"),
        SizeCase(source: video(3840, 2160), box: (1920, 1080), expected: (1920, 1080), rule: "size.fit-box"),
        SizeCase(source: video(1280, 720), box: (1920, 1080), expected: (1280, 720), rule: "size.no-upscale"),
        SizeCase(source: video(1920, 800), box: (1280, 720), expected: (1280, 532), rule: "size.fit-box"),
        SizeCase(source: video(1440, 1080), box: (1280, 720), expected: (960, 720), rule: "size.fit-box"),
        // Portrait phone video: stored 1920x1080 turned 90°; shows 1080x1920; the box turns with it.
        SizeCase(source: video(1920, 1080, rotation: 90), box: (1280, 720), expected: (1280, 720), rule: "size.fit-box"),
        // Anamorphic DV: 720x480 with 32:27 pixels (shown as 853x480) keeps its stored size and
        // pixel aspect; fitted into a box, it is resized to square pixels.
        SizeCase(source: video(720, 480, sar: Ratio(32, 27)), box: nil ?? (nil, nil), expected: (720, 480), rule: "size.source"),
        SizeCase(source: video(720, 480, sar: Ratio(32, 27)), box: (640, 360), expected: (640, 360), rule: "size.fit-box"),
        SizeCase(source: video(161, 121), box: (nil, nil), expected: (160, 120), rule: "size.source"),
        SizeCase(source: video(1920, 1080), box: (640, nil), expected: (640, 360), rule: "size.fit-box"),
    ])
    func size(_ c: SizeCase) throws {
        let r = try Self.assistant.video(source: c.source, settings: VideoSettings(width: c.box.0, height: c.box.1))
        #expect(r.width == c.expected.0 && r.height == c.expected.1, "got \(r.width)x\(r.height)")
        #expect(r.decision("size")?.rule == c.rule)
        #expect(r.width % 2 == 0 && r.height % 2 == 0)
    }

    struct RateCase: Sendable {
        let source: FrameRate
        let target: FrameRate
        let policy: FrameRatePolicy
        let expected: FrameRate
        let rule: String
    }

    @Test("frame rate by policy", arguments: [
        RateCase(source: FrameRate(frames: 120), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 30), rule: "frame-rate.cap"),
        RateCase(source: FrameRate(frames: 60000, seconds: 1001), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 30000, seconds: 1001), rule: "frame-rate.cap-ntsc"),
        RateCase(source: FrameRate(frames: 24), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 24), rule: "frame-rate.cap-keep"),
        // The 1001-family twin of a cap only where it is a standard rate: never 24.975 or 49.95.
        RateCase(source: FrameRate(frames: 30000, seconds: 1001), target: FrameRate(frames: 25), policy: .cap, expected: FrameRate(frames: 25), rule: "frame-rate.cap"),
        RateCase(source: FrameRate(frames: 60000, seconds: 1001), target: FrameRate(frames: 50), policy: .cap, expected: FrameRate(frames: 50), rule: "frame-rate.cap"),
        RateCase(source: FrameRate(frames: 120000, seconds: 1001), target: FrameRate(frames: 60), policy: .cap, expected: FrameRate(frames: 60000, seconds: 1001), rule: "frame-rate.cap-ntsc"),
        RateCase(source: FrameRate(frames: 30000, seconds: 1001), target: FrameRate(frames: 30), policy: .cap, expected: FrameRate(frames: 30000, seconds: 1001), rule: "frame-rate.cap-keep"),
        RateCase(source: FrameRate(frames: 24), target: FrameRate(frames: 30), policy: .exact, expected: FrameRate(frames: 30), rule: "frame-rate.exact"),
        RateCase(source: FrameRate(frames: 50), target: FrameRate(frames: 30), policy: .divisor, expected: FrameRate(frames: 25), rule: "frame-rate.divisor"),
        RateCase(source: FrameRate(frames: 120), target: FrameRate(frames: 30), policy: .divisor, expected: FrameRate(frames: 30), rule: "frame-rate.divisor"),
        RateCase(source: FrameRate(frames: 60000, seconds: 1001), target: FrameRate(frames: 30), policy: .divisor, expected: FrameRate(frames: 30000, seconds: 1001), rule: "frame-rate.divisor"),
        RateCase(source: FrameRate(frames: 240), target: FrameRate(frames: 25), policy: .divisor, expected: FrameRate(frames: 24), rule: "frame-rate.divisor"),
    ])
    func frameRate(_ c: RateCase) throws {
        let r = try Self.assistant.video(source: Self.video(1280, 720, fps: c.source),
                                         settings: VideoSettings(frameRate: .rate(c.target), frameRatePolicy: c.policy))
        #expect(r.frameRate == c.expected)
        #expect(r.decision("frame-rate")?.rule == c.rule)
    }

    @Test("no target keeps the source's timing")
    func sourceTiming() throws {
        let r = try Self.assistant.video(source: Self.video(1280, 720), settings: VideoSettings())
        #expect(r.frameRate == nil)
        #expect(r.decision("frame-rate")?.rule == "frame-rate.default-source")
        #expect(r.decision("codec")?.rule == "codec.default")
        #expect(r.encoderName == "libx264")
    }

    @Test("pixel format: 10-bit kept for HEVC, 8-bit for H.264; an unsupported one is refused")
    func pixelFormat() throws {
        let hevc = try Self.assistant.video(source: Self.video(1920, 1080, bitDepth: 10), settings: VideoSettings(codec: .hevc))
        #expect(hevc.pixelFormat == "yuv420p10le")
        #expect(hevc.decision("pixel-format")?.rule == "pixel-format.keep-10-bit")
        #expect(hevc.profile == "main10")
        let avc = try Self.assistant.video(source: Self.video(1920, 1080, bitDepth: 10), settings: VideoSettings(codec: .h264))
        #expect(avc.pixelFormat == "yuv420p")
        #expect(avc.decision("pixel-format")?.rule == "pixel-format.h264-8-bit")
        #expect(avc.profile == "high")
        let plain = try Self.assistant.video(source: Self.video(1920, 1080), settings: VideoSettings(codec: .hevc))
        #expect(plain.pixelFormat == "yuv420p" && plain.profile == "main")
        #expect(throws: MediaError(.invalidSettings, "pixel format 'yuv444p' is not supported by libx265 (it takes yuv420p, yuv420p10le)", setting: "pixel-format")) {
            try Self.assistant.video(source: Self.video(1920, 1080), settings: VideoSettings(codec: .hevc, pixelFormat: "yuv444p"))
        }
    }

    @Test("GOP of about 2 s, quality default, level from size × rate", arguments: [
        (1920, 1080, FrameRate(frames: 30), VideoCodec.h264, 60, "4"),
        (1920, 1080, FrameRate(frames: 60), VideoCodec.h264, 120, "4.2"),
        (1280, 720, FrameRate(frames: 30000, seconds: 1001), VideoCodec.h264, 60, "3.1"),
        (3840, 2160, FrameRate(frames: 30), VideoCodec.h264, 60, "5.1"),
        (1920, 1080, FrameRate(frames: 30), VideoCodec.hevc, 60, "4"),
        (3840, 2160, FrameRate(frames: 60), VideoCodec.hevc, 120, "5.1"),
    ])
    func gopAndLevel(_ w: Int, _ h: Int, _ rate: FrameRate, _ codec: VideoCodec, _ gop: Int, _ level: String) throws {
        let r = try Self.assistant.video(source: Self.video(w, h, fps: rate), settings: VideoSettings(codec: codec, frameRate: .rate(rate), frameRatePolicy: .exact))
        #expect(r.gopFrames == gop)
        #expect(r.decision("gop")?.rule == "gop.two-seconds")
        #expect(r.level == level)
        #expect(r.decision("level")?.rule == "level.from-size-and-rate")
        #expect(r.quality == (codec == .h264 ? 23 : 28))
        #expect(r.decision("quality")?.rule == "quality.default")
    }

    @Test("bitrate and explicit GOP are taken as asked")
    func explicit() throws {
        let r = try Self.assistant.video(source: Self.video(1920, 1080), settings: VideoSettings(bitrate: 4_000_000, gop: .duration(MediaTime(seconds: 1))))
        #expect(r.bitrate == 4_000_000 && r.quality == nil)
        #expect(r.gopFrames == 30)
        #expect(r.decision("gop")?.rule == "settings")
    }

    struct AudioCase: Sendable {
        let source: FormatDescription
        let settings: AudioSettings
        let rate: Int, channels: Int, bitrate: Int
        let rules: [String: String]
    }

    @Test("audio: sample rate, channels, layout, bitrate per channel", arguments: [
        AudioCase(source: audio(48000, 2), settings: AudioSettings(), rate: 48000, channels: 2, bitrate: 128_000,
                  rules: ["codec": "audio-codec.default", "sample-rate": "sample-rate.kept", "channels": "channels.kept", "bitrate": "audio-bitrate.per-channel"]),
        AudioCase(source: audio(44100, 1), settings: AudioSettings(), rate: 44100, channels: 1, bitrate: 64_000,
                  rules: ["sample-rate": "sample-rate.kept", "channels": "channels.kept", "channel-layout": "channel-layout.default"]),
        AudioCase(source: audio(96000, 6), settings: AudioSettings(), rate: 48000, channels: 2, bitrate: 128_000,
                  rules: ["sample-rate": "sample-rate.lowered", "channels": "channels.downmix"]),
        AudioCase(source: audio(22050, 6), settings: AudioSettings(channels: 6), rate: 22050, channels: 6, bitrate: 320_000,
                  rules: ["sample-rate": "sample-rate.kept", "channels": "channels.kept"]),
        AudioCase(source: audio(48000, 2), settings: AudioSettings(bitrate: 96_000, sampleRate: 44100), rate: 44100, channels: 2, bitrate: 96_000,
                  rules: ["sample-rate": "settings", "bitrate": "settings"]),
    ])
    func audioRules(_ c: AudioCase) throws {
        let r = try Self.assistant.audio(source: c.source, settings: c.settings)
        #expect(r.sampleRate == c.rate && r.channels == c.channels && r.bitrate == c.bitrate)
        for (setting, rule) in c.rules { #expect(r.decision(setting)?.rule == rule, "\(setting)") }
        #expect(r.channelLayout == (c.channels == 1 ? "mono" : c.channels == 2 ? "stereo" : "5.1"))
    }
}
