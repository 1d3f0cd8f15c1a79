import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Planar float test signals in and out of a TimeStretcher.
enum StretchSignal {
    static func sine(_ hz: Double, rate: Int, count: Int, amplitude: Float = 0.5, from start: Int = 0) -> [Float] {
        (0..<count).map { i in i < start ? 0 : amplitude * Float(sin(2 * Double.pi * hz * Double(i) / Double(rate))) }
    }

    static func frame(_ planes: [[Float]], from: Int, count: Int, rate: Int32, layout: String) throws -> Frame {
        var l = AVChannelLayout()
        defer { av_channel_layout_uninit(&l) }
        #expect(av_channel_layout_from_string(&l, layout) >= 0)
        let f = try Frame.audio(samples: Int32(count), format: AV_SAMPLE_FMT_FLTP, layout: &l, sampleRate: rate)
        for (c, plane) in planes.enumerated() {
            let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
            for i in 0..<count { p[i] = plane[from + i] }
        }
        return f
    }

    struct Result {
        var planes: [[Float]]
        var frames = 0
        var count: Int { planes.first?.count ?? 0 }
    }

    /// Feeds `planes` in chunks of the given sizes (cycled), draining after every feed, and
    /// checks that the output is stamped by count (pts = samples before it).
    static func stretch(_ planes: [[Float]], rate: Int32, layout: String, method: TimeStretcher.Method,
                        scale: TimeStretchScale, chunks: [Int] = [4096], targetSamples: Int64? = nil,
                        drainSize: Int32 = 4096) throws -> Result {
        let s = try TimeStretcher(sampleRate: rate, channelLayout: layout, method: method, scale: scale, targetSamples: targetSamples)
        var out = Result(planes: Array(repeating: [], count: planes.count))
        func take(_ f: Frame) {
            #expect(f.pts == Int64(out.count), "frame \(out.frames) is stamped \(f.pts), after \(out.count) samples")
            #expect(f.channels == Int32(planes.count))
            #expect(f.sampleRate == rate)
            for c in 0..<planes.count {
                let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
                out.planes[c].append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples)))
            }
            out.frames += 1
        }
        var at = 0, k = 0
        let total = planes[0].count
        while at < total {
            let n = min(chunks[k % chunks.count], total - at)
            try s.feed(try frame(planes, from: at, count: n, rate: rate, layout: layout))
            at += n; k += 1
            while let f = try s.drain(maxSamples: drainSize) { take(f) }
            // Never more out than the final length is sure to have.
            #expect(Int64(out.count) <= scale.stretched(Int64(at))!)
        }
        try s.finish()
        while let f = try s.drain(maxSamples: drainSize) { take(f) }
        #expect(s.sourceSamples == Int64(total))
        #expect(s.emittedSamples == Int64(out.count))
        return out
    }

    /// The strongest frequency between `low` and `high` Hz in `x` (Goertzel scan, then refined).
    static func dominantFrequency(_ x: ArraySlice<Float>, rate: Int, low: Double = 40, high: Double = 4000) -> Double {
        let samples = Array(x)
        func power(_ f: Double) -> Double {
            let coeff = 2 * cos(2 * Double.pi * f / Double(rate))
            var s1 = 0.0, s2 = 0.0
            samples.withUnsafeBufferPointer { b in
                for v in b {
                    let s0 = Double(v) + coeff * s1 - s2
                    s2 = s1; s1 = s0
                }
            }
            return s1 * s1 + s2 * s2 - coeff * s1 * s2
        }
        func best(_ from: Double, _ to: Double, _ step: Double) -> Double {
            var bestF = from, bestP = -1.0
            var f = from
            while f <= to {
                let p = power(f)
                if p > bestP { bestP = p; bestF = f }
                f += step
            }
            return bestF
        }
        let coarse = best(low, high, 5)
        return best(coarse - 5, coarse + 5, 0.25)
    }

    /// The frequency in the middle second (or what there is) of `x`, away from the edges.
    static func middleFrequency(_ x: [Float], rate: Int) -> Double {
        let window = min(rate, x.count / 2)
        let start = (x.count - window) / 2
        return dominantFrequency(x[start..<start + window], rate: rate)
    }

    static func rms(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }
}

@Suite("Audio time stretch: exact counts, pitch kept or following")
struct TimeStretchTests {
    typealias S = StretchSignal

    static let pitched: [TimeStretcher.Method] = [.spectral, .timeDomain]

