import Foundation
import Pipeline
import Recipe
import Testing

/// Timing on real files (REENCODE_CORPUS): trims of transport streams that start late, and
/// track starts kept in MKV and MP4.
@Suite("Corpus timing", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct CorpusTimingTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""

    static func pictureTimes(_ path: String) throws -> [MediaTime] {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var out: [MediaTime] = []
        while let p = try r.nextPicture() { out.append(p.pts) }
        return out
    }

    @Test("a 1 s trim of an MPEG-TS starting at 1.5 s shows the source's frames of the cut range",
          arguments: ["androidx-media/ts_bbb_2500ms.ts", "mediabunny/hevc.ts"])
    func transportStream(_ file: String) throws {
        let src = Self.corpus + "/" + file
        let dir = Scratch()
        let out = dir.file("out.mp4")
        var request = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast())),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings()), optional: true),
        ])
        request.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 2), duration: MediaTime(value: 1, timescale: 1))
        let plan = try Planner.plan(request)
        #expect(plan.timeRange.start > plan.source.startTime)
        try ExportSession(plan: plan).run()

        let source = try Self.pictureTimes(src).filter { plan.timeRange.contains($0) }
        let output = try Self.pictureTimes(out)
        #expect(output.count == source.count && !source.isEmpty, "\(file): \(output.count) frames, \(source.count) in range")
        for (o, s) in zip(output, source) {
            #expect(abs(o.seconds - (s - plan.timeRange.start).seconds) < 0.001, "\(file): \(o.seconds) for \((s - plan.timeRange.start).seconds)")
        }
    }

    @Test("hero7.mp4 into MKV and MP4, audio reencoded and video copied or reencoded: the tracks start together as in the source",
          arguments: ["mkv", "mp4"])
    func hero7TrackStarts(ext: String) throws {
        let src = Self.corpus + "/gpmf-parser/hero7.mp4"
        let dir = Scratch()
        func firsts(_ path: String) throws -> (video: Double, audio: Double) {
            let v = try #require(try SampleReader(path: path, track: .type(.video, 0)).nextPicture()?.pts.seconds)
            let a = try #require(try SampleReader(path: path, track: .type(.audio, 0)).nextAudio()?.pts.seconds)
            return (v, a)
        }
        let before = try firsts(src)
        for copyVideo in [true, false] {
            let out = dir.file("out-\(copyVideo).\(ext)")
            var v = VideoSettings.fast()
            v.width = 320; v.height = 240
            try runConversion(ConversionRequest(source: src, output: out, tracks: [
                TrackRequest(.type(.video, 0), copyVideo ? .passthrough : .video(v)),
                TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
            ]))
            let after = try firsts(out)
            #expect(abs((after.audio - after.video) - (before.audio - before.video)) < 0.001,
                    "\(ext) copy video \(copyVideo): audio − video \(after.audio - after.video), source \(before.audio - before.video)")
            for selector in ["v:0", "a:0"] {
                let start = Double(try FFprobe.stream(out, selector, "start_time")?["start_time"] ?? "") ?? -1
                #expect(abs(start) < 0.001, "\(ext) copy video \(copyVideo) \(selector) starts at \(start)")
            }
        }
    }
}
