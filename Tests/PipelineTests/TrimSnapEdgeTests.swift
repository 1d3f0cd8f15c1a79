import Foundation
import Pipeline
import Recipe
import Testing

/// Trim snapping where the frames around an end are far from the seek point or past the
/// output's last frame slot.
@Suite("Trims cut at frame boundaries: long GOPs and the last frame")
struct TrimSnapEdgeTests {
    static func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }

    static func request(_ src: String, _ out: String, start: MediaTime, duration: MediaTime,
                        video: VideoSettings = .fast(), audio: Bool = false) -> ConversionRequest {
        var tracks = [TrackRequest(.type(.video, 0), .video(video))]
        if audio { tracks.append(TrackRequest(.type(.audio, 0), .audio(AudioSettings()))) }
        var r = ConversionRequest(source: src, output: out, tracks: tracks)
        r.timeRange = TimeRange(start: start, duration: duration)
        return r
    }

    /// One sync sample, then 5000 frames at 100 fps: the frames around 45 s are more than 4096
    /// packets after the only place a seek can land.
    @Test("a trim deep into a long GOP snaps to the frames around its ends, not to wherever reading stopped")
    func longGOP() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 100))
        v.codecOptions = ["preset": "ultrafast", "g": "100000", "x264-params": "scenecut=0:keyint=infinite"]
        try Media.make(src, video: v, frames: 5000)
        let samples = try #require(try PacketScan.samples(src)[0])
        #expect(samples.filter(\.isSync).count == 1)
        // 45.004 s is nearest frame 4500, 45.5 + 0.006 s nearest frame 4551.
        let plan = try Planner.plan(Self.request(src, dir.file("out.mp4"), start: Self.ms(45_004), duration: Self.ms(502)))
        let frame = MediaTime(value: 1, timescale: 100)
        #expect(plan.timeRange == TimeRange(start: frame * 4500, end: frame * 4551))
    }

    /// With a frame-rate conversion the ends go to the output's frame slots; a start in the last
    /// half slot must not go to the video's end (an empty range: "nothing to convert").
    @Test("a frame-rate conversion keeps the last frame when the start is in its second half")
    func outputGridLastSlot() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 50))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 100)
        let out = dir.file("out.mp4")
        // 1.99 s is slot 49.75 of 25 fps: the nearest slot, 50, is the end of the 2 s video.
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(1990), duration: Self.ms(5000),
                                                 video: .fast(rate: FrameRate(frames: 25), policy: .exact)))
        let slot = MediaTime(value: 1, timescale: 25)
        #expect(plan.timeRange == TimeRange(start: slot * 49, end: slot * 50))
        try ExportSession(plan: plan).run()
        #expect(try Media.stamps(out).map(\.stamp) == [98])
    }

    /// Audio 0–4 s, video frames 1–2 s at 25 fps (Matroska: the video starts where its first
    /// frame is).
    static func videoInTheMiddle(_ dir: Scratch) throws -> String {
        let src = dir.file("src.mkv")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 25))
        v.codecOptions = ["preset": "ultrafast"]
        let source = try FrameSource(path: src, video: v, audio: GeneratedAudioFormat())
        try source.appendAudio(count: 48000) { _, _ in 0 }
        for i in 0..<25 {
            try source.appendPicture(at: MediaTime(value: Int64(25 + i), timescale: 25)) { TestPattern.draw(index: i, into: $0) }
        }
        try source.appendAudio(count: 3 * 48000) { _, _ in 0 }
        try source.finish()
        return src
    }

    struct OutsideCase: Sendable, CustomStringConvertible {
        let start: Int64, end: Int64            // ms, asked
        /// nil: as asked; k: the video's frame k.
        let startFrame: Int64?, endFrame: Int64?
        var description: String { "\(start)–\(end) ms" }
    }

    /// No frame is cut where the video has no frame: an end before the video's first frame or at
    /// or after its end stays where asked (it moved to a frame, losing the asked audio, or even
    /// the whole asked range: 0.2–0.8 s became 1.02–1.06 s). The frames are at 1.021 s + k/25
    /// (Matroska moves everything by the AAC priming).
    @Test("ends outside the video's frames stay as asked", arguments: [
        OutsideCase(start: 200, end: 800, startFrame: nil, endFrame: nil),
        OutsideCase(start: 500, end: 3500, startFrame: nil, endFrame: nil),
        OutsideCase(start: 1030, end: 3000, startFrame: 0, endFrame: nil),
        OutsideCase(start: 500, end: 1540, startFrame: nil, endFrame: 13),
        // An end in the first frame, nearer its start, keeps that frame: the range reaches into
        // the video, and an end before it would leave the video lane nothing to convert.
        OutsideCase(start: 500, end: 1030, startFrame: nil, endFrame: 1),
        OutsideCase(start: 0, end: 1030, startFrame: nil, endFrame: 1),
    ])
    func outsideTheVideo(_ c: OutsideCase) throws {
        let dir = Scratch()
        let src = try Self.videoInTheMiddle(dir)
        let first = try #require(try PacketScan.extents(src)[0]).start
        let r = Self.request(src, dir.file("out.mkv"), start: Self.ms(c.start), duration: Self.ms(c.end - c.start), audio: true)
        let plan = try Planner.plan(r)
        let s = plan.source.startTime
        func at(_ asked: Int64, _ k: Int64?) -> MediaTime { k.map { first + MediaTime(value: 1, timescale: 25) * $0 } ?? s + Self.ms(asked) }
        #expect(plan.timeRange == TimeRange(start: at(c.start, c.startFrame), end: at(c.end, c.endFrame)))
    }

    @Test("a trim from before the video to after it keeps all the asked audio and every frame")
    func aroundTheVideo() throws {
        let dir = Scratch()
        let src = try Self.videoInTheMiddle(dir)
        let out = dir.file("out.mkv")
        let plan = try Planner.plan(Self.request(src, out, start: Self.ms(500), duration: Self.ms(3000), audio: true))
        try ExportSession(plan: plan).run()
        #expect(try Media.stamps(out).map(\.stamp) == (0..<25).map { Optional($0) })
        let audio = try #require(try PacketScan.extents(out)[1])
        #expect(abs(audio.duration.seconds - 3.0) < 0.03, "audio \(audio)")
    }
}
