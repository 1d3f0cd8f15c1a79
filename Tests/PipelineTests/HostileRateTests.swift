import Pipeline
import Recipe
import Testing

/// Frame rates a hostile file can state (up to 2^31 fps) never overflow the settings assistant's
/// 32-bit arithmetic (issue 10: no stream state ends in a trap).
@Suite("Settings assistant with absurd source rates")
struct HostileRateTests {
    static let assistant = SettingsAssistant { name in
        name == "libx264" ? EncoderCapabilities(pixelFormats: ["yuv420p"]) : nil
    }

    static func video(fps: FrameRate) -> FormatDescription {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        f.width = 64; f.height = 64; f.averageFrameRate = fps; f.pixelFormat = "yuv420p"; f.bitDepth = 8
        return f
    }

    @Test("divisor: a divisor whose product leaves Int32 keeps the target rate")
    func divisor() throws {
        // 2147483647/2 fps to 1 fps: n = 1073741824, and 2 · n does not fit in Int32.
        let r = try Self.assistant.video(source: Self.video(fps: FrameRate(frames: .max, seconds: 2)),
                                         settings: VideoSettings(codec: .h264, frameRate: .rate(FrameRate(frames: 1)), frameRatePolicy: .divisor))
        #expect(r.frameRate == FrameRate(frames: 1))
        #expect(r.decision("frame-rate")?.rule == "frame-rate.divisor")
    }

    @Test("GOP: two seconds or an asked duration at 2^31 fps is clamped to the encoder's 32-bit field", arguments: [
        nil, GOPSetting.duration(MediaTime(seconds: 3600)),
    ])
    func gop(setting: GOPSetting?) throws {
        let r = try Self.assistant.video(source: Self.video(fps: FrameRate(frames: .max)),
                                         settings: VideoSettings(codec: .h264, frameRate: .source, gop: setting))
        #expect(r.gopFrames == Int(Int32.max))
    }
}
