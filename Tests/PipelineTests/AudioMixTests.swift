import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The audio mix: an explicit weighted sum, per-sample volumes and ramps, the stated limit.
@Suite("Audio mix: volumes, ramps, sums and limits", .serialized)
struct AudioMixTests {
    typealias S = StretchSignal

    /// A stage that hands out `planes` (stereo, 48 kHz) in runs of 1000 samples from sample 0.
    final class Constant: SourceStage {
        let planes: [[Float]]
        var at = 0
        init(_ planes: [[Float]]) { self.planes = planes }
        var statistics: LaneStatistics { LaneStatistics(track: 0) }
        var lastTime: MediaTime { .invalid }
        var file: String? { nil }
        func next() throws(MediaError) -> TimedFrame? {
            guard at < planes[0].count else { return nil }
            let n = min(1000, planes[0].count - at)
            let f: Frame
            do { f = try S.frame(planes, from: at, count: n, rate: 48000, layout: "stereo") } catch { throw MediaError(.processing, "\(error)") }
            defer { at += n }
            return .samples(f, position: Int64(at))
        }
    }

    /// A planar float frame's samples, `[channel][sample]`.
    static func planes(_ f: Frame) -> [[Float]] {
        (0..<Int(f.channels)).map { c in
            let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
            return Array(UnsafeBufferPointer(start: p, count: Int(f.samples)))
        }
    }

    static func drain(_ mixer: AudioMixer) throws -> [[Float]] {
        var out: [[Float]] = [[], []]
        var expected: Int64 = 0
        while let t = try mixer.next() {
            guard case .samples(let f, let position) = t else { Issue.record("a picture from a mixer"); continue }
            #expect(position == expected, "runs are contiguous from 0")
            let s = Self.planes(f)
            out[0] += s[0]; out[1] += s[1]
            expected += Int64(f.samples)
        }
        return out
    }

