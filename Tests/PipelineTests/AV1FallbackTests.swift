import Foundation
@testable import Pipeline
import Recipe
import Testing

/// AV1 where this FFmpeg has no libsvtav1: the row's next encoder, libaom-av1, with its own
/// speed option, constant quality (bitrate 0), row-mt and usage; the plan says which encoder and
/// why. The machine has both, so the assistant is told libsvtav1 is missing
/// (`SettingsAssistant.missing`), as the build without it would say.
@Suite("AV1 by libaom where SVT-AV1 is missing")
struct AV1FallbackTests {
    static let withoutSVT = SettingsAssistant.missing(["libsvtav1"])

    @Test("the plan names libaom-av1 and why; its options are libaom's: cpu-used 6, crf with bitrate 0, row-mt, usage good")
    func assistant() throws {
        let r = try Self.withoutSVT.video(source: SettingsAssistantTests.video(1920, 1080), settings: VideoSettings(codec: .av1))
        #expect(r.encoderName == "libaom-av1")
        #expect(r.decision("encoder").map { "\($0.value) \($0.rule) \($0.reason)" }
                == "libaom-av1 encoder.fallback this FFmpeg has no libsvtav1 (SVT-AV1): libaom, AV1's next choice")
        let options = Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(r))
        #expect(options == ["cpu-used": "6", "crf": "35", "b": "0", "row-mt": "1", "usage": "good"])
        #expect(r.decision("speed").map { "\($0.value) \($0.rule) \($0.reason)" } == "6 speed.default libaom's cpu-used 6: its balance of speed and size")
        #expect(r.decision("quality")?.reason == "libaom-av1's default constant quality (CRF)")
        #expect(r.decision("row-mt").map { "\($0.value) \($0.rule)" } == "1 row-mt.av1")
        #expect(r.decision("usage").map { "\($0.value) \($0.rule) \($0.reason)" } == "good usage.av1 libaom's good-quality mode (not realtime's or all-intra's)")
        #expect(r.profile == "main" && r.pixelFormat == "yuv420p" && r.level == "4" && r.encoderLevel == nil)
        #expect(r.decision("level")?.reason == "the lowest level that allows 1920x1080 at 30 fps (libaom works it out and signals it itself)")

        // With SVT-AV1 there, the plan says it is the first choice, and SVT-AV1's options go.
        let svt = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(1920, 1080), settings: VideoSettings(codec: .av1))
        #expect(svt.decision("encoder").map { "\($0.value) \($0.rule) \($0.reason)" } == "libsvtav1 encoder.preferred SVT-AV1, AV1's first choice")
        #expect(Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(svt)) == ["preset": "8", "crf": "35"])
        // A family of one encoder says nothing about it (as before the table had fallbacks).
        #expect(try SettingsAssistant.system.video(source: SettingsAssistantTests.video(320, 240), settings: VideoSettings(codec: .vp9)).decision("encoder") == nil)
    }

    @Test("SVT-AV1's own facts are not libaom's: a 62x64 picture is taken; SVT-AV1's preset is no option of libaom's; a cpu-used it does not have is refused with its names, an aom-params entry it cannot find at that option")
    func svtFactsStayWithSVT() throws {
        let small = try Self.withoutSVT.video(source: SettingsAssistantTests.video(62, 64), settings: VideoSettings(codec: .av1, codecOptions: ["cpu-used": "8"]))
        #expect(small.encoderName == "libaom-av1" && small.width == 62 && small.height == 64)
        #expect(small.decision("speed").map { "\($0.value) \($0.rule)" } == "8 settings")
        #expect(throws: MediaError(.unsupported, "SVT-AV1 (codec av1) takes pictures from 64x64 to 16384x8704, not 62x64")) {
            try SettingsAssistant.system.video(source: SettingsAssistantTests.video(62, 64), settings: VideoSettings(codec: .av1))
        }
        // SVT-AV1's preset is not libaom's option: refused at the recipe's option (no name of
        // libaom's is near enough to suggest).
        let preset = try Self.withoutSVT.video(source: SettingsAssistantTests.video(320, 240), settings: VideoSettings(codec: .av1, codecOptions: ["preset": "8"]))
        #expect(throws: MediaError(.invalidSettings, "the libaom-av1 encoder has no option 'preset'", setting: "codec-options.preset")) {
            _ = try Encoder(EncoderConfiguration.standIn(preset))
        }
        let fast = try Self.withoutSVT.video(source: SettingsAssistantTests.video(320, 240), settings: VideoSettings(codec: .av1, codecOptions: ["cpu-used": "9"]))
        #expect(throws: MediaError(.invalidSettings, "the libaom-av1 encoder has no cpu-used '9' (did you mean '8'?) (it has 8, 7, 6, 5, 4, 3, 2, 1, 0)", setting: "codec-options.cpu-used")) {
            _ = try Encoder(EncoderConfiguration.standIn(fast))
        }
        // libaom's parameter string: an entry it cannot find fails the open, blamed on the string,
        // with libaom's own words.
        let params = try Self.withoutSVT.video(source: SettingsAssistantTests.video(320, 240),
                                               settings: VideoSettings(codec: .av1, codecOptions: ["aom-params": "tile-colums=1"]))
        do {
            _ = try Encoder(EncoderConfiguration.standIn(params))
            Issue.record("aom-params 'tile-colums=1' taken")
        } catch {
            #expect(error.kind == .invalidSettings && error.setting == "codec-options.aom-params")
            #expect(error.description == "the libaom-av1 encoder refuses aom-params 'tile-colums=1' (ffmpeg: [libaom-av1]   Additional information: Cannot find aom option tile-colums)")
        }
    }

    @Test("a 4:2:2 10-bit source is made 4:2:0 10-bit for libaom too: AV1's Main profile is the row's")
    func chroma() throws {
        var deep = SettingsAssistantTests.video(640, 360)
        (deep.pixelFormat, deep.bitDepth) = ("yuv422p10le", 10)
        let r = try Self.withoutSVT.video(source: deep, settings: VideoSettings(codec: .av1))
        #expect(r.pixelFormat == "yuv420p10le" && r.profile == "main")
        #expect(r.decision("pixel-format").map { "\($0.value) \($0.rule) \($0.reason)" }
                == "yuv420p10le pixel-format.av1-420-only the source is 4:2:2, but AV1's profiles here (main, high) carry 4:2:0 or 4:4:4 only: made 4:2:0")
        let svt = try SettingsAssistant.system.video(source: deep, settings: VideoSettings(codec: .av1))
        #expect(svt.decision("pixel-format")?.reason == "the source is 4:2:2, but this libsvtav1 does not take yuv422p10le: made 4:2:0")
    }

    @Test("converted by libaom-av1: AV1 Main, every source frame once at its time, and the very packets ffmpeg's libaom-av1 makes with the same settings (not SVT-AV1's)")
    func converts() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4"), ours = dir.file("ours.mkv"), aom = dir.file("aom.mkv"), svt = dir.file("svt.mkv")
        let rate = FrameRate(frames: 25)
        try Media.make(src, video: GeneratedVideoFormat(width: 160, height: 120, frameRate: rate), frames: 25)
        // The fastest speed: the machine is shared.
        let settings = VideoSettings(codec: .av1, codecOptions: ["cpu-used": "8"])
        let request = ConversionRequest(source: src, output: ours, tracks: [TrackRequest(.type(.video, 0), .video(settings))])
        let plan = try Planner.plan(request, assistant: Self.withoutSVT)
        guard case .video(let v) = try #require(plan.lanes.first).kind else { Issue.record("not encoded"); return }
        #expect(v.encoderName == "libaom-av1" && v.decision("encoder")?.rule == "encoder.fallback")
        _ = try ExportSession(plan: plan).run()

        let stream = try #require(try FFprobe.stream(ours, "v:0", "codec_name,profile,pix_fmt,width,height"))
        #expect(stream["codec_name"] == "av1" && stream["profile"] == "Main" && stream["pix_fmt"] == "yuv420p")
        #expect(stream["width"] == "160" && stream["height"] == "120")
        #expect(try FFprobe.frameCount(ours, "v:0") == 25)
        let stamps = try Media.stamps(ours)
        #expect(stamps.map(\.stamp) == Array(0..<25))
        #expect(stamps.map(\.pts) == frameTimes(25, rate: rate))

        // Which library made it: libaom-av1 with these settings makes these packets, SVT-AV1 others.
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0", "-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "35", "-b:v", "0",
                                           "-row-mt", "1", "-usage", "good", "-g", "50", "-pix_fmt", "yuv420p", aom]))
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0", "-c:v", "libsvtav1", "-preset", "12", "-crf", "35", "-g", "50", "-pix_fmt", "yuv420p", svt]))
        let mine = try Self.packets(ours)
        #expect(mine.count == 25)
        #expect(mine == (try Self.packets(aom)))
        #expect(mine != (try Self.packets(svt)))
    }

    /// Each packet's size and checksum, in decode order.
    static func packets(_ file: String) throws -> [String] {
        try #require(try FFprobe.run(["-select_streams", "v:0", "-show_entries", "packet=size", "-show_data_hash", "CRC32", "-of", "csv=p=0", file]))
            .split(separator: "\n").map(String.init)
    }
}
