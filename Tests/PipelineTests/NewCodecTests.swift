import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Codecs added as rows of the codec table (issue 25): each converts a frame-stamped source
/// into the containers that hold it, with the row's defaults, and refuses a quality off its scale.
@Suite("New video codecs from the table")
struct NewCodecTests {
    /// (codec, container, pixel format asked (nil: the assistant's), ffprobe's profile, pix_fmt).
    static let conversions: [(VideoCodec, String, String?, String, String)] = [
        (.av1, "mkv", nil, "Main", "yuv420p"),
        (.av1, "mp4", "yuv420p10le", "Main", "yuv420p10le"),
    ]

    @Test("a frame-stamped source converts: codec, profile, pixel format, frame count, duration and the same source frames",
          arguments: conversions.indices)
    func converts(_ i: Int) throws {
        let (codec, container, pixelFormat, profile, pixFmt) = Self.conversions[i]
        let dir = Scratch()
        let src = dir.file("src.mp4"), out = dir.file("out.\(container)")
        let rate = FrameRate(frames: 25)
        try Media.make(src, video: GeneratedVideoFormat(width: 64, height: 64, frameRate: rate), frames: 6)
        let row = try #require(VideoFamily.of(codec))
        // The fastest speed: the machine is shared.
        let speed = row.encoder(where: CodecSupport.canEncode).speed
        let settings = VideoSettings(codec: codec, pixelFormat: pixelFormat, codecOptions: speed.map { [$0.option: $0.names[0]] } ?? [:])
        try runConversion(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .video(settings))]))
        let stream = try #require(try FFprobe.stream(out, "v:0", "codec_name,profile,pix_fmt,width,height"))
        #expect(stream["codec_name"] == row.streamCodec)
        #expect(stream["profile"] == profile)
        #expect(stream["pix_fmt"] == pixFmt)
        #expect(stream["width"] == "64" && stream["height"] == "64")
        #expect(try FFprobe.frameCount(out, "v:0") == 6)
        let format = try #require(try FFprobe.format(out))
        #expect(format["duration"] == "0.240000")
        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<6))
        #expect(stamps.map(\.pts) == frameTimes(6, rate: rate))
    }

    @Test("AV1: the row's default speed and quality reach the encoder, the plan says them; 10-bit stays 10-bit in Main")
    func av1Assistant() throws {
        let r = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(1920, 1080), settings: VideoSettings(codec: .av1))
        #expect(r.encoderName == "libsvtav1")
        let options = Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(r))
        #expect(options["preset"] == "8" && options["crf"] == "35")
        #expect(r.decision("speed").map { "\($0.value) \($0.rule) \($0.reason)" } == "8 speed.default SVT-AV1's preset 8: its balance of speed and size")
        #expect(r.decision("quality")?.reason == "libsvtav1's default constant quality (CRF)")
        #expect(r.level == "4" && r.encoderLevel == nil)
        #expect(r.decision("level")?.reason == "the lowest level that allows 1920x1080 at 30 fps (SVT-AV1 works it out and signals it itself)")
        var deep = SettingsAssistantTests.video(640, 360)
        (deep.pixelFormat, deep.bitDepth) = ("yuv422p10le", 10)
        let d = try SettingsAssistant.system.video(source: deep, settings: VideoSettings(codec: .av1, codecOptions: ["preset": "12"]))
        #expect(d.pixelFormat == "yuv420p10le" && d.profile == "main")
        #expect(Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(d))["preset"] == "12")
        #expect(d.decision("speed").map { "\($0.value) \($0.rule)" } == "12 settings")
        // Preset 13 below SVT-AV1's 480p class runs as 12: the plan says 12, the encoder is told 12.
        for (w, h, told) in [(654, 480, "12"), (656, 480, "13"), (1280, 720, "13")] {
            let r = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(w, h), settings: VideoSettings(codec: .av1, codecOptions: ["preset": "13"]))
            #expect(Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(r))["preset"] == told, "\(w)x\(h)")
            #expect(r.decision("speed").map { "\($0.value) \($0.rule) \($0.reason)" } == (told == "12"
                    ? "12 speed.small-picture preset 13 asked: SVT-AV1 runs 12, its fastest for 360p and lower pictures (654x480)" : "13 settings as asked (preset)"))
        }
        // An asked level is checked against the picture, never told.
        let asked = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(1920, 1080), settings: VideoSettings(codec: .av1, level: "5.1"))
        #expect(asked.encoderLevel == nil && !VideoSink.encoderOptions(asked).contains { $0.1.contains("level") })
        #expect(asked.decision("level")?.reason == "as asked: the picture fits it; SVT-AV1 is not told it and signals the level it codes itself")
        #expect(throws: MediaError(.invalidSettings, "level 3.1 does not allow 1920x1080 at 30 fps: the lowest that does is 4", setting: "level")) {
            try SettingsAssistant.system.video(source: SettingsAssistantTests.video(1920, 1080), settings: VideoSettings(codec: .av1, level: "3.1"))
        }
    }

    @Test("VP9: constant quality with bitrate 0, cpu-used 4, row-mt on, tile columns by the width; 10-bit 4:2:2 keeps both in profile 3")
    func vp9Assistant() throws {
        for (w, h, log2, columns) in [(320, 240, "0", "1"), (640, 360, "1", "2"), (1920, 1080, "2", "4"), (3840, 2160, "3", "8")] {
            let r = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(w, h), settings: VideoSettings(codec: .vp9))
            #expect(r.encoderName == "libvpx-vp9" && r.profile == "0" && r.pixelFormat == "yuv420p")
            let options = Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(r))
            #expect(options == ["crf": "31", "b": "0", "cpu-used": "4", "row-mt": "1", "tile-columns": log2], "\(w)x\(h)")
            #expect(r.decision("tiles").map { "\($0.value) \($0.rule) \($0.reason)" }
                    == "\(columns) columns tiles.by-width tile-columns \(log2): the most columns at least 256 pixels wide that \(w) pixels hold, coded side by side")
            #expect(r.decision("row-mt").map { "\($0.value) \($0.rule)" } == "1 row-mt.vp9")
            #expect(r.decision("speed").map { "\($0.value) \($0.rule)" } == "4 speed.default")
            #expect(r.gopFrames == 60)
        }
        var deep = SettingsAssistantTests.video(640, 360)
        (deep.pixelFormat, deep.bitDepth) = ("yuv422p10le", 10)
        let d = try SettingsAssistant.system.video(source: deep, settings: VideoSettings(codec: .vp9, bitrate: 2_000_000, codecOptions: ["tile-columns": "0"]))
        #expect(d.pixelFormat == "yuv422p10le" && d.profile == "3")
        // A bit rate asked: no constant quality, so no bitrate 0; an asked tile count is kept.
        #expect(Dictionary(uniqueKeysWithValues: VideoSink.encoderOptions(d)) == ["cpu-used": "4", "row-mt": "1", "tile-columns": "0"])
    }

    @Test("a quality off the codec's own scale is refused naming the scale; on it, taken",
          arguments: [(VideoCodec.h264, 52.0, "H.264", 51), (.hevc, 60, "HEVC", 51), (.av1, 63.5, "AV1", 63), (.vp9, 64, "VP9", 63)])
    func qualityScale(_ codec: VideoCodec, _ q: Double, _ name: String, _ top: Int) throws {
        let source = SettingsAssistantTests.video(320, 240)
        #expect(throws: MediaError(.invalidSettings, "'quality' for \(name) must be from 0 (best) to \(top) (smallest), not \(formatNumber(q))", setting: "quality")) {
            try SettingsAssistant.system.video(source: source, settings: VideoSettings(codec: codec, quality: q))
        }
        #expect(try SettingsAssistant.system.video(source: source, settings: VideoSettings(codec: codec, quality: Double(top))).quality == Double(top))
    }
}

