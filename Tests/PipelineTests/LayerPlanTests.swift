import Foundation
@testable import Pipeline
import Recipe
import Testing

/// How a plan draws a composition's layers: the cross-fade's two rolls, the segments it
/// lengthens (pictures only), the upper roll's opacity ramps, a layer's rectangle in output
/// pixels; and what it refuses, with the setting that points at the recipe line.
@Suite("Compositions: planning video layers", .serialized)
struct LayerPlanTests {
    static func ms(_ n: Int64) -> MediaTime { MediaTime(value: n, timescale: 1000) }

    static let tracks = [
        TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, quality: 1, codecOptions: ["preset": "ultrafast"]))),
        TrackRequest(.type(.audio, 0), .audio(AudioSettings(bitrate: 128000))),
    ]

    /// Clips of 2 s (60 frames at 30 fps, 64×64, with sound), one per grey.
    static func clips(_ dir: Scratch, _ greys: [Int]) throws -> [String] {
        try greys.enumerated().map { i, y in
            let path = dir.file("clip\(i).mp4")
            try CompositionFadeTests.grey(path, y: y, frames: 60)
            return path
        }
    }

    static func request(_ files: [String], _ segments: [SegmentRequest], styles: [VideoLayerStyle] = [VideoLayerStyle()]) -> ConversionRequest {
        var req = ConversionRequest(source: files[0], output: files[0] + ".out.mp4", tracks: tracks)
        req.sources = Array(files.dropFirst())
        req.timeline = segments
        req.videoComposition = VideoCompositionRequest(styles: styles)
        return req
    }

    static func crossFade(_ seconds: Int64, from source: Int) -> SegmentRequest {
        var s = SegmentRequest(source: source)
        s.transition = Transition(kind: .crossFade, duration: MediaTime(seconds: seconds))
        return s
    }

    @Test("a 1 s cross-fade of two 2 s clips: two rolls; the pictures of the first play to 2.5 s, of the second from 1.5 s; the sound is read as long (it cross-fades with them); 4 s still")
    func twoRolls() throws {
        let dir = Scratch()
        let files = try Self.clips(dir, [180, 100])
        let plan = try Planner.plan(Self.request(files, [SegmentRequest(source: 0), Self.crossFade(1, from: 1)]))
        #expect(plan.duration == MediaTime(seconds: 4))
        #expect(plan.videoLayers.map(\.name) == ["video", "video (cross-fades)"])
        #expect(plan.videoLayers[0].opacity == nil)
        let ramps = try #require(plan.videoLayers[1].opacity?.ramps)
        #expect(ramps.map { [$0.start, $0.end] } == [[Self.ms(1500), Self.ms(2500)]] && ramps.map { [$0.from, $0.to] } == [[0, 1]])
        #expect(plan.segmentVideoLayers == [0, 1])
        let video = plan.chains[0].inputs, sound = plan.chains[1].inputs
        #expect(video.map { $0.timeline.segments[0].sourceRange } == [TimeRange(start: .zero, end: Self.ms(2500)),
                                                                      TimeRange(start: Self.ms(-500), end: MediaTime(seconds: 2))])
        #expect(video.map { $0.timeline.segments[0].targetStart } == [.zero, Self.ms(1500)])
        #expect(video.map(\.holdsEdges) == [true, true])
        #expect(sound.map { $0.timeline.segments[0].sourceRange } == [TimeRange(start: .zero, end: Self.ms(2500)),
                                                                      TimeRange(start: Self.ms(-500), end: MediaTime(seconds: 2))])
        #expect(sound.map(\.mixInput) == [nil, 1], "the second clip's sound is the cross-fade's own mix input")
        #expect(sound.map(\.holdsEdges) == [false, false])
        // The second clip's reader starts where its pictures are read from: its start (nothing before 0).
        #expect(plan.readerGroups.map(\.start) == [.zero, Self.ms(-500)])
    }

    @Test("three clips, cross-fades at both cuts: rolls A, B, A; the upper roll comes in, then goes out; a cut keeps the roll")
    func alternation() throws {
        let dir = Scratch()
        let files = try Self.clips(dir, [180, 100, 60, 140])
        let plan = try Planner.plan(Self.request(files, [SegmentRequest(source: 0), Self.crossFade(1, from: 1), Self.crossFade(1, from: 2), SegmentRequest(source: 3)]))
        #expect(plan.segmentVideoLayers == [0, 1, 0, 0])
        let ramps = try #require(plan.videoLayers[1].opacity?.ramps)
        #expect(ramps.map { [$0.from, $0.to] } == [[0, 1], [1, 0]])
        #expect(ramps.map(\.start) == [Self.ms(1500), Self.ms(3500)])
        // The middle clip is lengthened at both ends; the last one, after a cut, not at all.
        let ranges = plan.chains[0].inputs.map { $0.timeline.segments[0].sourceRange }
        #expect(ranges == [TimeRange(start: .zero, end: Self.ms(2500)), TimeRange(start: Self.ms(-500), end: Self.ms(2500)),
                           TimeRange(start: Self.ms(-500), end: MediaTime(seconds: 2)), TimeRange(start: .zero, end: MediaTime(seconds: 2))])
        #expect(plan.duration == MediaTime(seconds: 8))
    }

    /// The plan of a 1280x720 clip drawn at 640x360 with a grey clip in a layer of `style`.
    static func insetPlan(_ dir: Scratch, style: VideoLayerStyle, background: RecipeColor = .black) throws -> ConversionPlan {
        let main = dir.file("main.mp4"), inset = dir.file("inset.mp4")
        var big = GeneratedVideoFormat(width: 1280, height: 720, frameRate: FrameRate(frames: 30))
        big.codecOptions = ["preset": "ultrafast"]
        try Media.make(main, video: big, frames: 30)
        try CompositionFadeTests.grey(inset, y: 100, frames: 30)
        var layer = SegmentRequest(source: 1)
        layer.list = .video
        layer.layer = 1
        var req = ConversionRequest(source: main, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, width: 640, height: 360, quality: 1, codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = [inset]
        req.timeline = [SegmentRequest(source: 0), layer]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(), style], background: background)
        return try Planner.plan(req)
    }

    @Test("a layer's rectangle, in render pixels, is drawn at the output's size: a 1280x720 render in a 640x360 output halves it")
    func rectangleScaled() throws {
        var style = VideoLayerStyle()
        style.rect = RecipeRect(x: .pixels(901), y: .pixels(40), width: .percent(25), height: .pixels(180))
        style.fit = .fill
        let plan = try Self.insetPlan(Scratch(), style: style, background: .white)
        #expect(plan.videoLayers.map(\.name) == ["video", "layer 1"])
        #expect(plan.videoLayers[1].placement == LayerPlacement(rect: PixelRect(x: 451, y: 20, width: 160, height: 90), fit: .fill))
        #expect(plan.segmentVideoLayers == [0, 1])
        #expect(plan.background == .white)
        // The render size is the video track's file's, not the layer's.
        let decision = try #require(plan.lanes[0].videoSettings?.decisions.first { $0.setting == "render-size" })
        #expect(decision.value == "1280x720")
    }

    @Test("a cross-fade into a slowed segment: its reader starts before the lengthened start by the stretcher's lead-in, not before its own start")
    func stretchedIncoming() throws {
        let dir = Scratch()
        let files = try Self.clips(dir, [180, 100])
        var second = Self.crossFade(1, from: 1)
        second.timing = .speed(SegmentSpeed(numerator: 1, denominator: 2)!)
        second.audioStretch = .timeDomain
        let plan = try Planner.plan(Self.request(files, [SegmentRequest(source: 0), second]))
        // Half a second of the timeline before the cut is a quarter of a second of the slowed source.
        let lead = TimeStretchLead.leadInDuration(method: .timeDomain, source: 1, target: 2)
        #expect(lead > .zero)
        #expect(plan.readerGroups.map(\.start) == [.zero, Self.ms(-250) - lead])
    }

    @Test("a layer's segment from a file without pictures draws nothing: a warning names the segment and the file")
    func soundOnlyLayer() throws {
        let dir = Scratch()
        let files = try Self.clips(dir, [180])
        let tone = dir.file("tone.m4a")
        try AudioMixTests.tone(tone, hz: 440, amplitude: 0.5, seconds: 1)
        var layer = SegmentRequest(source: 1)
        layer.list = .video
        layer.layer = 1
        let plan = try Planner.plan(Self.request(files + [tone], [SegmentRequest(source: 0), layer], styles: [VideoLayerStyle(), VideoLayerStyle()]))
        #expect(plan.notices.map(\.message) == ["segment 1 of layer 1: \(tone) has no pictures, so the layer shows nothing there"])
        #expect(plan.notices.map(\.item) == ["composition.layer-1-segment.1"])
    }

    static let refusals: [(name: String, segments: [SegmentRequest], styles: [VideoLayerStyle], message: String, segment: SegmentField)] = [
        ("a gap before the cut", [SegmentRequest(source: 0), { var s = crossFade(1, from: 1); s.at = MediaTime(seconds: 3); return s }()], [VideoLayerStyle()],
         "the cross-fade into segment 2: segment 1 ends at 2.000s and segment 2 starts at 3.000s; a cross-fade joins two segments that meet (leave out 'at', or use 'kind: dip')", SegmentField(2, .transition)),
        ("longer than twice a segment", [{ var s = SegmentRequest(source: 0); s.end = Self.ms(500); return s }(), crossFade(2, from: 1)], [VideoLayerStyle()],
         "the cross-fade into segment 2: half its duration (1.000s) is longer than segment 1 (0.500s); a cross-fade is centred on the cut", SegmentField(2, .transition)),
        ("two that overlap", [SegmentRequest(source: 0), { var s = crossFade(2, from: 1); s.end = Self.ms(1500); return s }(), crossFade(2, from: 0)], [VideoLayerStyle()],
         "the cross-fade into segment 2 (1.000s to 3.000s) overlaps the cross-fade into segment 3 (2.500s to 4.500s) on the timeline: shorten one", SegmentField(3, .transition)),
        ("opacity ramps with cross-fades", [SegmentRequest(source: 0), crossFade(1, from: 1)],
         [VideoLayerStyle(opacity: Keyframes(ramps: [Ramp(start: .zero, end: MediaTime(seconds: 1), from: 0, to: 1)]))],
         "the video track's 'opacity' ramps and its cross-fades cannot both be drawn: give the video track a constant opacity, or put the segments in a layer", SegmentField(2, .transition)),
    ]

    @Test("refused, with the segment's transition as the field (the recipe's line)", arguments: 0..<refusals.count)
    func refused(_ i: Int) throws {
        let dir = Scratch()
        let files = try Self.clips(dir, [180, 100])
        let r = Self.refusals[i]
        #expect {
            _ = try Planner.plan(Self.request(files, r.segments, styles: r.styles))
        } throws: { error in
            (error as? MediaError)?.message == r.message && (error as? MediaError)?.segment == r.segment
        }
    }
}
