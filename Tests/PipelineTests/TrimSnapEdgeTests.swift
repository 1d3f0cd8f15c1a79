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
}