    @Test("1 s of 1 kHz at 48 kHz stretched ×8 has exactly 384000 samples; pitch kept, ÷8 for varispeed, silent for mute",
          arguments: TimeStretcher.Method.allCases)
    func slowMotion(method: TimeStretcher.Method) throws {
        let input = S.sine(1000, rate: 48000, count: 48000)
        let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: try TimeStretchScale(target: 8, source: 1))
        #expect(out.count == 384000)
        let f = S.middleFrequency(out.planes[0], rate: 48000)
        if method != .mute { print("time stretch ×8 \(method.rawValue): \(f) Hz") }
        switch method {
        case .spectral, .timeDomain:
            #expect(abs(f - 1000) <= 20, "\(method.rawValue) ×8: \(f) Hz")
            // Sound all along, not a burst then silence (the tail pushed out, not padded).
            for second in 0..<8 {
                let r = S.rms(out.planes[0][(second * 48000)..<((second + 1) * 48000)])
                #expect(r > 0.15, "\(method.rawValue) ×8: second \(second) has RMS \(r)")
            }
            // The range ends on the stretched source (the kernel's tail pushed out), not on
            // padding: the tone (RMS 0.35) lasts into the last 83 ms and fades only there.
            let n = out.count
            let nearEnd = S.rms(out.planes[0][(n - n / 16)..<(n - n / 48)]), last = S.rms(out.planes[0][(n - n / 96)..<n])
            #expect(nearEnd > 0.3 && last > 0.08, "\(method.rawValue) ×8 ends with RMS \(nearEnd), then \(last)")
        case .varispeed:
            #expect(abs(f - 125) <= 2.5, "varispeed ×8: \(f) Hz")
            #expect(S.rms(out.planes[0][(7 * 48000)..<(8 * 48000 - 2000)]) > 0.3)
        case .mute:
            #expect(out.planes[0].allSatisfy { $0 == 0 })
        }
    }

    @Test("1 s at 2× speed has exactly 24000 samples; pitch kept, doubled for varispeed",
          arguments: TimeStretcher.Method.allCases)
    func doubleSpeed(method: TimeStretcher.Method) throws {
        let input = S.sine(1000, rate: 48000, count: 48000)
        let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: try TimeStretchScale(target: 1, source: 2))
        #expect(out.count == 24000)
        let f = S.middleFrequency(out.planes[0], rate: 48000)
        if method != .mute { print("time stretch ×0.5 \(method.rawValue): \(f) Hz") }
        switch method {
        case .spectral, .timeDomain: #expect(abs(f - 1000) <= 20, "\(method.rawValue) ×0.5: \(f) Hz")
        case .varispeed: #expect(abs(f - 2000) <= 40, "varispeed ×0.5: \(f) Hz")
        case .mute: #expect(out.planes[0].allSatisfy { $0 == 0 })
        }
    }

    @Test("stereo keeps each channel's own tone (left 1 kHz, right 440 Hz) through ×8",
          arguments: TimeStretcher.Method.allCases)
    func stereo(method: TimeStretcher.Method) throws {
        let left = S.sine(1000, rate: 48000, count: 48000), right = S.sine(440, rate: 48000, count: 48000)
        let out = try S.stretch([left, right], rate: 48000, layout: "stereo", method: method,
                                scale: try TimeStretchScale(target: 8, source: 1))
        #expect(out.planes.map(\.count) == [384000, 384000])
        let fl = S.middleFrequency(out.planes[0], rate: 48000), fr = S.middleFrequency(out.planes[1], rate: 48000)
        if method != .mute { print("time stretch stereo ×8 \(method.rawValue): \(fl) Hz / \(fr) Hz") }
        switch method {
        case .spectral, .timeDomain:
            #expect(abs(fl - 1000) <= 20 && abs(fr - 440) <= 8.8, "\(method.rawValue): \(fl) / \(fr) Hz")
        case .varispeed:
            #expect(abs(fl - 125) <= 2.5 && abs(fr - 55) <= 1.1, "varispeed: \(fl) / \(fr) Hz")
        case .mute:
            #expect(out.planes.allSatisfy { $0.allSatisfy { $0 == 0 } })
        }
    }

    @Test("5.1 keeps its six channels apart (each its own tone) at 2× speed",
          arguments: [TimeStretcher.Method.spectral, .timeDomain, .varispeed])
    func surround(method: TimeStretcher.Method) throws {
        let tones: [Double] = [300, 500, 700, 900, 1100, 1300]
        let planes = tones.map { S.sine($0, rate: 48000, count: 24000) }
        let out = try S.stretch(planes, rate: 48000, layout: "5.1(side)", method: method, scale: try TimeStretchScale(target: 1, source: 2))
        #expect(out.planes.map(\.count) == Array(repeating: 12000, count: 6))
        let expected = tones.map { method == .varispeed ? $0 * 2 : $0 }
        let measured = out.planes.map { S.middleFrequency($0, rate: 48000) }
        for (m, e) in zip(measured, expected) {
            #expect(abs(m - e) <= e * 0.02, "\(method.rawValue) 5.1: \(measured) Hz, expected \(expected)")
        }
    }

    @Test("odd counts at 44.1 kHz stay exact: round(samples × scale), halves away from zero",
          arguments: TimeStretcher.Method.allCases)
    func oddCounts(method: TimeStretcher.Method) throws {
        let cases: [(samples: Int, target: Int64, source: Int64, expected: Int)] = [
            (1001, 30000, 1001, 30000),   // 29.97 fps range shown at 1 fps-per-frame
            (997, 30000, 1001, 29880),    // 29880.1…
            (44100, 1001, 30000, 1471),   // 1471.47 (speed-up of 29.97×)
            (3, 5, 2, 8),                 // 7.5 → 8
            (10, 8, 1, 80),               // shorter than any window
            (1, 1, 2, 1),                 // 0.5 → 1
            (1, 1, 3, 0),                 // 0.33 → 0: fed, yet nothing out
            (2, 1, 3, 1),                 // 0.67 → 1
        ]
        for c in cases {
            let input = S.sine(1000, rate: 44100, count: c.samples)
            let out = try S.stretch([input, input], rate: 44100, layout: "stereo", method: method,
                                    scale: try TimeStretchScale(target: c.target, source: c.source))
            #expect(out.planes.map(\.count) == [c.expected, c.expected], "\(c.samples) × \(c.target)/\(c.source)")
        }
    }

    @Test("every small range, around the kernels' block sizes, at every kind of scale, has its exact count",
          arguments: TimeStretcher.Method.allCases)
    func smallRangeSweep(method: TimeStretcher.Method) throws {
        let scales: [(Int64, Int64)] = [(1, 3), (1, 2), (2, 3), (3, 2), (8, 1), (30000, 1001), (1, 100), (100, 1)]
        for n in [1, 2, 3, 5, 13, 100, 1023, 1024, 1025, 2049, 4097] {
            let input = S.sine(1000, rate: 48000, count: n)
            for (t, s) in scales {
                let scale = try TimeStretchScale(target: t, source: s)
                let expected = Int(scale.stretched(Int64(n))!)
                let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale, chunks: [1000])
                #expect(out.count == expected, "\(method.rawValue): \(n) × \(scale)")
            }
        }
    }

    @Test("small irregular chunks and small drains give the same count (and for varispeed and mute the same samples) as one big chunk",
          arguments: TimeStretcher.Method.allCases)
    func chunking(method: TimeStretcher.Method) throws {
        let input = S.sine(1000, rate: 48000, count: 48000)
        let scale = try TimeStretchScale(target: 30000, source: 1001 * 4)
        let whole = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale, chunks: [48000])
        let bits = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale,
                                 chunks: [1, 7, 333, 1024, 5, 4096, 17, 2000], drainSize: 313)
        #expect(whole.count == 359640)  // 48000 × 30000/4004 = 359640.36
        #expect(bits.count == whole.count)
        #expect(bits.frames > whole.frames)
        if method == .varispeed || method == .mute {
            #expect(bits.planes == whole.planes)
        }
    }

    @Test("an empty range is empty, and a range of 1 sample is stretched, for every method",
          arguments: TimeStretcher.Method.allCases)
    func tinyRanges(method: TimeStretcher.Method) throws {
        let empty = try TimeStretcher(sampleRate: 48000, channelLayout: "stereo", method: method, scale: try TimeStretchScale(target: 8, source: 1))
        try empty.finish()
        #expect(try empty.drain() == nil)
        #expect(empty.targetSamples == 0)
        let one = try S.stretch([[0.25], [-0.25]], rate: 48000, layout: "stereo", method: method, scale: try TimeStretchScale(target: 8, source: 1))
        #expect(out(one) == [8, 8])
        func out(_ r: S.Result) -> [Int] { r.planes.map(\.count) }
    }

    @Test("a length fixed by the caller is the length, either side of round(samples × scale)",
          arguments: TimeStretcher.Method.allCases)
    func fixedTarget(method: TimeStretcher.Method) throws {
        let input = S.sine(1000, rate: 48000, count: 4800)
        for target: Int64 in [38399, 38400, 38401, 40000] {
            let out = try S.stretch([input], rate: 48000, layout: "mono", method: method,
                                    scale: try TimeStretchScale(target: 8, source: 1), targetSamples: target)
            #expect(out.count == Int(target), "\(method.rawValue) fixed at \(target)")
        }
    }

    @Test("scale 1 hands the source through unchanged, whichever pitch-keeping method")
    func identity() throws {
        let input = S.sine(1000, rate: 48000, count: 10000)
        for method in [TimeStretcher.Method.spectral, .timeDomain, .varispeed] {
            let out = try S.stretch([input], rate: 48000, layout: "mono", method: method,
                                    scale: try TimeStretchScale(target: 3, source: 3), chunks: [777])
            #expect(out.planes[0] == input, "\(method.rawValue)")
        }
    }

    @Test("scales are exact rationals in lowest terms, from numbers or durations")
    func scales() throws {
        let s = try TimeStretchScale(target: 16, source: 2)
        #expect(s.target == 8 && s.source == 1)
        #expect(s.tempo == 0.125)
        #expect(try TimeStretchScale(target: 30000, source: 1001).description == "30000/1001")
        let slow = try TimeStretchScale(targetDuration: MediaTime(value: 8, timescale: 1), sourceDuration: MediaTime(value: 1001, timescale: 1000))
        #expect(slow.description == "8000/1001")
        #expect(s.stretched(Int64.max) == nil)
    }

    @Test("bad scales, layouts and frames are MediaErrors that say what is wrong")
    func errors() throws {
        func message(_ body: () throws -> Void) -> (MediaError.Kind, String)? {
            do { try body() } catch let e as MediaError { return (e.kind, e.message) } catch { return nil }
            return nil
        }
        let zero = message { _ = try TimeStretchScale(target: 0, source: 1) }
        #expect(zero?.0 == .invalidSettings)
        #expect(zero?.1 == "time stretch scale 0/1 is not positive")
        let big = message { _ = try TimeStretchScale(target: 202, source: 2) }
        #expect(big?.1 == "time stretch scale 101/1 is outside 1/100…100 (1/100 of the speed to 100× the speed)")
        let small = message { _ = try TimeStretchScale(target: 1, source: 101) }
        #expect(small?.0 == .invalidSettings)
        #expect(try TimeStretchScale(target: 1, source: 100).source == 100)
        let layout = message { _ = try TimeStretcher(sampleRate: 48000, channelLayout: "stereo-ish", method: .spectral, scale: try TimeStretchScale(target: 2, source: 1)) }
        #expect(layout?.0 == .invalidSettings)
        #expect(layout?.1 == "unknown channel layout 'stereo-ish'")

        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "stereo", method: .timeDomain, scale: try TimeStretchScale(target: 2, source: 1))
        let mono = try S.frame([[0, 0, 0]], from: 0, count: 3, rate: 48000, layout: "mono")
        let wrong = message { try s.feed(mono) }
        #expect(wrong?.0 == .processing)
        #expect(wrong?.1 == "time stretch: expected planar float audio, 2 channels at 48000 Hz; got fltp, 1 channel at 48000 Hz")
        try s.finish()
        let late = message { try s.feed(try S.frame([[0], [0]], from: 0, count: 1, rate: 48000, layout: "stereo")) }
        #expect(late?.1 == "time stretch: a frame was fed after the range was finished")
        #expect(try s.drain() == nil)
        #expect(s.targetSamples == 0)
    }
}

