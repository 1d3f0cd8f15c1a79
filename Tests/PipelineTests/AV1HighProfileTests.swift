import Foundation
@testable import Pipeline
import Recipe
import Testing

/// AV1's High profile: 4:4:4, which libaom codes and SVT-AV1 1.4 does not. A 4:4:4 source (or a
/// 4:4:4 `pixel-format`) to AV1 is made by libaom, and the plan says why; the stream is High
/// profile in the 4:4:4 format, every source frame once at its time.
@Suite("AV1 High profile: 4:4:4 by libaom")
struct AV1HighProfileTests {
    static let rate = FrameRate(frames: 25)
    static let why = "the output is yuv444p (AV1 High profile), which SVT-AV1 (libsvtav1) does not code under FFmpeg 5.1: libaom, the AV1 encoder that does"

    /// 10 frame-stamped pictures at 25 fps in `pixelFormat` (H.264 by x264).
    static func source(_ dir: Scratch, _ pixelFormat: String) throws -> String {
        let path = dir.file("src-\(pixelFormat).mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: rate)
        v.pixelFormat = pixelFormat
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(path, video: v, frames: 10)
        return path
    }

    /// Converts the source's video to AV1 with `settings` (libaom's fastest speed where it is
    /// libaom's: the machine is shared); the video lane's settings.
    static func convert(_ src: String, _ out: String, _ settings: VideoSettings) throws -> ResolvedVideoSettings? {
        let plan = try Planner.plan(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .video(settings))]))
        guard case .video(let v) = try #require(plan.lanes.first).kind else { Issue.record("not encoded"); return nil }
        try ExportSession(plan: plan).run()
        return v
    }

    static func checkStream(_ out: String, profile: String, pixelFormat: String) throws {
        let stream = try #require(try FFprobe.stream(out, "v:0", "codec_name,profile,pix_fmt,width,height"))
        #expect(stream["codec_name"] == "av1" && stream["profile"] == profile && stream["pix_fmt"] == pixelFormat, "\(stream)")
        #expect(try FFprobe.frameCount(out, "v:0") == 10)
        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<10))
        #expect(stamps.map(\.pts) == frameTimes(10, rate: rate))
    }

    @Test("a 4:4:4 source: libaom-av1 (plan says why), profile High, yuv444p, every stamped frame once at its time")
    func fromSource() throws {
        let dir = Scratch()
        let src = try Self.source(dir, "yuv444p"), out = dir.file("out.mkv")
        let v = try #require(try Self.convert(src, out, VideoSettings(codec: .av1, codecOptions: ["cpu-used": "8"])))
        #expect(v.encoderName == "libaom-av1" && v.profile == "high" && v.pixelFormat == "yuv444p")
        #expect(v.decision("encoder").map { "\($0.rule) \($0.reason)" } == "encoder.pixel-format \(Self.why)")
        #expect(v.decision("profile").map { "\($0.value) \($0.rule)" } == "high profile.from-pixel-format")
        try Self.checkStream(out, profile: "High", pixelFormat: "yuv444p")
    }

    @Test("pixel-format yuv444p asked of a 4:2:0 source: libaom, High; a 4:2:0 source without one stays SVT-AV1 Main")
    func asked() throws {
        let dir = Scratch()
        let src = try Self.source(dir, "yuv420p"), out = dir.file("asked.mp4")
        let v = try #require(try Self.convert(src, out, VideoSettings(codec: .av1, pixelFormat: "yuv444p", codecOptions: ["cpu-used": "8"])))
        #expect(v.encoderName == "libaom-av1" && v.profile == "high")
        #expect(v.decision("encoder")?.reason == Self.why)
        try Self.checkStream(out, profile: "High", pixelFormat: "yuv444p")

        let plain = try SettingsAssistant.system.video(source: SettingsAssistantTests.video(160, 120), settings: VideoSettings(codec: .av1))
        #expect(plain.encoderName == "libsvtav1" && plain.profile == "main" && plain.pixelFormat == "yuv420p")
        #expect(plain.decision("encoder")?.rule == "encoder.preferred")
    }

    @Test("a 10-bit 4:4:4 source: yuv444p10le in High (the assistant alone, as the plan says it)")
    func tenBit() throws {
        var deep = SettingsAssistantTests.video(640, 360, bitDepth: 10)
        deep.pixelFormat = "yuv444p10le"
        let r = try SettingsAssistant.system.video(source: deep, settings: VideoSettings(codec: .av1))
        #expect(r.encoderName == "libaom-av1" && r.pixelFormat == "yuv444p10le" && r.profile == "high")
        #expect(r.decision("encoder")?.reason == Self.why.replacingOccurrences(of: "yuv444p ", with: "yuv444p10le "))
        #expect(r.decision("pixel-format").map { "\($0.value) \($0.rule)" } == "yuv444p10le pixel-format.keep-chroma")
    }
}
