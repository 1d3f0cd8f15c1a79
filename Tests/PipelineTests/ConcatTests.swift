import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Three files end to end — different frame rates (25, 29.97, 60), sizes and sound — on one
/// timeline: every output frame is the right frame of the right file, each boundary lands on the
/// slot and sample the rational sum says, and each file's sound stays with its pictures.
@Suite("Concatenation of several files")
struct ConcatTests {
    /// A clip whose frame i carries stamp `base + i`, with a 1 kHz burst starting exactly at frame
    /// `burstFrame`'s time (sound at `sampleRate`, to the end of its last frame).
    struct Clip {
        var width: Int, height: Int, rate: FrameRate, frames: Int, base: Int, burstFrame: Int
        var sampleRate = 48000
        var rotation = 0

        var duration: MediaTime { rate.frameDuration * Int64(frames) }
        var burstTime: MediaTime { rate.frameDuration * Int64(burstFrame) }

        func make(_ path: String) throws {
            var video = GeneratedVideoFormat(width: width, height: height, frameRate: rate)
            video.gop = 12
            video.rotation = rotation
            let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat(sampleRate: sampleRate))
            let burst = burstTime.seconds, sr = Double(sampleRate)
            func tone(_ n: Int64) -> Float {
                let t = Double(n) / sr
                return t >= burst && t < burst + 0.08 ? Float(0.5 * sin(2 * Double.pi * 1000 * (t - burst))) : 0
            }
            var done = 0
            for i in 0..<frames {
                try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: base + i, into: $0) }
                let until = Int(((rate.frameDuration * Int64(i + 1)).seconds * sr).rounded())
                if until > done {
                    try s.appendAudio(count: until - done) { _, n in tone(n) }
                    done = until
                }
            }
            try s.finish()
        }
    }

    static let clips = [
        Clip(width: 320, height: 180, rate: FrameRate(frames: 25), frames: 50, base: 1000, burstFrame: 25),
        Clip(width: 480, height: 270, rate: FrameRate(frames: 30000, seconds: 1001), frames: 90, base: 2000, burstFrame: 60),
        Clip(width: 640, height: 360, rate: FrameRate(frames: 60), frames: 120, base: 3000, burstFrame: 60, sampleRate: 44100),
    ]

    /// The plan of `paths` end to end (each whole), video at the composition's reconciled settings.
    static func plan(_ paths: [String], out: String) throws -> ConversionPlan {
        var req = ConversionRequest(source: paths[0], output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.sources = Array(paths.dropFirst())
        req.timeline = paths.indices.map { SegmentRequest(source: $0) }
        return try Planner.plan(req)
    }

    @Test("25 + 29.97 + 60 fps, three sizes: every output frame shows the frame the rational timeline says; bursts with their pictures; exact lengths")
    func threeClips() throws {
        let dir = Scratch()
        let paths = Self.clips.indices.map { dir.file("clip\($0).mp4") }
        for (c, p) in zip(Self.clips, paths) { try c.make(p) }
        let out = dir.file("joined.mp4")
        let plan = try Self.plan(paths, out: out)

        // Reconciled: the largest picture, the highest rate, the highest sample rate.
        guard case .video(let v) = plan.lanes[0].kind, case .audio(let a) = plan.lanes[1].kind else {
            Issue.record("lanes: \(plan.lanes.map(\.kind))"); return
        }
        #expect(v.width == 640 && v.height == 360)
        #expect(v.frameRate == FrameRate(frames: 60))
        #expect(v.decision("frame-rate")?.rule == "composition.frame-rate")
        #expect(a.sampleRate == 48000)
        let ends = Self.clips.reduce(into: [MediaTime.zero]) { $0.append($0.last! + $1.duration) }
        #expect(plan.duration == ends[3])
        #expect(ends[3] == MediaTime(value: 7003, timescale: 1000))

        let result = try ExportSession(plan: plan).run()

        // Pictures: slot n (at n/60 s) of segment k shows that clip's frame nearest to
        // n/60 − (segment start), ties to the earlier: ⌈(n/60 − start)·rate − 1/2⌉.
        let fps = FrameRate(frames: 60)
        let slotStarts = ends.map { MediaTime.count(of: fps.frameDuration, from: .zero, to: $0, rounding: .up)! }
        #expect(slotStarts == [0, 120, 301, 421])
        // The last slot (7.0 s) would end past 7.003 s by more than half a slot: there are 420.
        #expect(plan.composedSegments?.map(\.frames) == [120, 181, 119])
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var n: Int64 = 0
        var mismatches: [String] = []
        while let picture = try reader.nextPicture() {
            #expect(picture.pts == fps.frameDuration * n, "output frame \(n) at \(picture.pts)")
            let k = slotStarts.lastIndex { $0 <= n }!
            let clip = Self.clips[k]
            let sourceTime = fps.frameDuration * n - ends[k]
            let half = MediaTime(value: clip.rate.frameDuration.value, timescale: clip.rate.frameDuration.timescale * 2)
            let frame = min(Int64(clip.frames - 1), max(0, MediaTime.count(of: clip.rate.frameDuration, from: half, to: sourceTime, rounding: .up)!))
            // The clip's own picture fills the 16:9 render (no bars: every clip is 16:9).
            let stamp = picture.stamp
            if stamp != clip.base + Int(frame) { mismatches.append("frame \(n): \(stamp.map(String.init) ?? "none"), want \(clip.base + Int(frame))") }
            n += 1
        }
        #expect(n == 420)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")

        // Sound: exactly the timeline's samples; each burst at its frame's place, within a frame.
        #expect(result.lanes[1].unitsOut == Int(TimeMapping.samplePosition(atOrAfter: ends[3], rate: 48000)!))
        let onsets = try Media.burstOnsets(out)
        let expected = Self.clips.indices.map { (ends[$0] + Self.clips[$0].burstTime).seconds }
        #expect(onsets.count == 3, "\(onsets)")
        for (onset, want) in zip(onsets, expected) {
            #expect(abs(onset - want) <= 1.0 / 60, "burst at \(onset) s, its picture at \(want) s")
        }
    }

    @Test("a file without sound in the middle: its segment is silence of its length, the sound after it lands where the sum says")
    func silentMiddle() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), c = dir.file("c.mp4")
        try Self.clips[0].make(a)
        // b: pictures only, 1 s at 30 fps.
        let s = try FrameSource(path: b, video: GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30)), audio: nil)
        for i in 0..<30 { try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(i)) { TestPattern.draw(index: 5000 + i, into: $0) } }
        try s.finish()
        try Self.clips[0].make(c)
        let out = dir.file("out.mp4")
        let plan = try Self.plan([a, b, c], out: out)
        #expect(plan.duration == MediaTime(seconds: 5))
        #expect(plan.chains[1].inputs.map(\.segment) == [0, 2], "the audio lane reads no sound from b")
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 5 * 48000)
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 2, "\(onsets)")
        for (onset, want) in zip(onsets, [1.0, 4.0]) { #expect(abs(onset - want) <= 1.0 / 60, "burst at \(onset) s") }
        let stamps = try Media.stamps(out)
        #expect(stamps.count == 5 * 30)
        #expect(stamps[59].stamp == 1049 && stamps[60].stamp == 5000 && stamps[89].stamp == 5029 && stamps[90].stamp == 1000)
    }

    @Test("a file that is missing or not media is named in the error, and nothing is written")
    func badFileNamed() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4")
        try Self.clips[0].make(a)
        let missing = dir.file("nope.mp4")
        #expect(throws: MediaError.self) { try Self.plan([a, missing], out: dir.file("o.mp4")) }
        do { _ = try Self.plan([a, missing], out: dir.file("o.mp4")) } catch let e as MediaError {
            #expect(e.file == missing)
            #expect(e.kind == .inputMissing)
        }
        #expect(dir.contents == ["a.mp4"])
    }

    @Test("a portrait phone clip (stored landscape, turned 90°) after a landscape one: drawn upright and pillarboxed, black bars, no display matrix")
    func rotatedClip() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), d = dir.file("d.mp4")
        let landscape = Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 1000, burstFrame: 10)
        var portrait = Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 2000, burstFrame: 10)
        portrait.rotation = 90
        try landscape.make(a)
        try portrait.make(d)
        let out = dir.file("out.mp4")
        let plan = try Self.plan([a, d], out: out)
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("no video lane"); return }
        #expect(v.width == 320 && v.height == 180, "the first of two equally large pictures")
        try ExportSession(plan: plan).run()
        #expect(try Asset.load(out).track(.video, ordinal: 0)?.format.rotation == 0)

        let rect = PictureFitter.placement(source: (320, 180), rotation: 90, pixelAspect: .square, render: (320, 180))
        #expect(rect.width < rect.height && rect.height == 180, "\(rect)")
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0
        while let p = try reader.nextPicture() {
            if k < 30 {
                #expect(p.stamp == 1000 + k, "output frame \(k)")
            } else {
                // Turn the placed rectangle back a quarter turn to read the stamp as stored:
                // stored (x, y) is displayed at column (w − 1 − y), row x.
                let (x0, y0, w, h) = (Int(rect.x), Int(rect.y), Int(rect.width), Int(rect.height))
                var stored = [UInt8](repeating: 0, count: w * h)
                for y in 0..<w { for x in 0..<h { stored[y * h + x] = p.luma[(y0 + x) * p.width + x0 + (w - 1 - y)] } }
                let stamp = stored.withUnsafeBufferPointer { TestPattern.read(luma: $0, width: h, height: w, lineSize: h) }
                #expect(stamp == 2000 + k - 30, "output frame \(k): upright")
                // The bars left and right of it are black.
                let bars = (0..<p.height).allSatisfy { row in
                    (0..<max(0, x0 - 2)).allSatisfy { p.luma[row * p.width + $0] <= 20 }
                        && ((x0 + w + 2)..<p.width).allSatisfy { p.luma[row * p.width + $0] <= 20 }
                }
                #expect(bars, "output frame \(k): black bars")
            }
            k += 1
        }
        #expect(k == 60)
    }
}