/// Throughput of each method on 60 s of stereo 48 kHz (docs/engine-audio-stretch.md), run with
/// REENCODE_STRETCH_BENCH=1; it still checks the exact count it measures.
@Suite("Audio time stretch throughput", .serialized, .enabled(if: ProcessInfo.processInfo.environment["REENCODE_STRETCH_BENCH"] == "1"))
struct TimeStretchBench {
    @Test("60 s stereo 48 kHz at ×8 and ×0.5", arguments: TimeStretcher.Method.allCases)
    func throughput(method: TimeStretcher.Method) throws {
        let seconds = 60, rate = 48000
        let left = StretchSignal.sine(1000, rate: rate, count: seconds * rate), right = StretchSignal.sine(440, rate: rate, count: seconds * rate)
        for (target, source) in [(Int64(8), Int64(1)), (1, 2)] {
            let scale = try TimeStretchScale(target: target, source: source)
            let s = try TimeStretcher(sampleRate: Int32(rate), channelLayout: "stereo", method: method, scale: scale)
            // Frames made beforehand: only the stretch is timed.
            let frames = try stride(from: 0, to: seconds * rate, by: 1024).map {
                try StretchSignal.frame([left, right], from: $0, count: min(1024, seconds * rate - $0), rate: Int32(rate), layout: "stereo")
            }
            let clock = ContinuousClock()
            var out = 0
            let elapsed = try clock.measure {
                for f in frames {
                    try s.feed(f)
                    while let o = try s.drain() { out += Int(o.samples) }
                }
                try s.finish()
                while let o = try s.drain() { out += Int(o.samples) }
            }
            #expect(out == seconds * rate * Int(target) / Int(source))
            let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("stretch bench \(method.rawValue) ×\(scale): \(String(format: "%.2f", secs)) s for \(seconds) s of source, "
                  + "\(String(format: "%.1f", Double(seconds) / secs))× real time (source), \(String(format: "%.1f", Double(out) / Double(rate) / secs))× (output)")
        }
    }
}