    @Test("two inputs at volume 0.5 sum to exactly 0.5·a + 0.5·b, sample for sample: no hidden 1/n")
    func exactWeightedSum() throws {
        let a: [Float] = (0..<5000).map { Float($0 % 97) / 200 }, b: [Float] = (0..<5000).map { -Float($0 % 31) / 100 }
        let mixer = try AudioMixer(inputs: [.init(stage: Constant([a, a]), volume: Keyframes(constant: 0.5)),
                                            .init(stage: Constant([b, b]), volume: Keyframes(constant: 0.5))],
                                   rate: 48000, layout: "stereo", limit: .clip, end: nil)
        let out = try Self.drain(mixer)
        #expect(out[0].count == 5000 && out[1].count == 5000)
        var wrong = 0
        for i in 0..<5000 {
            var expected: Float = 0
            expected += Float(0.5) * a[i]
            expected += Float(0.5) * b[i]
            if out[0][i] != expected || out[1][i] != expected { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) samples differ from 0.5·a + 0.5·b")
        // Volume 1 and one input: the input itself, bit for bit.
        let alone = try Self.drain(try AudioMixer(inputs: [.init(stage: Constant([a, b]), volume: nil)], rate: 48000, layout: "stereo", limit: .clip, end: nil))
        #expect(alone[0] == a && alone[1] == b)
    }

    @Test("the mix ends at the timeline's end: a shorter input is silence after its end, a longer one is cut")
    func lengths() throws {
        let a = [Float](repeating: 0.25, count: 3000), b = [Float](repeating: 0.5, count: 1200)
        let out = try Self.drain(try AudioMixer(inputs: [.init(stage: Constant([a, a]), volume: nil), .init(stage: Constant([b, b]), volume: nil)],
                                                rate: 48000, layout: "stereo", limit: .clip, end: 2500))
        #expect(out[0].count == 2500)
        #expect(out[0][..<1200].allSatisfy { $0 == 0.75 } && out[0][1200...].allSatisfy { $0 == 0.25 })
    }

    @Test("limit clip cuts the sum at ±1; soft leaves what is under −1 dBFS untouched and bends the rest below 1")
    func limits() throws {
        let loud: [Float] = [0.3, 0.85, 0.6, -0.7, 0.45]
        let planes = [loud, loud]
        for rule in MixLimit.allCases {
            let out = try Self.drain(try AudioMixer(inputs: [.init(stage: Constant(planes), volume: nil), .init(stage: Constant(planes), volume: nil)],
                                                    rate: 48000, layout: "stereo", limit: rule, end: nil))
            let sums = loud.map { $0 + $0 }
            switch rule {
            case .clip: #expect(out[0] == sums.map { min(1, max(-1, $0)) })
            case .soft:
                #expect(out[0][0] == sums[0], "0.6 is under the knee (\(MixKernel.knee)): untouched")
                for (y, x) in zip(out[0], sums) where abs(x) > MixKernel.knee {
                    #expect(abs(y) < 1 && abs(y) > MixKernel.knee && (y > 0) == (x > 0), "\(x) → \(y)")
                }
                #expect(out[0][1] > out[0][2], "monotonic: 1.7 stays above 1.2 (\(out[0][1]), \(out[0][2]))")
            }
        }
    }

    @Test("ramp curves: linear, equal-power (power moves evenly), ease-in-out; the value holds before, between and after ramps")
    func curves() {
        #expect(RampCurve.linear.value(from: 0, to: 1, at: 0.25) == 0.25)
        #expect(abs(RampCurve.equalPower.value(from: 1, to: 0, at: 0.3) - 0.7.squareRoot()) < 1e-12)
        #expect(abs(RampCurve.equalPower.value(from: 0, to: 1, at: 0.3) - 0.3.squareRoot()) < 1e-12)
        #expect(RampCurve.easeInOut.value(from: 0, to: 1, at: 0.5) == 0.5 && RampCurve.easeInOut.value(from: 0, to: 1, at: 0.25) == 0.15625)
        let k = Keyframes(ramps: [Ramp(start: MediaTime(seconds: 1), end: MediaTime(seconds: 2), from: 0.2, to: 1),
                                  Ramp(start: MediaTime(seconds: 4), end: MediaTime(seconds: 5), from: 0.5, to: 0)])
        let expected: [(Double, Double)] = [(0, 0.2), (1, 0.2), (1.5, 0.6), (2, 1), (3, 1), (4, 0.5), (4.5, 0.25), (5, 0), (9, 0)]
        for (t, v) in expected { #expect(abs(k.value(atSeconds: t) - v) < 1e-12, "at \(t) s: \(k.value(atSeconds: t)), not \(v)") }
        // Runs filled at once (one lookup where no ramp moves) equal the values sample by sample.
        for t0 in [0.0, 0.99, 1.5, 2.5, 3.9999, 7.0] {
            var run: [Float] = []
            k.fill(&run, from: t0, step: 1 / 48000, count: 1024)
            #expect(run.enumerated().allSatisfy { $1 == Float(k.value(atSeconds: t0 + Double($0) / 48000)) }, "run from \(t0) s")
        }
    }

    /// `seconds` of a `hz` tone at `amplitude`, 48 kHz stereo AAC, no pictures.
    static func tone(_ path: String, hz: Double, amplitude: Double, seconds: Int) throws {
        let s = try FrameSource(path: path, video: nil, audio: GeneratedAudioFormat())
        try s.appendAudio(count: 48000 * seconds) { _, n in Float(amplitude * sin(2 * Double.pi * hz * Double(n) / 48000)) }
        try s.finish()
    }

    /// A composition of the `files`' sound: the first is its sound, the others mix inputs, each
    /// from `at` with its volume.
    static func mix(_ files: [(path: String, at: MediaTime?, volume: Keyframes?)], out: String, limit: MixLimit = .clip) throws -> ConversionPlan {
        var req = ConversionRequest(source: files[0].path, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings(bitrate: 256000)))])
        req.sources = files.dropFirst().map(\.path)
        req.timeline = files.enumerated().map { k, f in
            var r = SegmentRequest(source: k, at: f.at)
            r.layer = k
            r.list = k == 0 ? .video : .audio
            return r
        }
        req.audioMix = AudioMix(volumes: files.map(\.volume), limit: limit)
        return try Planner.plan(req)
    }

    static func db(_ x: Double) -> Double { 20 * log10(x) }

    @Test("a 1 kHz tone at −12 dBFS faded in linearly over 0–1 s: its level at 0.25, 0.5 and 0.75 s is the ramp's, within 0.5 dB")
    func fadeInLevels() throws {
        let dir = Scratch()
        let src = dir.file("tone.m4a"), out = dir.file("out.m4a")
        let amplitude = pow(10, -12.0 / 20)
        try Self.tone(src, hz: 1000, amplitude: amplitude, seconds: 2)
        let plan = try Self.mix([(src, nil, Keyframes(ramps: [Ramp(start: .zero, end: MediaTime(seconds: 1), from: 0, to: 1)]))], out: out)
        try ExportSession(plan: plan).run()
        let (x, rate) = try CompositionStretchTests.sound(out)
        #expect(x.count >= 2 * rate - 1)
        // The source's own level, as the same reader measures it.
        let (y, _) = try CompositionStretchTests.sound(src)
        let source = S.rms(y[(rate / 4)..<(3 * rate / 4)])
        let steady = S.rms(x[(rate + rate / 4)..<(rate + 3 * rate / 4)])
        #expect(abs(Self.db(steady) - Self.db(source)) < 0.5, "after the ramp: \(Self.db(steady)) dB, the source \(Self.db(source)) dB")
        for t in [0.25, 0.5, 0.75] {
            // 20 ms centred on t: the ramp's mean gain over it is its value at t.
            let a = Int(t * Double(rate)) - rate / 100
            let level = S.rms(x[a..<(a + rate / 50)])
            #expect(abs(Self.db(level) - Self.db(steady * t)) < 0.5, "at \(t) s: \(Self.db(level)) dB, the ramp says \(Self.db(steady * t))")
        }
    }

    @Test("an equal-power cross-fade of two tones over 1–2 s keeps the summed power within 0.5 dB; the mix input starts where its segment is placed")
    func equalPowerCrossFade() throws {
        let dir = Scratch()
        let a = dir.file("a.m4a"), b = dir.file("b.m4a"), out = dir.file("out.m4a")
        let amplitude = pow(10, -12.0 / 20)
        try Self.tone(a, hz: 1000, amplitude: amplitude, seconds: 3)
        try Self.tone(b, hz: 1500, amplitude: amplitude, seconds: 2)
        let fade = (MediaTime(seconds: 1), MediaTime(seconds: 2))
        let plan = try Self.mix([
            (a, nil, Keyframes(ramps: [Ramp(start: fade.0, end: fade.1, from: 1, to: 0, curve: .equalPower)])),
            (b, MediaTime(seconds: 1), Keyframes(ramps: [Ramp(start: fade.0, end: fade.1, from: 0, to: 1, curve: .equalPower)])),
        ], out: out)
        #expect(plan.duration == MediaTime(seconds: 3))
        try ExportSession(plan: plan).run()
        let (x, rate) = try CompositionStretchTests.sound(out)
        let steady = S.rms(x[(rate / 4)..<(3 * rate / 4)])
        var t = 0.5
        while t < 2.5 {
            let i = Int(t * Double(rate))
            let level = S.rms(x[i..<(i + rate / 50)])
            #expect(abs(Self.db(level) - Self.db(steady)) < 0.5, "at \(t) s: \(Self.db(level)) dB, steady \(Self.db(steady))")
            t += 0.05
        }
        // Before 1 s only the 1 kHz tone; after 2 s only the 1.5 kHz one.
        #expect(abs(S.dominantFrequency(x[(rate / 2)..<(rate / 2 + 4800)], rate: rate) - 1000) < 10)
        #expect(abs(S.dominantFrequency(x[(5 * rate / 2)..<(5 * rate / 2 + 4800)], rate: rate) - 1500) < 10)
    }

    @Test("a mix input placed at 1 s is silent before it: its tone starts within a millisecond of 1 s")
    func placedInput() throws {
        let dir = Scratch()
        let b = dir.file("b.m4a"), out = dir.file("out.m4a")
        let quiet = dir.file("quiet.m4a")
        try Self.tone(quiet, hz: 1000, amplitude: 0, seconds: 3)
        try Self.tone(b, hz: 1000, amplitude: 0.5, seconds: 1)
        let plan = try Self.mix([(quiet, nil, nil), (b, MediaTime(seconds: 1), Keyframes(constant: 0.5))], out: out)
        try ExportSession(plan: plan).run()
        let (x, rate) = try CompositionStretchTests.sound(out)
        let block = rate / 1000
        let onset = stride(from: rate / 2, to: 2 * rate, by: block).first { S.rms(x[$0..<($0 + block)]) > 0.05 }.map { Double($0) / Double(rate) }
        #expect(onset.map { abs($0 - 1) <= 0.001 } == true, "the input's tone starts at \(onset ?? -1) s")
        let level = S.rms(x[(rate + rate / 4)..<(rate + 3 * rate / 4)])
        let (y, _) = try CompositionStretchTests.sound(b)
        let source = S.rms(y[(rate / 4)..<(3 * rate / 4)])
        #expect(abs(Self.db(level) - Self.db(source / 2)) < 0.5, "volume 0.5: \(Self.db(level)) dB, the input \(Self.db(source)) dB")
    }
}
