import Pipeline
import Recipe
import Testing

/// An odd-sized source is made even: the plan says so instead of "the source's size".
@Suite("Settings assistant: an odd source size is said to be rounded")
struct OddSizeDecisionTests {
    @Test("321x241 becomes 320x240 and the reason says it was rounded down to even")
    func oddSize() throws {
        var f = FormatDescription(mediaType: .video, codec: "hevc")
        (f.width, f.height, f.pixelFormat, f.bitDepth) = (321, 241, "yuv420p", 8)
        f.averageFrameRate = FrameRate(frames: 25)
        let v = try SettingsAssistant.system.video(source: f, settings: VideoSettings(codec: .h264))
        #expect((v.width, v.height) == (320, 240))
        let d = try #require(v.decision("size"))
        #expect(d.value == "320x240")
        #expect(d.rule == "size.source")
        #expect(d.reason == "the source's size (321x241) made even, as 4:2:0 needs")
    }

    @Test("an even source keeps the plain reason")
    func evenSize() throws {
        var f = FormatDescription(mediaType: .video, codec: "hevc")
        (f.width, f.height, f.pixelFormat, f.bitDepth) = (320, 240, "yuv420p", 8)
        f.averageFrameRate = FrameRate(frames: 25)
        let v = try SettingsAssistant.system.video(source: f, settings: VideoSettings(codec: .h264))
        #expect(v.decision("size")?.reason == "the source's size")
    }
}
