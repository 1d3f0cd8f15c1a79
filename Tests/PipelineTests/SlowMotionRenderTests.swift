import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// `slow-motion: from-source` rendering the corpus's Samsung sample, against media3's own
/// flattening of it (transformerdumps/mp4/sample_sef_slow_motion.mp4/noaudio.dump, whose times
/// `SlowMotionCorpusTests.media3` holds): which source frame each output picture is and when it
/// plays, read from the lane's stages directly (the sink only encodes what they hand it).
@Suite("Slow motion from the source: rendering the corpus's SEF sample", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct SlowMotionRenderTests {
    static let sef = SlowMotionCorpusTests.sef

    /// One picture the video lane's stages hand the sink.
    struct Shown: Equatable {
        /// The source frame's presentation time, in the stream's 1/90000 ticks.
        let source: Int64
        /// Output pts and duration, in the output time base.
        let pts: Int64
        let duration: Int64
        /// FNV-1a of the luma plane.
        let picture: UInt64
    }

    func plan(_ dir: Scratch, rate: FrameRate?, selective: Bool = true,
              segments: [SegmentRequest] = [SegmentRequest(slowMotion: .fromSource)]) throws -> ConversionPlan {
        var request = ConversionRequest(source: Self.sef, output: dir.file("out.mp4"), tracks: [TrackRequest(.type(.video, 0), .video(.fast(rate: rate)))])
        request.timeline = segments
        request.selectiveDecode = selective
        return try Planner.plan(request)
    }

    /// Runs the video lane's source stages and combiner (as `ExportSession.laneWork` builds
    /// them) and collects what they hand the sink.
    func shown(_ plan: ConversionPlan, rate: FrameRate?) throws -> (pictures: [Shown], statistics: LaneStatistics) {
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(lanes: [LaneProgress(track: plan.lanes[0].track.index, mediaType: .video, outputTime: .zero, frames: 0)],
                                      duration: plan.duration, handler: nil)
        let env = LaneEnvironment(readers: plan.makeReaders(), file: plan.source.path, writer: writer, cutsStart: false, cutsEnd: false,
                                  progress: tracker, cancellation: Cancellation(), selectiveDecode: plan.selectiveDecode)
        let inputs = try ExportSession.sourceInputs(plan, lane: 0)
        let make: SequenceCombiner.Maker = { (k: ExportSession.SourceInput) throws(MediaError) -> any SourceStage in
            try VideoSource(env: env, tap: try env.readers.tap(group: k.group, output: k.output), track: k.track,
                            segment: k.segment, frameRate: rate, fillsRange: true)
        }
        let first = try make(try #require(inputs.first))
        let stage = SequenceCombiner(first: first, rest: Array(inputs.dropFirst()), make: make, constantRate: rate != nil,
                                     end: rate.flatMap { TimeMapping.slotCount(to: plan.duration, frameDuration: $0.frameDuration) })
        var pictures: [Shown] = []
        while let f = try stage.next() {
            guard case .picture(let p, let pts, let duration) = f else { continue }
            pictures.append(Shown(source: p.decodedTimestamp, pts: pts, duration: duration, picture: Self.hash(p)))
        }
        let statistics = stage.statistics
        return (pictures, statistics)
    }

    static func hash(_ frame: Frame) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        guard let plane = frame.plane(0) else { return 0 }
        for y in 0..<Int(frame.height) {
            for x in 0..<Int(frame.width) {
                h = (h ^ UInt64(plane[y * frame.lineSize(0) + x])) &* 0x100_0000_01b3
            }
        }
        return h
    }

    /// The frames we show and when (exact), by source tick: media3's, but for the four frames
    /// where we differ on purpose (SlowMotionCorpusTests.sefFlattening).
    static func expected() throws -> [(source: Int64, time: MediaTime)] {
        let info = try #require(try Asset.load(sef).slowMotion())
        let flattening = try SlowMotionFlattening(info, file: sef)
        let frames = try SlowMotionLayer.frames(path: sef)
        var kept: [(Int64, MediaTime)] = []
        for (f, c) in zip(frames, try flattening.choices(frames)) {
            if case .keep(let t) = c { kept.append((try f.pts.converted(to: 90000, rounding: .towardZero).value, t)) }
        }
        return kept.sorted { $0.0 < $1.0 }
    }

    @Test("the plan: the file's two slowed segments between real-time stretches, end to end")
    func planSegments() throws {
        let dir = Scratch()
        let segments = try #require(try plan(dir, rate: nil).composedSegments)
        func ms(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1000) }
        func us(_ v: Int64) -> MediaTime { MediaTime(value: v, timescale: 1_000_000) }
        // The file's end: its audio's (the longest track), exact; the container states 2.152 s, rounded up.
        let end = MediaTime(value: 25821, timescale: 12000)
        let bounds: [MediaTime] = [.zero, ms(88), ms(879), ms(1255), ms(1970), end]
        let ranges = zip(bounds, bounds.dropFirst()).map { TimeRange(start: $0, end: $1) }
        #expect(segments.map(\.sourceRange) == ranges)
        let starts: [MediaTime] = [.zero, us(11000), us(208750), us(255750), us(970750)]
        #expect(segments.map(\.targetStart) == starts)
        #expect(segments.map(\.speed) == ["8", "4", "8", "1", "8"])
        #expect(segments.map(\.slowMotionDivisor) == [1, 2, 1, 8, 1])
        // The last 181.75 ms play 8 times faster than stored.
        #expect(segments.last.map { $0.targetStart + $0.targetDuration } == us(970750) + MediaTime(value: 18175, timescale: 800000))
    }

    @Test("source timing: media3's frames at media3's times (to the output's 1/90000 tick), each shown until the next")
    func sourceTiming() throws {
        let dir = Scratch()
        let (pictures, _) = try shown(try plan(dir, rate: nil), rate: nil)
        let expected = try Self.expected()
        #expect(pictures.map(\.source) == expected.map(\.source))
        for (p, e) in zip(pictures, expected) {
            #expect(p.pts == (try e.time.converted(to: 90000, rounding: .nearest).value), "frame \(p.source)")
        }
        // Against media3's dump itself: every frame we share is within half a tick (+ 1 µs,
        // media3's own rounding) of its time.
        let media3 = Dictionary(uniqueKeysWithValues: SlowMotionCorpusTests.media3.map { ($0.source, $0.us) })
        var shared = 0
        for p in pictures {
            guard let us = media3[p.source] else { continue }
            shared += 1
            let ours: Double = Double(p.pts) / 90000, theirs: Double = Double(us) / 1e6
            let tolerance: Double = 0.5 / 90000 + 1e-6
            #expect(abs(ours - theirs) <= tolerance, "frame \(p.source)")
        }
        #expect(shared == 28 && pictures.count == 31)
        // No gaps between pieces: each picture lasts until the next one starts.
        for (a, b) in zip(pictures, pictures.dropFirst()) { #expect(a.pts + a.duration == b.pts, "after frame \(a.source)") }
    }

    @Test("a 30 fps output: each slot shows the kept frame nearest its time on the phone's timeline")
    func grid() throws {
        let dir = Scratch()
        let rate = FrameRate(frames: 30)
        let p = try plan(dir, rate: rate)
        let (pictures, _) = try shown(p, rate: rate)
        let expected = try Self.expected()
        let times = expected.map(\.time)
        // Slots from 0 while their midpoint is before the timeline's end.
        let slots = (0..<1000).map { Int64($0) }.filter { rate.frameDuration * $0 + rate.frameDuration.half < p.duration }
        #expect(pictures.map(\.pts) == slots)
        for (k, picture) in zip(slots, pictures) {
            #expect(picture.source == expected[nearestFrame(to: rate.frameDuration * k, in: times)].source, "slot \(k)")
        }
    }

    @Test("selective decode on and off show the same pictures; on, the dropped layers' non-reference pictures are not decoded",
          arguments: [nil, FrameRate(frames: 30)])
    func selectiveDecode(rate: FrameRate?) throws {
        let dir = Scratch()
        let on = try shown(try plan(dir, rate: rate, selective: true), rate: rate)
        let off = try shown(try plan(dir, rate: rate, selective: false), rate: rate)
        #expect(on.pictures == off.pictures)
        #expect(off.statistics.packetsSkipped == 0)
        // 5 pieces, each reading the file from its keyframe at 0 on; the pictures of layers the
        // flattening drops that nothing refers to (nal_ref_idc 0) are skipped.
        #expect(on.statistics.packetsSkipped > 0)
        #expect(on.statistics.packetsDecoded < off.statistics.packetsDecoded)
    }

    @Test("pieces read from earlier for their sound's lead-in (4 s before a real-time piece, 2 s before a ÷2 one) show the same pictures, selective decode on or off, whole file or a range",
          arguments: [nil, FrameRate(frames: 30)], [false, true])
    func ledIn(rate: FrameRate?, range: Bool) throws {
        let dir = Scratch()
        let segments = [range ? SegmentRequest(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 3, timescale: 2), slowMotion: .fromSource)
                              : SegmentRequest(slowMotion: .fromSource)]
        let plain = try shown(try plan(dir, rate: rate, selective: false, segments: segments), rate: rate)
        for selective in [false, true] {
            // As a plan with sound has them (CompositionTimeline): the pieces not at the stored speed.
            var p = try plan(dir, rate: rate, selective: selective, segments: segments)
            for (k, s) in p.timeline.segments.enumerated() where !s.scale.isIdentity { p.audioStretches[k] = .spectral }
            #expect(p.readerGroups.map(\.start) != p.timeline.segments.map { $0.sourceRange.start as MediaTime? })
            let led = try shown(p, rate: rate)
            #expect(led.pictures == plain.pictures, "selective \(selective)")
        }
        if !range && rate == nil { #expect(plain.pictures.map(\.source) == (try Self.expected()).map(\.source)) }
    }

    @Test("a segment after a slow-motion one starts where the phone's timeline of it ends, and plays as stored")
    func followed() throws {
        let dir = Scratch()
        let second = MediaTime(seconds: 1)
        let p = try plan(dir, rate: nil, segments: [SegmentRequest(end: second, slowMotion: .fromSource), SegmentRequest(start: second)])
        let segments = try #require(p.composedSegments)
        #expect(segments.map(\.slowMotionDivisor) == [1, 2, 1, nil])
        #expect(segments.map(\.speed) == ["8", "4", "8", "1"])
        // 1 s of the file on the phone's timeline: (1 + 0.791 s of the ÷2 segment once more) / 8.
        let end = MediaTime(value: 223875, timescale: 1_000_000)
        #expect(segments[2].targetStart + segments[2].targetDuration == end)
        #expect(segments[3].targetStart == end && segments[3].sourceRange.start == second)
        let (pictures, _) = try shown(p, rate: nil)
        let phone = try Self.expected().filter { $0.source < 90000 }
        // Then every stored frame from 1 s, at its own pace — but the last (2.1 s), of which
        // FFmpeg's decoder gives no picture (`ffmpeg -i … -fps_mode passthrough` shows 63 too).
        #expect(pictures.map(\.source) == phone.map(\.source) + (30..<63).map { Int64($0) * 3000 })
        let after = try #require(pictures.firstIndex { $0.source == 90000 })
        for (k, picture) in pictures[after...].enumerated() {
            #expect(picture.pts == 20149 + Int64(k) * 3000, "frame \(picture.source)")  // 0.223875 s = 20148.75 ticks, to the nearest
        }
    }

    @Test("a range of the file: the pieces it crosses, the kept frame before its start shown from there")
    func range() throws {
        let dir = Scratch()
        // 0.5 s to 1.5 s: inside the ÷2 segment, the real-time stretch, into the ÷8 segment.
        let p = try plan(dir, rate: nil, segments: [SegmentRequest(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 3, timescale: 2), slowMotion: .fromSource)])
        let segments = try #require(p.composedSegments)
        #expect(segments.map(\.slowMotionDivisor) == [2, 1, 8])
        #expect(segments.first?.targetStart == .zero)
        let (pictures, _) = try shown(p, rate: nil)
        let info = try #require(try Asset.load(Self.sef).slowMotion())
        let flattening = try SlowMotionFlattening(info, file: Self.sef)
        let zero = flattening.outputTime(MediaTime(value: 1, timescale: 2))
        let inside = try Self.expected().filter { $0.source >= 45000 && $0.source < 135000 }
        // 0.5 s (45000) is kept (layer 0): no lead-in is needed.
        #expect(inside.first?.source == 45000)
        #expect(pictures.map(\.source) == inside.map(\.source))
        for (p, e) in zip(pictures, inside) {
            #expect(p.pts == (try (e.time - zero).converted(to: 90000, rounding: .nearest).value), "frame \(p.source)")
        }
        // The last picture ends at the range's end on the timeline.
        let end = flattening.outputTime(MediaTime(value: 3, timescale: 2)) - zero
        #expect(pictures.last.map { $0.pts + $0.duration } == (try end.converted(to: 90000, rounding: .nearest).value))
    }
}
