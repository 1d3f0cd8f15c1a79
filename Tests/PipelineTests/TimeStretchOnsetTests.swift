@testable import Pipeline
import Recipe
import Testing

/// Where a tone's onset lands, per method: varispeed and time-domain on the sample (within the
/// 10 ms blocks it is found in), spectral within one 30 fps frame (33 ms) of it once the stretcher
/// has led it in and taken out its measured lead (without that, 100 ms early at ×8;
/// docs/engine-audio-stretch.md).
@Suite("Audio time stretch onsets")
struct TimeStretchOnsetTests {
    typealias S = StretchSignal

    /// The onset's shift in samples (negative: early) of a 1 kHz tone starting at `at` samples of
    /// a 1 s range, found in 480-sample (10 ms) blocks.
    static func shift(_ method: TimeStretcher.Method, target: Int64, source: Int64, at: Int = 24000) throws -> Int {
        let input = S.sine(1000, rate: 48000, count: 48000, from: at)
        let scale = try TimeStretchScale(target: target, source: source)
        let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale)
        let block = 480
        let onset = stride(from: 0, to: out.count - block, by: block).first { S.rms(out.planes[0][$0..<($0 + block)]) > 0.5 * 0.5 / 2.squareRoot() }
        let expected = Int(scale.stretched(Int64(at))!)
        let shift = (onset ?? Int.min / 2) - expected
        print("time stretch onset \(method.rawValue) × \(scale): \(shift) samples (\(Double(shift) / 48) ms)")
        return shift
    }

    @Test("varispeed puts the onset on the sample the scale says, within one 10 ms block, slowed or sped up")
    func varispeed() throws {
        #expect(abs(try Self.shift(.varispeed, target: 8, source: 1)) <= 480)
        #expect(abs(try Self.shift(.varispeed, target: 1, source: 2)) <= 480)
    }

    /// One frame at 30 fps, in 48 kHz samples.
    static let frame = 1600

    @Test("at ×8 spectral puts an onset within one 30 fps frame of its place anywhere in the range; time-domain within one 10 ms block")
    func pitchKeepingSlow() throws {
        for at in [2400, 24000, 40000] {
            let shift = try Self.shift(.spectral, target: 8, source: 1, at: at)
            #expect(abs(shift) <= Self.frame, "spectral at \(at): \(shift) samples")
        }
        // WSOLAKernel puts each onset on its sample: 0, 0, 0 and -320 samples (the block the
        // onset at 320000 falls in starts at 319680); chained atempo was -20, +10, -10 and +73 ms.
        for at in [2400, 4800, 24000, 40000] {
            let shift = try Self.shift(.timeDomain, target: 8, source: 1, at: at)
            #expect(abs(shift) <= 480, "time-domain at \(at): \(shift) samples")
        }
    }

    @Test("at 2× speed the pitch-keeping kernels land within one 30 fps frame", arguments: [TimeStretcher.Method.spectral, .timeDomain])
    func pitchKeepingFast(method: TimeStretcher.Method) throws {
        let fast = try Self.shift(method, target: 1, source: 2)
        #expect(abs(fast) <= Self.frame, "\(method.rawValue) 1/2: \(fast) samples")
    }

    @Test("at 30000/1001 (×30) spectral smears the onset over a quarter second and lands within 60 ms (measured 57 ms late); time-domain within one 10 ms block")
    func pitchKeepingVerySlow() throws {
        let spectral = try Self.shift(.spectral, target: 30000, source: 1001, at: 12000)
        #expect(abs(spectral) <= 2880, "spectral: \(spectral) samples")
        let timeDomain = try Self.shift(.timeDomain, target: 30000, source: 1001, at: 12000)
        #expect(abs(timeDomain) <= 480, "time-domain: \(timeDomain) samples")
    }

    @Test("the lead-in is a real lead-in: a stretcher led in with the tone itself gives the same onset as one led in with silence")
    func primedWithAudio() throws {
        let scale = try TimeStretchScale(target: 8, source: 1)
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: .spectral, scale: scale)
        #expect(s.primingSamples == 24000)
        // Pre-range audio: a 440 Hz tone that stops 0.1 s before the range; the range's 1 kHz
        // onset at 0.5 s still lands within a frame of 4 s.
        let pre = S.sine(440, rate: 48000, count: 24000).enumerated().map { $0.offset < 19200 ? $0.element : 0 }
        try s.prime([try S.frame([pre], from: 0, count: 24000, rate: 48000, layout: "mono")])
        let input = S.sine(1000, rate: 48000, count: 48000, from: 24000)
        var out: [Float] = []
        func take() throws {
            while let f = try s.drain() {
                let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples)))
            }
        }
        for at in stride(from: 0, to: 48000, by: 1024) {
            try s.feed(try S.frame([input], from: at, count: min(1024, 48000 - at), rate: 48000, layout: "mono"))
            try take()
        }
        try s.finish()
        try take()
        #expect(out.count == 384000)
        let onset = stride(from: 0, to: out.count - 480, by: 480).first { S.rms(out[$0..<($0 + 480)]) > 0.5 * 0.5 / 2.squareRoot() }
        #expect(abs((onset ?? 0) - 192000) <= Self.frame, "onset at \(onset ?? -1)")
        #expect(throws: MediaError(.processing, "time stretch: the lead-in comes before the range's first sample")) { try s.prime([]) }
    }
}
