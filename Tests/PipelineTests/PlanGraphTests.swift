import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The plan is a graph whose edges carry the formats both stages agreed on at plan time; the run
/// builds its stages from it and never asks one stage for another's format.
@Suite("Plan graph: negotiated edges")
struct PlanGraphTests {
    static func source(_ path: String, width: Int = 320, height: Int = 180, rate: Int32 = 60) throws {
        try Media.make(path, video: GeneratedVideoFormat(width: width, height: height, frameRate: FrameRate(frames: rate)), frames: 60, audio: true)
    }

    static func request(_ src: String, _ out: String, frameRate: FrameRateSetting?) -> ConversionRequest {
        ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(frameRate: frameRate, codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
    }

    static func pictures(_ f: EdgeFormat?) -> PictureFormat? { f?.pictures }

    @Test("a plain conversion is one source into one sink per track, and the output holds what each edge says")
    func plainConversion() throws {
        let s = Scratch()
        let src = s.file("in.mp4"), out = s.file("out.mp4")
        try Self.source(src)
        let plan = try Planner.plan(Self.request(src, out, frameRate: .rate(FrameRate(frames: 30))))
        let g = try #require(plan.graph)
        #expect(g.nodes == [.file(out), .sink(output: 0), .source(file: 0, track: 0), .sink(output: 1), .source(file: 0, track: 1)])
        #expect(g.edges.map { [$0.from, $0.to] } == [[2, 1], [1, 0], [4, 3], [3, 0]])
        #expect(g.edges.allSatisfy { $0.segment == nil })
        // Into the video sink: the source's pictures on the output's 30 fps grid.
        #expect(g.sinkInput(0) == .pictures(PictureFormat(width: 320, height: 180, pixelFormat: "yuv420p", timeBase: Ratio(1, 30), frameRate: FrameRate(frames: 30))))
        #expect(g.sinkInput(1) == .sound(SoundFormat(sampleRate: 48000, sampleFormat: "fltp", channelLayout: "stereo", timeBase: Ratio(1, 48000))))
        guard case .stream(let video)? = g.sinkOutput(0), case .stream(let audio)? = g.sinkOutput(1) else {
            Issue.record("no stream edges: \(g.edges)"); return
        }
        #expect(video.codec == "h264" && video.width == 320 && video.height == 180 && video.pixelFormat == "yuv420p")
        #expect(audio.codec == "aac" && audio.sampleRate == 48000 && audio.channelLayout == "stereo")

        try ExportSession(plan: plan).run()
        // What ffprobe reads from the file is what the plan's graph said.
        guard let v = try FFprobe.stream(out, "v:0", "codec_name,width,height,pix_fmt,time_base,r_frame_rate"),
              let a = try FFprobe.stream(out, "a:0", "codec_name,sample_rate,channel_layout,time_base") else { return }
        #expect(v["codec_name"] == video.codec && v["width"] == "\(video.width)" && v["height"] == "\(video.height)")
        #expect(v["pix_fmt"] == video.pixelFormat)
        #expect(v["time_base"] == "\(video.timeBase.num)/\(video.timeBase.den)")
        #expect(v["r_frame_rate"] == "30/1")
        #expect(a["codec_name"] == audio.codec && a["sample_rate"] == "\(audio.sampleRate)" && a["channel_layout"] == audio.channelLayout)
        #expect(a["time_base"] == "\(audio.timeBase.num)/\(audio.timeBase.den)")
    }

    @Test("with source timing the edge carries the source stream's time base and average rate")
    func sourceTiming() throws {
        let s = Scratch()
        let src = s.file("in.mp4")
        try Self.source(src, rate: 25)
        let plan = try Planner.plan(Self.request(src, s.file("out.mp4"), frameRate: nil))
        let p = try #require(Self.pictures(plan.graph?.sinkInput(0)))
        #expect(p.frameRate == FrameRate(frames: 25))
        // The pictures keep the source stream's stamps: its time base, as ffprobe reads it.
        guard let probed = try FFprobe.stream(src, "v:0", "time_base")?["time_base"] else { return }
        #expect("\(p.timeBase.num)/\(p.timeBase.den)" == probed)
    }

    @Test("a composition's files each feed the sequence, which feeds the sink")
    func composition() throws {
        let s = Scratch()
        let a = s.file("a.mp4"), b = s.file("b.mp4")
        try Self.source(a, width: 320, height: 180, rate: 30)
        try Self.source(b, width: 480, height: 270, rate: 30)
        var req = Self.request(a, s.file("out.mp4"), frameRate: .rate(FrameRate(frames: 30)))
        req.sources = [b]
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1)]
        let plan = try Planner.plan(req)
        let g = try #require(plan.graph)
        let sequence = try #require(g.nodes.firstIndex(of: .combiner(.sequence, output: 0)))
        let into = g.edges.filter { $0.to == sequence }
        #expect(into.map { g.nodes[$0.from] } == [.source(file: 0, track: 0), .source(file: 1, track: 0)])
        #expect(into.map(\.segment) == [0, 1])
        // Each file's own pictures, on the one grid every input of the track is stamped on.
        #expect(into.compactMap { Self.pictures($0.format).map { [$0.width, $0.height] } } == [[320, 180], [480, 270]])
        #expect(into.allSatisfy { Self.pictures($0.format)?.timeBase == Ratio(1, 30) })
        let sink = try #require(g.nodes.firstIndex(of: .sink(output: 0)))
        #expect(g.edges.contains { $0.from == sequence && $0.to == sink })
    }

    @Test("the run opens the sink for the plan's edge: a source that offers other timing fails, naming both, and leaves nothing")
    func runFollowsTheGraph() throws {
        let s = Scratch()
        let src = s.file("in.mp4"), out = s.file("out.mp4")
        try Self.source(src)
        var plan = try Planner.plan(Self.request(src, out, frameRate: .rate(FrameRate(frames: 30))))
        let old = try #require(plan.graph)
        var g = PlanGraph()
        for n in old.nodes { _ = g.node(n) }
        for e in old.edges {
            var f = e.format
            if case .pictures(var p) = f { p.timeBase = Ratio(1, 25); p.frameRate = FrameRate(frames: 25); f = .pictures(p) }
            g.connect(e.from, e.to, f, segment: e.segment)
        }
        plan.graph = g
        let error = #expect(throws: MediaError.self) { try ExportSession(plan: plan).run() }
        #expect(error?.kind == .processing)
        #expect(error?.message == "the plan agreed on pictures 320x180 yuv420p, time base 1/25, 25/1 fps for output track 1, but its source gives pictures 320x180 yuv420p, time base 1/30, 30/1 fps")
        #expect(s.contents == ["in.mp4"])
    }
}
