import Foundation
import Pipeline
import Recipe
import Testing

/// Passthrough keeps every sample and every presentation time: samples are copied as they are,
/// their decode times made valid for the output's muxer (B-frame delay, negative composition
/// offsets, missing dts), the tracks moved together.
@Suite("Passthrough timing")
struct PassthroughTimingTests {
    static let copyBoth = [TrackRequest(.type(.video, 0), .passthrough), TrackRequest(.type(.audio, 0), .passthrough)]

    /// H.264 with a B-frame pyramid (three B-frames between references).
    static func bFrames(gop: Int) -> GeneratedVideoFormat {
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        v.gop = gop
        v.codecOptions = ["preset": "ultrafast", "bf": "3", "b-pyramid": "normal", "x264-params": "b-adapt=0:scenecut=0"]
        return v
    }

    /// The first video and audio stream's samples.
    static func samples(_ path: String) throws -> (video: [PacketScan.Sample], audio: [PacketScan.Sample]) {
        let asset = try Asset.load(path)
        let all = try PacketScan.samples(path)
        let v = try #require(asset.videoTracks.first), a = asset.audioTracks.first
        return (all[v.index] ?? [], a.flatMap { all[$0.index] } ?? [])
    }

    /// Output presentation times minus the source's: one value for every sample of every track
    /// (nothing moved relative to anything else). `tolerance` is for Matroska's 1 ms clock.
    static func offsets(source: [PacketScan.Sample], output: [PacketScan.Sample], shift: MediaTime,
                        tolerance: MediaTime) -> [String] {
        var problems: [String] = []
        if source.count != output.count { problems.append("\(output.count) samples of \(source.count)") }
        for (i, (s, o)) in zip(source, output).enumerated() {
            guard let sp = s.pts, let op = o.pts else { problems.append("sample \(i) has no pts"); continue }
            let d = op - sp - shift
            if (d.value < 0 ? d.negated : d) > tolerance {
                problems.append("sample \(i) at \(op.secondsDescription), source \(sp.secondsDescription) (shift \(shift.secondsDescription))")
            }
        }
        return problems
    }

    @Test("iPhone-style B-frames (pts < dts in the source) copy into MP4, MOV and Matroska with every presentation time kept")
    func negativeCompositionOffsets() throws {
        let dir = Scratch()
        let src = dir.file("src.mov")
        var v = Self.bFrames(gop: 30)
        v.negativeCompositionOffsets = true
        try Media.make(src, video: v, frames: 5, audio: true)
        let source = try Self.samples(src)
        // The class under test: the demuxer hands out B-frames shown before they are decoded.
        #expect(source.video.contains { s in s.pts.flatMap { p in s.dts.map { p < $0 } } ?? false },
                "the source has no sample with pts < dts: \(source.video)")
        for ext in ["mp4", "mov", "mkv"] {
            let out = dir.file("out.\(ext)")
            let r = try runConversion(ConversionRequest(source: src, output: out, tracks: Self.copyBoth))
            #expect(r.lanes.map(\.packetsWritten) == [source.video.count, source.audio.count], "\(ext)")
            let output = try Self.samples(out)
            // Matroska has no edit list: the audio priming before 0 moves the whole file later.
            let mkv = ext == "mkv"
            let shift = mkv ? try #require(output.video.first?.pts) - (source.video.first?.pts ?? .zero) : .zero
            let tolerance = mkv ? MediaTime(value: 1, timescale: 1000) : .zero
            let problems = Self.offsets(source: source.video, output: output.video, shift: shift, tolerance: tolerance)
                + Self.offsets(source: source.audio, output: output.audio, shift: shift, tolerance: tolerance)
            #expect(problems.isEmpty, "\(ext): \(problems)")
            #expect(try Media.stamps(out).map(\.stamp) == (0..<5).map { Optional($0) }, "\(ext)")
        }
    }

    @Test("a remux keeps every sample: the audio priming before the start and the B-frame delay are copied, and the audio decodes to the same samples")
    func everySampleKept() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        // A tone from the very start: the first real samples decode right only after the priming.
        try Media.make(src, video: Self.bFrames(gop: 15), frames: 45, audio: true,
                       markers: Media.Markers(firstMarker: 0, markerEvery: 15, burstSeconds: 0.3))
        let source = try Self.samples(src)
        #expect(source.audio.first?.pts.map { $0 < .zero } == true, "no priming sample before 0: \(source.audio.prefix(2))")
        var sourceAudio: [Float] = []
        let sr = try SampleReader(path: src, track: .type(.audio, 0))
        while let a = try sr.nextAudio() { sourceAudio += a.samples }
        for ext in ["mp4", "mov"] {
            let out = dir.file("out.\(ext)")
            try runConversion(ConversionRequest(source: src, output: out, tracks: Self.copyBoth))
            let output = try Self.samples(out)
            let problems = Self.offsets(source: source.video, output: output.video, shift: .zero, tolerance: .zero)
                + Self.offsets(source: source.audio, output: output.audio, shift: .zero, tolerance: .zero)
            #expect(problems.isEmpty, "\(ext): \(problems)")
            var outputAudio: [Float] = []
            let or = try SampleReader(path: out, track: .type(.audio, 0))
            while let a = try or.nextAudio() { outputAudio += a.samples }
            #expect(outputAudio == sourceAudio, "\(ext): \(outputAudio.count) audio samples decode, source \(sourceAudio.count)")
            #expect(try Media.stamps(out).map(\.stamp) == (0..<45).map { Optional($0) }, "\(ext)")
        }
    }

    @Test("a trim copies video from the sync sample at or before the start and audio from the sample reaching it, every time moved by the start alone")
    func trim() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: Self.bFrames(gop: 15), frames: 60, audio: true)
        let source = try Self.samples(src)
        let start = MediaTime(value: 11, timescale: 10), end = MediaTime(value: 16, timescale: 10)
        var request = ConversionRequest(source: src, output: dir.file("trim.mp4"), tracks: Self.copyBoth)
        request.timeRange = TimeRange(start: start, end: end)
        try runConversion(request)
        let output = try Self.samples(request.output)

        // Video: sync samples at frames 0, 15, 30, 45 — the copy starts at 30 (1.0 s) and takes
        // every sample decoded before the end.
        let first = try #require(source.video.firstIndex { $0.isSync && $0.pts == MediaTime(value: 1, timescale: 1) })
        let videoEnd = try #require(source.video.firstIndex { ($0.dts ?? .zero) >= end })
        let problems = Self.offsets(source: Array(source.video[first..<videoEnd]), output: output.video, shift: start.negated, tolerance: .zero)
        #expect(problems.isEmpty, "video: \(problems)")
        // Audio: from the sample playing at the start to the last one starting before the end.
        let audioFirst = try #require(source.audio.firstIndex { ($0.pts ?? .zero) + $0.duration > start })
        let audioEnd = try #require(source.audio.firstIndex { ($0.dts ?? .zero) >= end })
        let audioProblems = Self.offsets(source: Array(source.audio[audioFirst..<audioEnd]), output: output.audio, shift: start.negated, tolerance: .zero)
        #expect(audioProblems.isEmpty, "audio: \(audioProblems)")
        // The edit list hides the lead-in: the first picture shown is frame 33, at 0.
        let shown = try Media.stamps(request.output)
        #expect(shown.first?.stamp == 33 && shown.first?.pts == .zero, "\(shown.prefix(2))")
    }
}