/// An audio list of its own: the video list's pictures with another file's sound.
@Suite("A composition's own audio list")
struct AudioListTests {
    @Test("pictures of a, then b; the sound of c from 0.5 s for 2 s: no sound of a or b, c's burst where c's list puts it, the timeline as long as its longer list")
    func ownAudioList() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), c = dir.file("c.mp4")
        try ConcatTests.Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 1000, burstFrame: 10).make(a)
        try ConcatTests.Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 30, base: 2000, burstFrame: 10).make(b)
        // c: 3 s, its burst at 1.5 s (frame 45).
        try ConcatTests.Clip(width: 320, height: 180, rate: FrameRate(frames: 30), frames: 90, base: 3000, burstFrame: 45).make(c)
        var req = ConversionRequest(source: a, output: dir.file("o.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.sources = [b, c]
        var sound = SegmentRequest(source: 2, start: MediaTime(seconds: 1), end: MediaTime(seconds: 3), at: MediaTime(value: 1, timescale: 2))
        sound.list = .audio
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1), sound]
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(value: 5, timescale: 2))
        // In the order they play: a at 0, c's sound at 0.5 s, b at 1 s.
        #expect(plan.chains[0].inputs.map(\.segment) == [0, 2])
        #expect(plan.chains[1].inputs.map(\.segment) == [1])
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 120_000)
        let stamps = try Media.stamps(dir.file("o.mp4"))
        #expect(stamps.map(\.stamp) == (Array(1000..<1030) + Array(2000..<2030) + Array(repeating: 0, count: 15)).map { Optional($0) })
        // c's burst (1.5 s of c) plays 0.5 s into its segment, which starts at 0.5 s: at 1.0 s.
        let onsets = try Media.burstOnsets(dir.file("o.mp4"))
        #expect(onsets.count == 1, "\(onsets)")
        #expect(abs((onsets.first ?? 0) - 1.0) <= 1.0 / 30, "\(onsets)")
    }

    @Test("many short segments in both lists: the run ends (no lane waits on another's reader for ever), every count exact")
    func manySegmentsBothLists() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4")
        try ConcatTests.Clip(width: 160, height: 96, rate: FrameRate(frames: 30), frames: 300, base: 1000, burstFrame: 150).make(a)
        var req = ConversionRequest(source: a, output: dir.file("o.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        let tenth = MediaTime(value: 1, timescale: 10)
        // Pictures: 0.1 s pieces of the first half, end to end (5 s); sound: 0.2 s pieces of the second half (5 s).
        let pictures = (0..<50).map { SegmentRequest(start: tenth * Int64($0), end: tenth * Int64($0 + 1)) }
        let sound = (0..<25).map { k -> SegmentRequest in
            var r = SegmentRequest(start: MediaTime(seconds: 5) + tenth * Int64(2 * k), end: MediaTime(seconds: 5) + tenth * Int64(2 * k + 2))
            r.list = .audio
            return r
        }
        req.timeline = pictures + sound
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 5))
        let result = try ExportSession(plan: plan).run()
        #expect(result.lanes[1].unitsOut == 5 * 48000)
        #expect(try Media.stamps(dir.file("o.mp4")).map(\.stamp) == (1000..<1150).map { Optional($0) })
    }
}

/// A segment that asks for more of a file than it holds plays to the file's end, and the plan says so.
@Suite("A segment past its file's end")
struct SegmentPastEndTests {
    @Test("end: 5s of a 1 s file: a changed warning naming the file, and the next segment starts where the file ended")
    func pastTheEnd() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try ConcatTests.Clip(width: 160, height: 96, rate: FrameRate(frames: 30), frames: 30, base: 1000, burstFrame: 10).make(a)
        try ConcatTests.Clip(width: 160, height: 96, rate: FrameRate(frames: 30), frames: 30, base: 2000, burstFrame: 10).make(b)
        var req = ConversionRequest(source: a, output: dir.file("o.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = [b]
        req.timeline = [SegmentRequest(source: 0, end: MediaTime(seconds: 5)), SegmentRequest(source: 1)]
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 2))
        let notice = plan.notices.first { $0.item == "composition.segment.1" }
        #expect(notice?.kind == .changed)
        #expect(notice?.message == "segment 1 asks for \(a) up to 5.000s, but the file ends at 1.000s: it plays to the file's end")
        #expect(plan.composedSegments?.map(\.targetStart) == [.zero, MediaTime(seconds: 1)])
    }
}
