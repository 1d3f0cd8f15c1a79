@testable import Pipeline
import Recipe
import Testing

/// Which level the encoder is told. x265 told a level keeps a quality-coded stream within it by
/// turning on rate capping (VBV at the level's maximum): slower (bench (i): 7 % more CPU), other
/// and unrepeatable bits. So x265 gets only an asked level and signals the lowest one itself;
/// x264 is told the derived level (it only signals it).
@Suite("Encoder level")
struct EncoderLevelTests {
    static func resolve(_ settings: VideoSettings) throws -> ResolvedVideoSettings {
        try SettingsAssistantTests.assistant.video(source: SettingsAssistantTests.video(1920, 1080), settings: settings)
    }

    static func option(_ r: ResolvedVideoSettings, _ key: String) -> String? {
        VideoSink.encoderOptions(r).first { $0.0 == key }?.1
    }

    @Test("HEVC without a level: the plan says the lowest level, x265 is not told it")
    func hevcDerived() throws {
        let r = try Self.resolve(VideoSettings(codec: .hevc))
        #expect(r.level == "4")
        #expect(r.encoderLevel == nil)
        #expect(r.decision("level")?.reason == "the lowest level that allows 1920x1080 at 30 fps (x265 works it out and signals it itself)")
        #expect(Self.option(r, "x265-params") == "log-level=error")
    }

    @Test("HEVC with an asked level: x265 is told it, and the plan says what that costs a quality-coded stream")
    func hevcAsked() throws {
        let r = try Self.resolve(VideoSettings(codec: .hevc, level: "5.1"))
        #expect(r.encoderLevel == "5.1")
        #expect(Self.option(r, "x265-params") == "log-level=error:level-idc=5.1")
        #expect(r.decision("level")?.reason == "as asked: x265 keeps the quality-coded stream within it by capping its rate at the level's maximum (slower, and not the same bits run to run)")
        let b = try Self.resolve(VideoSettings(codec: .hevc, bitrate: 4_000_000, level: "5.1"))
        #expect(b.decision("level")?.reason == "as asked")
        #expect(Self.option(b, "x265-params") == "log-level=error:level-idc=5.1")
    }

    @Test("H.264: x264 is told the derived level and an asked one")
    func h264() throws {
        let r = try Self.resolve(VideoSettings(codec: .h264))
        #expect(r.level == "4" && r.encoderLevel == "4")
        #expect(Self.option(r, "level") == "4")
        let a = try Self.resolve(VideoSettings(codec: .h264, level: "4.2"))
        #expect(Self.option(a, "level") == "4.2")
    }

    @Test("HEVC with level-idc among its x265-params: that is the asked level, shown and checked as one, not told twice")
    func hevcAskedInParams() throws {
        let r = try Self.resolve(VideoSettings(codec: .hevc, codecOptions: ["x265-params": "aq-mode=2:level-idc=5.1"]))
        #expect(r.level == "5.1" && r.encoderLevel == "5.1")
        #expect(r.decision("level")?.rule == "settings")
        #expect(Self.option(r, "x265-params") == "aq-mode=2:level-idc=5.1:log-level=error")
        #expect(throws: MediaError.self) { try Self.resolve(VideoSettings(codec: .hevc, codecOptions: ["x265-params": "level-idc=1"])) }
    }
}
