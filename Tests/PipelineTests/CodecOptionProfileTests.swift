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

    @Test("a codec-options level the codec does not have is refused like 'level:'; x264's '41' spelling is pointed to 4.1")
    func badLevel() throws {
        for settings in [VideoSettings(codec: .h264, codecOptions: ["level": "41"]), VideoSettings(codec: .h264, level: "41")] {
            let error = try #require(throws: MediaError.self) {
                try SettingsAssistant.system.video(source: Self.source, settings: settings)
            }
            #expect(error.message.hasPrefix("H.264 has no level '41' (did you mean '4.1'?) (it has 1, 1b, 1.1,"), "\(error.message)")
            #expect(error.setting == "level")
        }
    }
}
