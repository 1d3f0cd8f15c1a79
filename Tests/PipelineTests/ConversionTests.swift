import Foundation
import Pipeline
import Synchronization
import Recipe
import Testing

@Suite("Conversions: selective decode, sync, trims, metadata")
struct ConversionTests {
    static let hfr = FrameRate(frames: 120)

    func hfrSource(_ dir: Scratch, frames: Int = 480, audio: Bool = true) throws -> String {
        let src = dir.file("hfr.mp4")
        try Media.make(src, video: .droppableH264(width: 640, height: 360, frameRate: Self.hfr), frames: frames, audio: audio)
        return src
    }

    @discardableResult
    func to30(_ src: String, _ out: String, selective: Bool = true, range: TimeRange? = nil, audio: Bool = true) throws -> ConversionResult {
        var tracks = [TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30))))]
        if audio { tracks.append(TrackRequest(.type(.audio, 0), .audio(AudioSettings()))) }
        var req = ConversionRequest(source: src, output: out, tracks: tracks)
        req.selectiveDecode = selective
        req.timeRange = range
        return try runConversion(req)
    }

    @Test("selective decode on and off give identical decoded frames")
    func selectiveDecodeIsInvisible() throws {
        let dir = Scratch()
        let src = try hfrSource(dir, audio: false)
        let on = try to30(src, dir.file("on.mp4"), selective: true, audio: false)
        let off = try to30(src, dir.file("off.mp4"), selective: false, audio: false)
        #expect(on.lanes[0].packetsDecoded < off.lanes[0].packetsDecoded / 3)
        #expect(off.lanes[0].packetsSkipped == 0)
        let a = try SampleReader(path: dir.file("on.mp4"), track: .type(.video, 0))
        let b = try SampleReader(path: dir.file("off.mp4"), track: .type(.video, 0))
        var n = 0
        while let x = try a.nextPicture() {
            let y = try #require(try b.nextPicture())
            #expect(x.pts == y.pts)
            #expect(x.luma == y.luma, "picture \(n) differs")
            n += 1
        }
        #expect(try b.nextPicture() == nil)
        #expect(n == 120)
    }

    @Test("the first run of a plan reads through the demuxer that probed the source, and loses or repeats no packet",
          arguments: [nil, TimeRange(start: MediaTime(value: 3, timescale: 2), duration: MediaTime(seconds: 2))])
    func probedDemuxerIsHandedOver(range: TimeRange?) throws {
        let dir = Scratch()
        let src = try hfrSource(dir)
        var req = ConversionRequest(source: src, output: dir.file("first.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30)))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.timeRange = range
        let asset = try Asset.load(src)
        // The probe read packets ahead to learn the streams; the first run must hand those out.
        let first = try ExportSession(plan: Planner.plan(req, asset: asset)).run()
        req.output = dir.file("second.mp4")
        // The same asset again: its demuxer is taken, so this run opens the file afresh.
        let second = try ExportSession(plan: Planner.plan(req, asset: asset)).run()
        #expect(first.lanes.map(\.packetsRead) == second.lanes.map(\.packetsRead))
        let a = try Data(contentsOf: URL(fileURLWithPath: dir.file("first.mp4")))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir.file("second.mp4")))
        #expect(a == b, "the two runs differ")
        let start = range == nil ? 0 : 180
        let count = range == nil ? 120 : 60
        #expect(try Media.stamps(dir.file("first.mp4")).map(\.stamp) == stride(from: start, to: start + 4 * count, by: 4).map { Optional($0) })
    }

    /// Every tone burst lies within one output frame of the video frame that carries its marker.
    func checkSync(_ out: String, sourceRate: FrameRate, outputRate: FrameRate, offset: Double = 0, expectedBursts: Int) throws {
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == expectedBursts, "bursts: \(onsets)")
        let pictures = try Media.stamps(out)
        let d = outputRate.frameDuration.seconds
        for t in onsets {
            // The output frame on screen at the burst shows the marker's source frame or its nearest neighbour.
            guard let shown = pictures.last(where: { $0.pts.seconds <= t + 1e-9 }), let stamp = shown.stamp else {
                Issue.record("no picture on screen at \(t)"); continue
            }
            let pictureSourceTime = Double(stamp) / sourceRate.framesPerSecond - offset
            #expect(abs(pictureSourceTime - t) <= d + 1e-6, "burst at \(t) s, picture shows source frame \(stamp)")
        }
    }

    @Test("audio markers land within one output frame of their video markers, whole file and trimmed")
    func audioVideoSync() throws {
        let dir = Scratch()
        let src = try hfrSource(dir)
        // Markers at frames 30, 90, … 450: source times 0.25, 0.75, … 3.75 s.
        try to30(src, dir.file("whole.mp4"))
        try checkSync(dir.file("whole.mp4"), sourceRate: Self.hfr, outputRate: FrameRate(frames: 30), expectedBursts: 8)
        let range = TimeRange(start: MediaTime(value: 3, timescale: 2), duration: MediaTime(seconds: 2))
        try to30(src, dir.file("trim.mp4"), range: range)
        // In the trim (1.5 s … 3.5 s) lie the markers at 1.75, 2.25, 2.75, 3.25 s.
        try checkSync(dir.file("trim.mp4"), sourceRate: Self.hfr, outputRate: FrameRate(frames: 30), offset: 1.5, expectedBursts: 4)
        let onsets = try Media.burstOnsets(dir.file("trim.mp4"))
        #expect(abs((onsets.first ?? 0) - 0.25) < 1.0 / 30)
    }

    @Test("trim 1.5 s + 2 s: the first frame is the source frame at 1.5 s; video and audio last 2 s")
    func trim() throws {
        let dir = Scratch()
        let src = dir.file("30.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 150, audio: true)
        var req = ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast())),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.timeRange = TimeRange(start: MediaTime(value: 3, timescale: 2), duration: MediaTime(seconds: 2))
        try runConversion(req)
        let stamps = try Media.stamps(dir.file("out.mp4"))
        #expect(stamps.first?.stamp == 45)
        #expect(stamps.first?.pts == .zero)
        #expect(stamps.map(\.stamp) == (45..<105).map { Optional($0) })
        let out = try Asset.load(dir.file("out.mp4"))
        let frame = 1.0 / 30
        #expect(abs(out.tracks[0].duration.seconds - 2) <= frame)
        #expect(abs(out.tracks[1].duration.seconds - 2) <= frame)
        var samples = 0
        let audio = try SampleReader(path: dir.file("out.mp4"), track: .type(.audio, 0))
        while let a = try audio.nextAudio() { samples += a.samples.count }
        #expect(abs(Double(samples) / 48000 - 2) <= frame, "\(samples) samples")
    }

    @Test("rotation, colour tags and metadata survive a conversion")
    func metadataSurvives() throws {
        let dir = Scratch()
        let src = dir.file("rotated.mov")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        v.rotation = 90
        v.colorPrimaries = "bt709"
        v.colorTransfer = "bt709"
        v.colorMatrix = "bt709"
        v.metadata = ["language": "fra"]
        try Media.make(src, video: v, frames: 30, audio: true, metadata: ["title": "Harbour at dawn", "comment": "take 3"])
        let source = try Asset.load(src)
        #expect(source.tracks[0].format.rotation == 90)
        let out = dir.file("out.mp4")
        try runConversion(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(width: 160, height: 160, codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ]))
        let a = try Asset.load(out)
        let f = a.tracks[0].format
        #expect(f.rotation == 90)
        // The 320x240 picture shows as 240x320; fitted inside a 160x160 box it shows as 120x160,
        // so it is stored as 160x120 and still turned by the display matrix.
        #expect(f.width == 160 && f.height == 120)
        #expect(f.displaySize.width == 120 && f.displaySize.height == 160)
        #expect(f.colorPrimaries == "bt709")
        #expect(f.colorTransfer == "bt709")
        #expect(f.colorMatrix == "bt709")
        #expect(a.metadata["title"] == "Harbour at dawn")
        #expect(a.metadata["comment"] == "take 3")
        #expect(a.tracks[0].language == "fra")
        if let probed = try FFprobe.stream(out, "v:0", "width,height,color_primaries") {
            #expect(probed["rotation"] == "-90")
            #expect(probed["color_primaries"] == "bt709")
        }
        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == (0..<30).map { Optional($0) })
    }

    @Test("progress rises monotonically to 1.0, per lane, on one reporting queue")
    func progress() throws {
        let dir = Scratch()
        let src = try hfrSource(dir, frames: 960)
        let reports = Mutex<[ConversionProgress]>([])
        let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(frameRate: .rate(FrameRate(frames: 30)), codecOptions: ["preset": "medium"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ]))
        try ExportSession(plan: plan).run { p in reports.withLock { $0.append(p) } }
        let all = reports.withLock { $0 }
        #expect(all.count >= 2)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.fraction <= $1.fraction && $0.outputTime <= $1.outputTime })
        #expect(all.last?.fraction == 1.0)
        #expect(all.last?.isFinal == true)
        #expect(all.dropLast().allSatisfy { !$0.isFinal && $0.fraction < 1 })
        #expect(all.last?.lanes.map(\.mediaType) == [.video, .audio])
        #expect(all.last?.lanes[0].frames == 240)
        #expect(all.last.map { abs($0.outputTime.seconds - 8) < 0.05 } == true)
    }
}
