import Foundation
@testable import Pipeline
import Recipe
import Synchronization
import Testing

/// Hostile cases of compositions of several files: outputs that name another of the files,
/// pictures that need tone mapping beside ones that do not, sound that appears only later or
/// changes rate in the middle, cancellation in a later segment.
@Suite("Compositions of several files: hostile cases")
struct CompositionReviewTests {
    typealias Clip = ConcatTests.Clip

    static let a = Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 1000, burstFrame: 10)
    static let b = Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 2000, burstFrame: 10)

    static func request(_ paths: [String], out: String) -> ConversionRequest {
        var req = ConversionRequest(source: paths[0], output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.sources = Array(paths.dropFirst())
        req.timeline = paths.indices.map { SegmentRequest(source: $0) }
        return req
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("an output path naming another of the composition's files is refused when planned (overwrite or not), and that file is untouched")
    func outputIsAnotherSource() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        let before = Self.bytes(b)
        var req = Self.request([a, b], out: b)
        req.overwrite = true
        #expect(throws: MediaError.self) { try Planner.plan(req) }
        do { _ = try Planner.plan(req) } catch let e {
            #expect(e.kind == .cannotCreateOutput)
            #expect(e.message == "is the source \(b) (the same file): the output may never replace it; name another output")
        }
        #expect(Self.bytes(b) == before)
    }

    @Test("the check when the run starts covers every file of the composition: an output made another file's name (a hard link) after planning is refused, nothing touched")
    func runRechecksEverySource() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        var req = Self.request([a, b], out: out)
        req.overwrite = true
        let plan = try Planner.plan(req)
        // Between plan and run the output's name comes to name b.
        #expect(link(b, out) == 0)
        let before = Self.bytes(b)
        #expect(throws: MediaError.self) { try ExportSession(plan: plan).run() }
        do { try ExportSession(plan: plan).run() } catch let e {
            #expect(e.kind == .cannotCreateOutput)
            #expect(e.file == out)
        }
        #expect(Self.bytes(b) == before)
        #expect(Set(dir.contents) == ["a.mp4", "b.mp4", "out.mp4"])
    }

    @Test("48 kHz, then 44.1 kHz, then 48 kHz again: exactly the timeline's samples, each burst with its picture, the plan's counts add up")
    func sampleRateChangesTwice() throws {
        let dir = Scratch()
        var mid = Self.b
        mid.sampleRate = 44100
        mid.frames = 37  // 1.2333 s: a boundary off the sample grid of both rates
        let clips = [Self.a, mid, Self.a]
        let paths = clips.indices.map { dir.file("c\($0).mp4") }
        for (c, p) in zip(clips, paths) { try c.make(p) }
        let out = dir.file("out.mp4")
        let plan = try Planner.plan(Self.request(paths, out: out))
        let result = try ExportSession(plan: plan).run()
        let total = TimeMapping.samplePosition(atOrAfter: plan.duration, rate: 48000)!
        #expect(result.lanes[1].unitsOut == Int(total))
        #expect(plan.composedSegments?.compactMap(\.samples).reduce(0, +) == total)
        let ends = clips.reduce(into: [MediaTime.zero]) { $0.append($0.last! + $1.duration) }
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 3, "\(onsets)")
        for (k, onset) in onsets.enumerated() where k < 3 {
            let want = (ends[k] + clips[k].burstTime).seconds
            #expect(abs(onset - want) <= 1.0 / 30, "burst \(k) at \(onset) s, its picture at \(want) s")
        }
    }

    @Test("the first file has no sound, the second has: silence for the first, the second's burst at its picture, exact length")
    func soundOnlyInLaterFile() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        let s = try FrameSource(path: a, video: GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30)), audio: nil)
        for i in 0..<30 { try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(i)) { TestPattern.draw(index: 5000 + i, into: $0) } }
        try s.finish()
        try Self.b.make(b)
        let plan = try Planner.plan(Self.request([a, b], out: out))
        #expect(plan.chains[1].inputs.map(\.segment) == [1])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 2 * 48000)
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 1 && abs((onsets.first ?? 0) - (1 + 10.0 / 30)) <= 1.0 / 30, "\(onsets)")
        let stamps = try Media.stamps(out).map(\.stamp)
        #expect(stamps.count == 60 && stamps.first == 5000 && stamps[30] == 2000 && stamps.last == 2029)
    }

    @Test("one file twice around another, and a gap (at:) before the last: every frame from the right file, black in the gap, plan's frames per segment")
    func sameFileTwiceWithGap() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        var req = Self.request([a, b], out: out)
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1),
                        SegmentRequest(source: 0, at: MediaTime(seconds: 3))]
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 4))
        #expect(plan.composedSegments?.map(\.frames) == [30, 30, 30])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 4 * 48000)
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var stamps: [Int?] = []
        while let p = try reader.nextPicture() {
            // The gap's pictures are black (no stamp to read).
            stamps.append(p.luma.allSatisfy { $0 <= 20 } ? nil : p.stamp)
        }
        let want: [Int?] = (0..<30).map { 1000 + $0 } + (0..<30).map { 2000 + $0 } + Array(repeating: nil, count: 30) + (0..<30).map { 1000 + $0 }
        #expect(stamps == want)
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 3, "\(onsets)")
        for (onset, t) in zip(onsets, [1.0 / 3, 4.0 / 3, 3 + 1.0 / 3]) { #expect(abs(onset - t) <= 1.0 / 30, "burst at \(onset), want \(t)") }
    }

    @Test("cancelled during a later segment: .cancelled, nothing left behind; a reading asked for after the stop throws")
    func cancelInLaterSegment() throws {
        let dir = Scratch()
        var long = Self.b
        long.frames = 600
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try Self.a.make(a)
        try long.make(b)
        var req = Self.request([a, b], out: dir.file("out.mp4"))
        req.tracks[0] = TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "veryslow"])))
        let plan = try Planner.plan(req)
        let session = ExportSession(plan: plan)
        let once = Mutex(false)
        #expect(throws: MediaError.cancelled(file: a)) {
            try session.run { p in
                // Well into the second file.
                if p.fraction > 0.2, once.withLock({ let was = $0; $0 = true; return !was }) { session.cancel() }
            }
        }
        #expect(Set(dir.contents) == ["a.mp4", "b.mp4"])

        let pool = plan.makeReaders()
        _ = try pool.tap(group: 0, output: 0)
        pool.stop(.cancelled(file: a))
        #expect(throws: MediaError.cancelled(file: a)) { _ = try pool.tap(group: 1, output: 0) }
    }

    @Test("a later file cut short: the error names that file (its track, a time), not the first; nothing is written")
    func truncatedLaterFileNamed() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("cut.mp4"), out = dir.file("out.mp4")
        try Self.a.make(a)
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(b, video: v, frames: 300, audio: true)
        let size = try FileManager.default.attributesOfItem(atPath: b)[.size] as! Int
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: b))
        try h.truncate(atOffset: UInt64(size * 6 / 10))
        try h.close()
        let plan = try Planner.plan(Self.request([a, b], out: out))
        do {
            try ExportSession(plan: plan).run()
            Issue.record("a truncated file converted")
        } catch let e {
            #expect(e.file == b, "\(e)")
            #expect(e.track != nil && e.time != nil, "\(e)")
            #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(e)")
        }
        #expect(Set(dir.contents) == ["a.mp4", "cut.mp4"])
    }

    @Test("long files, sound only in the second (shown twice): no lane waits forever on another's reader, counts exact")
    func longFilesSoundMissingFirst() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), c = dir.file("c.mp4"), out = dir.file("out.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 90, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        // Each well past a reader's 96-packet buffers.
        try Media.make(a, video: v, frames: 400)
        try Media.make(b, video: v, frames: 400, audio: true)
        try Media.make(c, video: v, frames: 400)
        var req = Self.request([a, b, c], out: out)
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1), SegmentRequest(source: 2), SegmentRequest(source: 1)]
        req.tracks[0] = TrackRequest(.type(.video, 0), .video(.fast()))
        let plan = try Planner.plan(req)
        #expect(plan.chains[1].inputs.map(\.segment) == [1, 3])
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<ConversionResult, MediaError>?>(nil)
        DispatchQueue.global().async {
            do throws(MediaError) { let r = try ExportSession(plan: plan).run(); outcome.withLock { $0 = .success(r) } } catch { outcome.withLock { $0 = .failure(error) } }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 120) == .success, "the run never finished")
        guard case .success(let r)? = outcome.withLock({ $0 }) else { Issue.record("\(String(describing: outcome.withLock { $0 }))"); return }
        #expect(r.lanes[0].unitsOut == 1600)
        #expect(r.lanes[1].unitsOut == Int(TimeMapping.samplePosition(atOrAfter: plan.duration, rate: 48000)!))
        let onsets = try Media.burstOnsets(out)
        // b's markers (frame 30, 90, …) in its two segments, at 400/30 s and 1200/30 s.
        let want = [400.0, 1200.0].flatMap { start in stride(from: 30, to: 400, by: 60).map { (start + Double($0)) / 30 } }
        #expect(onsets.count == want.count, "\(onsets)")
        for (o, w) in zip(onsets, want) { #expect(abs(o - w) <= 1.0 / 30, "burst at \(o), want \(w)") }
    }

    @Test("10-bit HEVC next to 8-bit H.264, in both orders: every frame from the right file")
    func tenBitBeside8Bit() throws {
        let dir = Scratch()
        let ten = dir.file("ten.mp4"), eight = dir.file("eight.mp4")
        var v10 = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30))
        v10.codec = .hevc
        v10.pixelFormat = "yuv420p10le"
        v10.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: ten, video: v10, audio: nil)
        for i in 0..<30 { try s.appendPicture(at: v10.frameRate.frameDuration * Int64(i)) { TestPattern.draw(index: 7000 + i, into: $0) } }
        try s.finish()
        try Self.b.make(eight)
        for (order, bases) in [([ten, eight], [7000, 2000]), ([eight, ten], [2000, 7000])] {
            let out = dir.file("out-\(bases[0]).mp4")
            try ExportSession(plan: try Planner.plan(Self.request(order, out: out))).run()
            let stamps = try Media.stamps(out).map(\.stamp)
            let want: [Int?] = (0..<30).map { bases[0] + $0 } + (0..<30).map { bases[1] + $0 }
            #expect(stamps == want, "\(order.map { FilePaths.name(of: $0) })")
        }
    }

    @Test("a leading gap off the frame grid (at: 0.51s) before two files: black slots, then each slot the nearest frame of its file; plan's frames and the output's agree")
    func leadingGapOffGrid() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        var req = Self.request([a, b], out: out)
        let start = MediaTime(value: 51, timescale: 100)
        req.timeline = [SegmentRequest(source: 0, at: start), SegmentRequest(source: 1)]
        let plan = try Planner.plan(req)
        let d = FrameRate(frames: 30).frameDuration
        let total = try #require(TimeMapping.slotCount(to: plan.duration, frameDuration: d))
        #expect(total == 75)
        #expect(plan.composedSegments?.map(\.frames) == [30, 29])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[0].unitsOut == 75)
        #expect(result.lanes[1].unitsOut == Int(TimeMapping.samplePosition(atOrAfter: plan.duration, rate: 48000)!))
        let starts = [start, start + Self.a.duration]
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var n: Int64 = 0
        var wrong: [String] = []
        while let p = try reader.nextPicture() {
            let t = d * n
            let got = p.luma.allSatisfy { $0 <= 20 } ? nil : p.stamp
            var want: Int?
            if let k = starts.lastIndex(where: { $0 <= t }) {
                let clip = [Self.a, Self.b][k]
                let half = MediaTime(value: clip.rate.frameDuration.value, timescale: clip.rate.frameDuration.timescale * 2)
                let f = min(Int64(clip.frames - 1), max(0, MediaTime.count(of: clip.rate.frameDuration, from: half, to: t - starts[k], rounding: .up)!))
                want = clip.base + Int(f)
            }
            if got != want { wrong.append("slot \(n): \(String(describing: got)), want \(String(describing: want))") }
            n += 1
        }
        #expect(n == 75)
        #expect(wrong.isEmpty, "\(wrong.prefix(8))")
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 2, "\(onsets)")
        for (o, w) in zip(onsets, [0.51 + 1.0 / 3, 1.51 + 1.0 / 3]) { #expect(abs(o - w) <= 1.0 / 60, "burst at \(o), want \(w)") }
    }

    @Test("a later file whose video cannot be decoded is refused when planned, naming that file, as a single file is")
    func undecodableLaterFile() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        // b's sample entry says a codec nobody knows.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: b)))
        let avcC = Array("avcC".utf8), avc1 = Array("avc1".utf8)
        let c = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == avcC })
        let e = try #require((0..<c).last { Array(bytes[$0..<$0 + 4]) == avc1 })
        bytes.replaceSubrange(e..<e + 4, with: Array("zzzz".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: b))
        #expect(throws: MediaError(.unsupported, "the video codec 'none' cannot be decoded by this FFmpeg build", file: b, track: 0)) {
            try Planner.plan(Self.request([a, b], out: dir.file("out.mp4")))
        }
        #expect(dir.contents.sorted() == ["a.mp4", "b.mp4"])
    }

    @Test("a later file gone bad between plan and run: the error names it, with no time of the file before it")
    func laterFileReplacedAfterPlan() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.a.make(a)
        try Self.b.make(b)
        let plan = try Planner.plan(Self.request([a, b], out: out))
        try Data("not media".utf8).write(to: URL(fileURLWithPath: b))
        do {
            try ExportSession(plan: plan).run()
            Issue.record("converted")
        } catch let e {
            #expect(e.file == b, "\(e)")
            // a's last frame time (0.967 s) is no place in b.
            #expect(e.time == nil, "\(e)")
        }
        #expect(dir.contents.sorted() == ["a.mp4", "b.mp4"])
    }

    @Test("200 segments taking turns between two files: at most three readers open at once (counted by the pool), every segment's first frame right")
    func readersLetGo() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        var v = GeneratedVideoFormat(width: 96, height: 64, frameRate: FrameRate(frames: 30))
        v.gop = 15
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(a, video: v, frames: 300, audio: true)
        try Media.make(b, video: v, frames: 300, audio: true)
        var req = Self.request([a, b], out: out)
        req.tracks[0] = TrackRequest(.type(.video, 0), .video(.fast()))
        let third = MediaTime(value: 1, timescale: 10)
        // Segment k: 0.1 s of file k % 2, from (k / 2) · 0.1 s.
        req.timeline = (0..<200).map { k in SegmentRequest(source: k % 2, start: third * Int64(k / 2), end: third * Int64(k / 2 + 1)) }
        let plan = try Planner.plan(req)
        // Counted by the pool, not by the process's open files (other tests run beside this one).
        let session = ExportSession(plan: plan)
        let result = try session.run()
        #expect(session.mostOpenReaders >= 1 && session.mostOpenReaders <= 3, "\(session.mostOpenReaders) readers open at once")
        #expect(result.lanes[0].unitsOut == 600)
        #expect(result.lanes[1].unitsOut == 20 * 48000)
        // Segment k's three slots show frames 3·(k/2) … of its file (both files carry the same stamps).
        let stamps = try Media.stamps(out).map(\.stamp)
        let want: [Int?] = (0..<600).map { n in 3 * (n / 6) + n % 3 }
        #expect(stamps == want)
    }

    @Test("cancelled among 200 short segments (a lane waiting to open a reader ahead): .cancelled at once, nothing left behind")
    func cancelWhileWaitingAhead() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        var v = GeneratedVideoFormat(width: 96, height: 64, frameRate: FrameRate(frames: 30))
        v.gop = 15
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(a, video: v, frames: 300, audio: true)
        try Media.make(b, video: v, frames: 300, audio: true)
        var req = Self.request([a, b], out: dir.file("out.mp4"))
        // A slow video lane: the sound lane runs ahead and waits for it.
        req.tracks[0] = TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "veryslow"])))
        let tenth = MediaTime(value: 1, timescale: 10)
        req.timeline = (0..<200).map { k in SegmentRequest(source: k % 2, start: tenth * Int64(k / 2), end: tenth * Int64(k / 2 + 1)) }
        let session = ExportSession(plan: try Planner.plan(req))
        let cancelledAt = Mutex<UInt64>(0)
        let once = Mutex(false)
        #expect(throws: MediaError.cancelled(file: a)) {
            try session.run { p in
                if p.fraction > 0.1, once.withLock({ let was = $0; $0 = true; return !was }) {
                    cancelledAt.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
                    session.cancel()
                }
            }
        }
        let latency = Double(DispatchTime.now().uptimeNanoseconds - cancelledAt.withLock { $0 }) / 1e9
        #expect(cancelledAt.withLock { $0 } > 0 && latency < 2, "took \(latency) s to stop")
        #expect(Set(dir.contents) == ["a.mp4", "b.mp4"])
    }
}