/// HDR10 into the new codecs: 10-bit, the source's colour tags, and the mastering display and
/// content light level in the container (neither FFmpeg 5.1 wrapper writes them into the stream).
@Suite("HDR10 into AV1 and VP9")
struct NewCodecHDRTests {
    @Test("an HDR10 source stays HDR10: 10-bit, BT.2020/PQ tags, mastering display and content light level as ffprobe reads them",
          arguments: [(VideoCodec.av1, "mkv", ["preset": "12"]), (.av1, "mp4", ["preset": "12"]), (.vp9, "mkv", ["cpu-used": "8"]), (.vp9, "mp4", ["cpu-used": "8"])])
    func hdr10Kept(_ codec: VideoCodec, _ container: String, _ options: [String: String]) throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4"), out = dir.file("out.\(container)")
        try HDRMedia.make(src, transfer: "smpte2084", left: 400, right: 600, mastering: HDRMedia.mastering, light: HDRMedia.light)
        let plan = try Planner.plan(HDRTests.request(src, out, VideoSettings(codec: codec, codecOptions: options)))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.decision("hdr")?.rule == "hdr.keep-10-bit" && v.pixelFormat == "yuv420p10le")
        try ExportSession(plan: plan).run()
        let t = try HDRTests.tags(out)
        #expect(t["pix_fmt"] == "yuv420p10le" && t["color_transfer"] == "smpte2084" && t["color_primaries"] == "bt2020" && t["color_space"] == "bt2020nc", "\(t)")
        #expect(try HDRMedia.sideData(out, "stream") == HDRMedia.expectedSideData)
    }
}
