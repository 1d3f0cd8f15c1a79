import Foundation
@testable import Pipeline
import Testing

/// A tone that runs to the range's end keeps its level to the end with `time-domain` (fed silence
/// after the range, its last windows spliced against nothing: blocks at 0.001 to 0.04 where the
/// tone is 0.2 in the last 70 ms at ×8).
@Suite("Audio time stretch: the range's end")
struct TimeStretchEndTests {
    @Test("time-domain at ×8: a 440 Hz tone running to the end is at its level in every 5 ms of the last 100 ms")
    func endLevel() throws {
        typealias S = StretchSignal
        let scale = try TimeStretchScale(target: 8, source: 1)
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: .timeDomain, scale: scale)
        let lead = Int(s.primingSamples)
        let all = S.sine(440, rate: 48000, count: lead + 48000, amplitude: 0.28)
        try s.prime([try S.frame([all], from: 0, count: lead, rate: 48000, layout: "mono")])
        var out: [Float] = []
        for at in stride(from: lead, to: lead + 48000, by: 1024) {
            try s.feed(try S.frame([all], from: at, count: min(1024, lead + 48000 - at), rate: 48000, layout: "mono"))
            while let f = try s.drain() { let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self); out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples))) }
        }
        try s.finish()
        while let f = try s.drain() { let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self); out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples))) }
        #expect(out.count == 384000)
        #expect(s.paddedSamples == 0)
        // A 0.28 sine is 0.198 over whole periods; 5 ms blocks of 440 Hz vary from 0.19 to 0.21.
        for at in stride(from: out.count - 4800, to: out.count, by: 240) {
            let level = S.rms(out[at..<(at + 240)])
            #expect(level > 0.17, "block at \(at): \(level)")
        }
    }
}

extension TimeStretchEndTests {
    /// A 1 kHz tone (48 samples a period at 48 kHz) at 0.28: 0.198 in every block of whole periods.
    static func endBlocks(_ out: [Float]) -> [(at: Int, level: Double)] {
        let block = out.count >= 240 ? 240 : out.count / 48 * 48
        guard block > 0 else { return [] }
        return stride(from: out.count - block, through: max(0, out.count - 4800), by: -block).map { at in
            (at, Double(StretchSignal.rms(out[at..<(at + block)])))
        }
    }

    @Test("time-domain at 1/8…8 speed: a 1 kHz tone running to the end is at its level in every 5 ms of the last 100 ms, short ranges too",
          arguments: [(Int64(8), Int64(1)), (4, 1), (2, 1), (3, 2), (2, 3), (1, 2), (1, 4), (1, 8)])
    func endLevelEveryScale(t: Int64, s: Int64) throws {
        let scale = try TimeStretchScale(target: t, source: s)
        for count in [48000, 4800, 2400, 2080] {
            let input = StretchSignal.sine(1000, rate: 48000, count: count, amplitude: 0.28)
            let out = try StretchSignal.stretch([input], rate: 48000, layout: "mono", method: .timeDomain, scale: scale, chunks: [1024]).planes[0]
            #expect(Int64(out.count) == scale.stretched(Int64(count)))
            let blocks = Self.endBlocks(out)
            #expect(!blocks.isEmpty)
            for (at, level) in blocks {
                #expect(level > 0.17, "\(count) × \(scale): block at \(at) of \(out.count): \(level)")
            }
        }
    }

    @Test("time-domain fills a caller's longer fixed length from the source: the tone holds its level to the length's last sample")
    func fixedLengthLevel() throws {
        let scale = try TimeStretchScale(target: 8, source: 1)
        let input = StretchSignal.sine(1000, rate: 48000, count: 4800, amplitude: 0.28)
        let out = try StretchSignal.stretch([input], rate: 48000, layout: "mono", method: .timeDomain, scale: scale,
                                            chunks: [1024], targetSamples: 50000).planes[0]
        #expect(out.count == 50000)
        // From the stretched range's end (38400) to the fixed length's.
        for at in stride(from: 50000 - 240, through: 38400, by: -240) {
            let level = StretchSignal.rms(out[at..<(at + 240)])
            #expect(level > 0.17, "block at \(at): \(level)")
        }
    }
}
