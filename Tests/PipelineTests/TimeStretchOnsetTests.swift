@testable import Pipeline
import Recipe
import Testing

/// Where a tone's onset lands, per method, bounded by what each kernel measurably does (not by a
/// window × scale that would hide a shift): varispeed on the sample, the pitch-keeping kernels
/// early by their measured lead (docs/engine-audio-stretch.md states the numbers).
@Suite("Audio time stretch onsets")
struct TimeStretchOnsetTests {
    typealias S = StretchSignal

    /// The onset's shift in samples (negative: early) of a 1 kHz tone starting at 0.5 s of a 1 s
    /// range, found in 480-sample (10 ms) blocks.
    static func shift(_ method: TimeStretcher.Method, target: Int64, source: Int64) throws -> Int {
        let input = S.sine(1000, rate: 48000, count: 48000, from: 24000)
        let scale = try TimeStretchScale(target: target, source: source)
        let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale)
        let block = 480
        let onset = stride(from: 0, to: out.count - block, by: block).first { S.rms(out.planes[0][$0..<($0 + block)]) > 0.5 * 0.5 / 2.squareRoot() }
        let expected = Int(scale.stretched(24000)!)
        let shift = (onset ?? Int.min / 2) - expected
        print("time stretch onset \(method.rawValue) × \(scale): \(shift) samples (\(Double(shift) / 48) ms)")
        return shift
    }

    @Test("varispeed puts the onset on the sample the scale says, within one 10 ms block, slowed or sped up")
    func varispeed() throws {
        #expect(abs(try Self.shift(.varispeed, target: 8, source: 1)) <= 480)
        #expect(abs(try Self.shift(.varispeed, target: 1, source: 2)) <= 480)
    }

    @Test("at ×8 spectral leads by 100 ms and time-domain by 230 ms (bounded at 120 and 250 ms); never late by more than a block",
          arguments: [(TimeStretcher.Method.spectral, 5760), (.timeDomain, 12000)])
    func pitchKeepingSlow(method: TimeStretcher.Method, maxLead: Int) throws {
        let shift = try Self.shift(method, target: 8, source: 1)
        #expect(shift <= 480 && shift >= -maxLead, "\(method.rawValue): \(shift) samples")
    }

    @Test("at 2× speed the pitch-keeping kernels land within 15 ms", arguments: [TimeStretcher.Method.spectral, .timeDomain])
    func pitchKeepingFast(method: TimeStretcher.Method) throws {
        let shift = try Self.shift(method, target: 1, source: 2)
        #expect(abs(shift) <= 720, "\(method.rawValue): \(shift) samples")
    }
}
