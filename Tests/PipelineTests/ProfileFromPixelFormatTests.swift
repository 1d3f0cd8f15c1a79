import Pipeline
import Recipe
import Testing

/// The profile the settings assistant picks when none is asked is the lowest one that can carry
/// the pixel format's bit depth and chroma: 10-bit 4:2:2 H.264 is High 4:2:2, not High 10 (which
/// the encoder then refuses with a message about a profile nobody asked for).
@Suite("Settings assistant: profile from the pixel format")
struct ProfileFromPixelFormatTests {
    @Test("each pixel format gets a profile that can carry it", arguments: [
        (VideoCodec.h264, "yuv420p", "high"), (.h264, "yuv420p10le", "high10"), (.h264, "yuv422p", "high422"),
        (.h264, "yuv422p10le", "high422"), (.h264, "yuv444p", "high444"), (.h264, "yuv444p10le", "high444"),
        (.h264, "nv12", "high"), (.h264, "nv16", "high422"),
        (.hevc, "yuv420p", "main"), (.hevc, "yuv420p10le", "main10"), (.hevc, "yuv420p12le", "main12"),
        (.hevc, "yuv422p10le", "main422-10"), (.hevc, "yuv444p", "main444-8"), (.hevc, "yuv444p10le", "main444-10"),
        (.hevc, "gbrp", "main444-8"),
    ])
    func profile(codec: VideoCodec, pixelFormat: String, expected: String) throws {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        (f.width, f.height, f.pixelFormat, f.bitDepth) = (320, 240, "yuv420p", 8)
        f.averageFrameRate = FrameRate(frames: 25)
        let v = try SettingsAssistant.system.video(source: f, settings: VideoSettings(codec: codec, pixelFormat: pixelFormat))
        #expect(v.profile == expected)
        #expect(v.decision("profile")?.rule == "profile.from-pixel-format")
    }
}
