import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition's scaled segments get their sound stretched by their `audio-stretch:` method:
/// exact sample counts from the timeline, pitch kept or following, sounds where their pictures are.
/// On plans built directly (the timeline and methods a recipe would give), run for real.
@Suite("Composition sound stretch: counts, pitch and sync of scaled segments", .serialized)
struct CompositionStretchTests {
    typealias S = StretchSignal

    /// 3 s of frame-stamped 240 fps pictures with stereo sound at `rate`: a 0.08 s 1 kHz burst at
    /// 0.5 s, a steady 1 kHz tone from 1.25 to 1.75 s (inside the second that gets slowed) and a
    /// burst at 2.5 s (frame 600).
    static func makeSource(_ path: String, rate: Int = 48000) throws {
        let fps = FrameRate(frames: 240)
        let s = try FrameSource(path: path, video: .droppableH264(width: 160, height: 96, frameRate: fps),
                                audio: GeneratedAudioFormat(sampleRate: rate))
        func value(_ n: Int64) -> Float {
            let t = Double(n) / Double(rate)
            let on = (t >= 0.5 && t < 0.58) || (t >= 1.25 && t < 1.75) || (t >= 2.5 && t < 2.58)
            return on ? Float(0.5 * sin(2 * Double.pi * 1000 * t)) : 0
        }
        var done = 0
        for i in 0..<720 {
            try s.appendPicture(at: fps.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            let until = (i + 1) * rate / 240
            try s.appendAudio(count: until - done) { _, n in value(n) }
            done = until
        }
        try s.finish()
    }

    /// The plan of `src` (30 fps pictures unless `audioOnly`, sound at `outputRate` or the
    /// source's) with its timeline replaced by `pieces` end to end, each scaled one stretched by `method`.
    static func plan(_ src: String, _ out: String, pieces: [(TimeRange, TimeScale)], method: AudioStretch,
                     audioOnly: Bool = false, outputRate: Int? = nil) throws -> ConversionPlan {
        var tracks = [TrackRequest(.type(.audio, 0), .audio(AudioSettings(sampleRate: outputRate)))]
        if !audioOnly { tracks.insert(TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30)))), at: 0) }
        let base = try Planner.plan(ConversionRequest(source: src, output: out, tracks: tracks))
        var plan = base.composed(try TimeMapping.sequence(pieces.map { (0, nil, $0.0, $0.1) }))
        for (i, p) in pieces.enumerated() where !p.1.isIdentity { plan.audioStretches[i] = method }
        return plan
    }

    static func seconds(_ a: Double, _ b: Double) -> TimeRange {
        TimeRange(start: MediaTime(value: Int64(a * 240), timescale: 240), end: MediaTime(value: Int64(b * 240), timescale: 240))
    }

    static let slow = TimeScale(8, 1)!

    /// The first audio track decoded to mono, sample i at i / rate of the output's timeline.
    static func sound(_ path: String) throws -> (samples: [Float], rate: Int) {
        let r = try SampleReader(path: path, track: .type(.audio, 0))
        var out: [Float] = [], rate = 0
        while let a = try r.nextAudio() {
            rate = a.sampleRate
            if out.isEmpty { out = Array(repeating: 0, count: max(0, Int((a.pts.seconds * Double(rate)).rounded()))) }
            out += a.samples
        }
        return (out, rate)
    }

    /// The first 10 ms block from `from` seconds on whose level is half the steady tone's (`level`).
    static func onset(_ x: [Float], rate: Int, from: Double, level: Double) -> Double? {
        let block = rate / 100
        let start = Int(from * Double(rate))
        return stride(from: start, to: x.count - block, by: block)
            .first { S.rms(x[$0..<($0 + block)]) > level / 2 }
            .map { Double($0) / Double(rate) }
    }

    @Test("1–2 s at 1/8 speed in a 30 fps render: 10 s of sound to the sample, the slowed tone's pitch kept (÷8 for varispeed), its onset and the burst after it on their pictures",
          arguments: [AudioStretch.spectral, .timeDomain, .varispeed])
    func slowedSecond(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try Self.makeSource(src)
        let out = dir.file("slow.mp4")
        let plan = try Self.plan(src, out, pieces: [(Self.seconds(0, 1), .identity), (Self.seconds(1, 2), Self.slow), (Self.seconds(2, 3), .identity)],
                                 method: method)
        let result = try ExportSession(plan: plan).run()
        // 1 + 8 + 1 s: the timeline's rational sum, to the sample.
        #expect(result.lanes[1].unitsOut == 10 * 48000)

        let (x, rate) = try Self.sound(out)
        #expect(rate == 48000)
        // The tone (source 1.25–1.75 s) plays from 3 to 7 s: its middle 2 s hold its pitch.
        let hz = S.dominantFrequency(x[(4 * rate)..<(6 * rate)], rate: rate, low: 40, high: 4000)
        let want = method == .varispeed ? 125.0 : 1000.0
        #expect(abs(hz - want) <= want * 0.03, "\(method.rawValue): \(hz) Hz")
        let level = S.rms(x[(4 * rate)..<(6 * rate)])
        #expect(level > 0.1, "\(method.rawValue): rms \(level)")
        // Its onset: source 1.25 s at 1 + 0.25 × 8 = 3 s, within a frame (every method: 3.00 s;
        // time-domain was 3.05 s with chained atempo; docs/engine-audio-stretch.md).
        let tone = try #require(Self.onset(x, rate: rate, from: 2.5, level: level))
        #expect(abs(tone - 3) <= 1.0 / 30, "\(method.rawValue): tone starts at \(tone) s")
        // The burst at source 2.5 s after the slowed second: at 9.5 s, with frame 600.
        let burst = try #require(Self.onset(x, rate: rate, from: 9.2, level: level))
        #expect(abs(burst - 9.5) <= 1.0 / 30, "\(method.rawValue): burst at \(burst) s")
        let stamps = try Media.stamps(out)
        #expect(stamps.count == 300)
        let shown = stamps.min { abs($0.pts.seconds - burst) < abs($1.pts.seconds - burst) }?.stamp
        #expect(shown == 600, "\(method.rawValue): the burst at \(burst) s shows frame \(shown ?? -1)")
        // And the burst before it, at 0.5 s.
        let first = try #require(Self.onset(x, rate: rate, from: 0, level: level))
        print("composition stretch \(method.rawValue): \(hz) Hz, tone at \(tone) s, bursts at \(first) and \(burst) s")
        #expect(abs(first - 0.5) <= 1.0 / 30, "\(method.rawValue): first burst at \(first) s")
    }

    @Test("the slowed range alone is exactly 8 s of samples, and at speed 2 exactly 0.5 s; speed 2 inside the file halves that second",
          arguments: [AudioStretch.spectral, .timeDomain, .varispeed, .mute])
    func rangeCounts(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try Self.makeSource(src)
        var r = try ExportSession(plan: try Self.plan(src, dir.file("a.mp4"), pieces: [(Self.seconds(1, 2), Self.slow)], method: method, audioOnly: true)).run()
        #expect(r.lanes[0].unitsOut == 8 * 48000, "\(method.rawValue)")
        let fast = TimeScale(1, 2)!
        r = try ExportSession(plan: try Self.plan(src, dir.file("b.mp4"), pieces: [(Self.seconds(1, 2), fast)], method: method, audioOnly: true)).run()
        #expect(r.lanes[0].unitsOut == 24000, "\(method.rawValue)")
        r = try ExportSession(plan: try Self.plan(src, dir.file("c.mp4"), pieces: [(Self.seconds(0, 1), .identity), (Self.seconds(1, 2), fast),
                                                                                   (Self.seconds(2, 3), .identity)], method: method)).run()
        #expect(r.lanes[1].unitsOut == 120000, "\(method.rawValue)")
    }

    @Test("20 segments of 7/240 s alternating speed 1 and 1/2 at 44.1 kHz (183.75 samples a frame): the sum is the timeline's, to the sample",
          arguments: [AudioStretch.spectral, .varispeed])
    func manySegments(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try Self.makeSource(src, rate: 44100)
        var pieces: [(TimeRange, TimeScale)] = []
        for k in 0..<20 {
            let from = Int64(40 + 7 * k)
            let range = TimeRange(start: MediaTime(value: from, timescale: 240), end: MediaTime(value: from + 7, timescale: 240))
            pieces.append((range, k % 2 == 0 ? TimeScale.identity : TimeScale(2, 1)!))
        }
        let plan = try Self.plan(src, dir.file("many.mp4"), pieces: pieces, method: method, audioOnly: true)
        // 10 × 7/240 + 10 × 14/240 = 210/240 s = 38587.5 samples: 38588 (sample n at n/44100).
        let end = try #require(TimeMapping.samplePosition(atOrAfter: plan.timeline.targetDuration, rate: 44100))
        #expect(end == 38588)
        let r = try ExportSession(plan: plan).run()
        #expect(r.lanes[0].unitsOut == Int(end), "\(method.rawValue)")
    }

    @Test("sound at 44.1 kHz into a 48 kHz output: the slowed second is exact at 44.1 kHz and within a sample of 8 s at 48 kHz")
    func otherRate() throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try Self.makeSource(src, rate: 44100)
        let r = try ExportSession(plan: try Self.plan(src, dir.file("r.mp4"), pieces: [(Self.seconds(1, 2), Self.slow)], method: .spectral,
                                                      audioOnly: true, outputRate: 48000)).run()
        #expect(abs(r.lanes[0].unitsOut - 8 * 48000) <= 1, "\(r.lanes[0].unitsOut)")
    }
}
