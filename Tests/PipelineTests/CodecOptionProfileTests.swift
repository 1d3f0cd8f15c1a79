import Pipeline
import Recipe
import Testing

/// `profile` and `level` given among x264's codec-options are what the encoder gets: the plan
/// shows them as asked, not the assistant's own choice that the encoder never sees.
@Suite("Settings assistant: profile and level among codec-options")
struct CodecOptionProfileTests {
    static var source: FormatDescription {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        (f.width, f.height, f.pixelFormat, f.bitDepth) = (320, 240, "yuv420p", 8)
        f.averageFrameRate = FrameRate(frames: 25)
        return f
    }

    @Test("codec-options { profile: baseline, level: \"3\" } is the plan's profile and level, as asked")
    func asked() throws {
        let v = try SettingsAssistant.system.video(source: Self.source,
                                                   settings: VideoSettings(codec: .h264, codecOptions: ["profile": "baseline", "level": "3"]))
        #expect(v.profile == "baseline")
        #expect(v.decision("profile")?.rule == "settings")
        #expect(v.level == "3")
        #expect(v.decision("level")?.rule == "settings")
    }

    @Test("a codec-options level the codec does not have is refused like 'level:'")
    func badLevel() {
        #expect(throws: MediaError.self) {
            try SettingsAssistant.system.video(source: Self.source, settings: VideoSettings(codec: .h264, codecOptions: ["level": "41"]))
        }
    }
}
