import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A keyframe grid (`KeyframeGrid`): every video track starts a closed GOP with an IDR at the
/// first picture at or after each grid instant, whatever its GOP length, in every output of one
/// read alike.
@Suite("Keyframes on a grid: an IDR at the first picture at or after each instant, in every output alike")
struct KeyframeGridTests {
    /// The request for one output of a frame-stamped source, with the grid.
    static func request(_ src: String, _ out: String, _ video: VideoSettings, grid: KeyframeGrid?) -> ConversionRequest {
        var r = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .video(video))])
        r.keyframeGrid = grid
        return r
    }

    /// Settings whose own GOP would put no keyframe on the grid: 250 pictures.
    static func settings(_ codec: VideoCodec, width: Int, options: [String: String] = [:]) -> VideoSettings {
        let speed = codec == .vp9 ? ["cpu-used": "8"] : ["preset": "ultrafast"]
        return VideoSettings(codec: codec, width: width, gop: .frames(250), codecOptions: speed.merging(options) { _, o in o })
    }

    /// The source frames (stamps) whose pictures are keyframe packets, after checking that each
    /// keyframe packet's pts is its picture's and, where `grid` is given, that the packets at
    /// those frames open closed GOPs.
    static func keyframeStamps(_ file: String, codec: VideoCodec) throws -> [Int: KeyframePacket] {
        let pictures = try Media.stamps(file)
        var out: [Int: KeyframePacket] = [:]
        for k in try KeyframePacket.read(file, codec: codec) {
            let picture = try #require(pictures.first { $0.pts == k.pts }, "\(file): no picture at the keyframe's \(k.pts.secondsDescription)")
            out[try #require(picture.stamp)] = k
        }
        return out
    }

    @Test("29.97 fps, every 2 s, three outputs (H.264, HEVC, VP9): IDRs at frames 0, 60, 120, 180 — 2 s falls between frames 59 (1.968 s) and 60 (2.002 s), and lands on 60, the first at or after it — the same frames in each output, pts exactly the frames'")
    func ntscThreeOutputs() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        let rate = FrameRate(frames: 30000, seconds: 1001)
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: rate), frames: 200)
        let grid = KeyframeGrid(every: MediaTime(seconds: 2))
        let outputs: [(file: String, codec: VideoCodec, width: Int)] = [("a.mp4", .h264, 320), ("b.mp4", .hevc, 256), ("c.webm", .vp9, 192)]
        let plans = try outputs.map { o in try Planner.plan(Self.request(src, dir.file(o.file), Self.settings(o.codec, width: o.width), grid: grid)) }
        #expect(plans.allSatisfy { $0.lanes[0].videoSettings?.decision("keyframes")?.value == "every 2.000s" })
        try ExportSession(plans: plans).runAll()
        let expected = [0, 60, 120, 180]
        for o in outputs {
            let keyframes = try Self.keyframeStamps(dir.file(o.file), codec: o.codec)
            for frame in expected {
                let k = try #require(keyframes[frame], "\(o.file): frame \(frame) is no keyframe (keyframes at \(keyframes.keys.sorted()))")
                #expect(k.pts == rate.frameDuration * Int64(frame), "\(o.file): frame \(frame)'s keyframe at \(k.pts.secondsDescription)")
                #expect(k.isIDR(codec: o.codec), "\(o.file): frame \(frame) is coded as NAL units \(k.nalTypes), not an IDR")
            }
        }
    }

    @Test("25 fps, every 1.5 s: IDRs at frames 0, 38 (1.5 s falls between 37 and 38: the first at or after it), 75 (3 s exactly), 113 (4.52 s); x264 and x265 asked for open GOPs still make IDRs, not recovery points or CRAs")
    func palBetweenFrames() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        let rate = FrameRate(frames: 25)
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: rate), frames: 130)
        let grid = KeyframeGrid(every: MediaTime(value: 3, timescale: 2))
        let outputs: [(file: String, codec: VideoCodec, options: [String: String])] = [
            ("open.mp4", .h264, ["x264-params": "open-gop=1", "forced-idr": "0"]), ("hevc.mp4", .hevc, ["x265-params": "open-gop=1"]),
        ]
        let plans = try outputs.map { o in try Planner.plan(Self.request(src, dir.file(o.file), Self.settings(o.codec, width: 320, options: o.options), grid: grid)) }
        try ExportSession(plans: plans).runAll()
        for o in outputs {
            let keyframes = try Self.keyframeStamps(dir.file(o.file), codec: o.codec)
            for (frame, seconds) in [(0, MediaTime.zero), (38, MediaTime(value: 152, timescale: 100)), (75, MediaTime(seconds: 3)), (113, MediaTime(value: 452, timescale: 100))] {
                let k = try #require(keyframes[frame], "\(o.file): frame \(frame) is no keyframe (keyframes at \(keyframes.keys.sorted()))")
                #expect(k.pts == seconds, "\(o.file): frame \(frame)'s keyframe at \(k.pts.secondsDescription)")
                #expect(k.isIDR(codec: o.codec), "\(o.file): frame \(frame) is coded as NAL units \(k.nalTypes), not an IDR")
            }
            // Frame 37 (1.48 s), the nearer to 1.5 s by time shown, is not where the GOP starts.
            #expect(keyframes[37] == nil, "\(o.file)")
        }
    }

    @Test("without a grid the same settings put no keyframe on it: the grid, not the GOP, places them")
    func withoutGrid() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25)), frames: 130)
        try runConversion(Self.request(src, dir.file("plain.mp4"), Self.settings(.h264, width: 320), grid: nil))
        let keyframes = try Self.keyframeStamps(dir.file("plain.mp4"), codec: .h264)
        #expect(keyframes[38] == nil && keyframes[75] == nil && keyframes[113] == nil, "keyframes at \(keyframes.keys.sorted())")
    }

    @Test("SVT-AV1 cannot be told where keyframes go under FFmpeg 5.1: refused with the reason, naming the setting; a copied video track cannot move its keyframes")
    func refusals() throws {
        let grid = KeyframeGrid(every: MediaTime(seconds: 2))
        var source = FormatDescription(mediaType: .video, codec: "h264")
        (source.width, source.height, source.pixelFormat, source.bitDepth) = (320, 240, "yuv420p", 8)
        source.averageFrameRate = FrameRate(frames: 25)
        let assistant = SettingsAssistant(capabilities: { _ in EncoderCapabilities() })
        #expect(throws: MediaError(.invalidSettings, "SVT-AV1 cannot be told where its keyframes go under FFmpeg 5.1 (its wrapper ignores a forced keyframe): use codec h264, hevc or vp9",
                                   setting: "keyframes")) {
            try assistant.video(source: source, settings: VideoSettings(codec: .av1), keyframes: grid)
        }
        let intra = try assistant.video(source: source, settings: VideoSettings(codec: .prores), keyframes: grid)
        #expect(intra.decision("keyframes")?.reason == "ProRes codes every picture on its own: each starts a fragment cleanly")

        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25)), frames: 10)
        var copy = ConversionRequest(source: src, output: dir.file("copy.mp4"), tracks: [TrackRequest(.type(.video, 0), .passthrough)])
        copy.keyframeGrid = grid
        #expect(throws: MediaError(.invalidSettings, "a copied video track keeps the source's keyframes, which cannot be moved onto the output's fragment starts: reencode it",
                                   file: src, track: 0, setting: "keyframes")) { try Planner.plan(copy) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("copy.mp4")))
    }
}
