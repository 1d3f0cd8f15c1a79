import CFFmpeg
@testable import Pipeline
import Testing

/// Where each of a range's sounds lands, method by method: 1 kHz bursts (30 ms, amplitude 0.5)
/// over a quiet 300 Hz tone (amplitude 0.05) that runs through the lead-in and the range, the
/// first burst on the range's very first sample, the others at uneven places. Each burst's onset
/// in the output (the first 1 ms whose level reaches half the burst's) against where the scale
/// puts it, which is where its picture lands.
@Suite("Audio time stretch: every burst lands with its picture")
struct TimeStretchBurstTests {
    typealias S = StretchSignal
    static let rate = 48000

    /// How many times faster than the source a range at `scale` plays (1 for a slow-down).
    static func speedUp(_ scale: TimeStretchScale) -> Int { Int(max(1, (scale.source + scale.target - 1) / scale.target)) }

    /// Source-sample places of the bursts in a range at `scale`: spaced so that they stay half a
    /// second apart in the output at a speed-up too.
    static func bursts(_ scale: TimeStretchScale, rate: Int = rate) -> [Int] {
        let spacing = rate / 2 * speedUp(scale)
        return [0] + (1...5).map { $0 * spacing + $0 * $0 * 131 }
    }

    /// The background tone and the bursts (30 ms of output each: longer in the source at a speed-up).
    static func signal(count: Int, from start: Int, bursts: [Int], burst: Int, rate: Int) -> [Float] {
        (0..<count).map { j in
            let i = start + j
            var v = 0.05 * sin(2 * Double.pi * 300 * Double(i) / Double(rate))
            if let b = bursts.last(where: { $0 <= i }), i - b < burst {
                v += 0.5 * sin(2 * Double.pi * 1000 * Double(i - b) / Double(rate))
            }
            return Float(v)
        }
    }

    /// Onset error of each burst in output samples (negative: early), and the output's length;
    /// in stereo the right channel has the bursts at a third of the level.
    static func errors(_ method: TimeStretcher.Method, _ scale: TimeStretchScale, rate: Int = rate,
                       stereo: Bool = false) throws -> (errors: [Int], count: Int) {
        let places = bursts(scale, rate: rate)
        let layout = stereo ? "stereo" : "mono"
        func planes(_ x: [Float]) -> [[Float]] { stereo ? [x, x.map { $0 / 3 }] : [x] }
        let length = places.last! + rate / 4
        let burst = rate * 3 / 100 * speedUp(scale)
        let s = try TimeStretcher(sampleRate: Int32(rate), channelLayout: layout, method: method, scale: scale)
        let lead = Int(s.primingSamples)
        if lead > 0 {
            let pre = planes(signal(count: lead, from: -lead, bursts: places, burst: burst, rate: rate))
            try s.prime([try S.frame(pre, from: 0, count: lead, rate: Int32(rate), layout: layout)])
        }
        let input = planes(signal(count: length, from: 0, bursts: places, burst: burst, rate: rate))
        var out: [Float] = []
        func take() throws {
            while let f = try s.drain() {
                let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples)))
            }
        }
        for at in stride(from: 0, to: length, by: 1024) {
            try s.feed(try S.frame(input, from: at, count: min(1024, length - at), rate: Int32(rate), layout: layout))
            try take()
        }
        try s.finish()
        try take()
        // Level over 1 ms (48 samples at 48 kHz) of the left channel from every sample, by running sums.
        let w = rate / 1000
        var sums = [Double](repeating: 0, count: out.count + 1)
        for (i, v) in out.enumerated() { sums[i + 1] = sums[i] + Double(v) * Double(v) }
        let threshold = 0.5 / 2.squareRoot() / 2
        var errors: [Int] = []
        for b in places {
            let expected = Int(scale.stretched(Int64(b))!)
            // Search a fifth of a second either side (the bursts are half a second apart).
            let from = max(0, expected - rate / 5), to = min(out.count - w, expected + rate / 5)
            let found = (from..<max(from, to)).first { ((sums[$0 + w] - sums[$0]) / Double(w)).squareRoot() >= threshold }
            errors.append(found.map { $0 + w / 2 - expected } ?? Int.min / 2)
        }
        print("bursts \(method.rawValue) ×\(scale) \(rate) Hz \(layout): "
              + errors.map { String(format: "%+.1f", Double($0) * 1000 / Double(rate)) }.joined(separator: " ") + " ms")
        return (errors, out.count)
    }

    /// One frame at 30 fps, in 48 kHz samples.
    static let frame = 1600

    static func scale(_ t: Int64, _ s: Int64) -> TimeStretchScale { try! TimeStretchScale(target: t, source: s) }

    @Test("time-domain puts every burst within 2 ms of its picture, the range's first sample too, from 1/8 to 8 times the speed",
          arguments: [(8, 1), (4, 1), (2, 1), (3, 2), (1, 2), (1, 4), (1, 8)] as [(Int64, Int64)])
    func timeDomain(target: Int64, source: Int64) throws {
        // Chained atempo (before WSOLAKernel): 88 to 118 ms late at ×8, 15 to 22 ms at ×2.
        let scale = Self.scale(target, source)
        let (errors, count) = try Self.errors(.timeDomain, scale)
        #expect(count == Int(scale.stretched(Int64(Self.bursts(scale).last! + Self.rate / 4))!))
        #expect(errors.count == 6)
        for (k, e) in errors.enumerated() {
            #expect(abs(e) <= 96, "time-domain ×\(scale): burst \(k) \(e) samples off")
        }
    }

    @Test("time-domain at 44.1 kHz in stereo (bursts a third as loud on the right) puts every burst within 2 ms too",
          arguments: [(8, 1), (1, 2)] as [(Int64, Int64)])
    func timeDomainStereo(target: Int64, source: Int64) throws {
        let scale = Self.scale(target, source)
        let (errors, count) = try Self.errors(.timeDomain, scale, rate: 44100, stereo: true)
        #expect(count == Int(scale.stretched(Int64(Self.bursts(scale, rate: 44100).last! + 44100 / 4))!))
        #expect(errors.count == 6)
        for (k, e) in errors.enumerated() {
            #expect(abs(e) <= 88, "time-domain ×\(scale) 44.1 kHz: burst \(k) \(e) samples off")
        }
    }

    @Test("varispeed puts every burst within 1 ms of its picture", arguments: [(8, 1), (2, 1), (1, 2), (1, 8)] as [(Int64, Int64)])
    func varispeed(target: Int64, source: Int64) throws {
        let (errors, _) = try Self.errors(.varispeed, Self.scale(target, source))
        #expect(errors.allSatisfy { abs($0) <= 48 }, "\(errors)")
    }

    @Test("spectral puts every burst within a frame at ×4, ×2 and 2× speed (at ×8 up to 35 ms early over the quiet tone: printed)")
    func spectral() throws {
        for (t, s) in [(4, 1), (2, 1), (1, 2)] as [(Int64, Int64)] {
            let (errors, _) = try Self.errors(.spectral, Self.scale(t, s))
            #expect(errors.allSatisfy { abs($0) <= Self.frame }, "spectral ×\(t)/\(s): \(errors)")
        }
        _ = try Self.errors(.spectral, Self.scale(8, 1))
    }
}
