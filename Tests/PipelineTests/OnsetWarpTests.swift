import Foundation
@testable import Pipeline
import Testing

/// The two pieces `WSOLAKernel` places onsets with: where the detector puts an onset, and how the
/// warp bends the mapping around it.
@Suite("Onsets for the time-domain stretch")
struct OnsetWarpTests {
    @Test("the detector finds a burst over a quiet tone on its first sample above a quarter of its peak, once")
    func detector() {
        let rate = 48000, at = 30011
        let x: [Float] = (0..<rate).map { i in
            var v = 0.05 * sin(2 * Double.pi * 300 * Double(i) / Double(rate))
            if i >= at, i < at + 4800 { v += 0.5 * sin(2 * Double.pi * 1000 * Double(i - at) / Double(rate) + 0.6) }
            return Float(v)
        }
        var d = OnsetDetector(sampleRate: Int32(rate), refractory: 3360)
        // Fed in two pieces: the scan goes on where it stopped.
        let found = x.withUnsafeBufferPointer { b in
            d.scan(b, base: 0, available: 20000) + d.scan(b, base: 0, available: Int64(rate))
        }
        // 0.5 × sin(0.6) = 0.28, past a quarter of the block's peak (at most 0.55): the burst's first sample.
        // The quiet tone's own start out of silence is an onset too: its sample 7 is the first
        // past a quarter of its first block's peak (0.0136 > 0.048 / 4).
        #expect(found == [7, Int64(at)])
        #expect(d.scanned == Int64(rate / 48 * 48))
    }

    @Test("slowed ×8, the warp plays the source at its own speed around an onset, holds it still either side, and is the plain mapping elsewhere")
    func slowDown() throws {
        var w = OnsetWarp(scale: try TimeStretchScale(target: 8, source: 1), before: 1280, after: 1280)
        w.add(10000)
        #expect(w.position(80000) == 10000)
        #expect(w.position(80000 - 1280) == 10000 - 1280)
        #expect(w.position(80000 + 1280) == 10000 + 1280)
        // Held before and after.
        #expect(w.position(80000 - 5000) == 10000 - 1280)
        #expect(w.position(80000 + 5000) == 10000 + 1280)
        // Plain beyond the holds (8 × 1280 away).
        #expect(w.position(80000 - 10240) == 10000 - 1280)
        #expect(w.position(80000 - 20000) == (80000 - 20000) / 8)
        #expect(w.position(80000 + 20000) == (80000 + 20000) / 8)
        // Never backwards.
        var last = Int64.min
        for o in stride(from: Int64(60000), to: 100000, by: 7) {
            let p = w.position(o)
            #expect(p >= last, "at \(o)")
            last = p
        }
    }

    @Test("sped up ×1/4, the warp plays the source at its own speed around an onset and jumps either side")
    func speedUp() throws {
        var w = OnsetWarp(scale: try TimeStretchScale(target: 1, source: 4), before: 1280, after: 1280)
        w.add(40000)
        #expect(w.position(10000) == 40000)
        #expect(w.position(10000 - 1280) == 40000 - 1280)
        #expect(w.position(10000 + 1280) == 40000 + 1280)
        #expect(w.position(10000 - 1281) == (10000 - 1281) * 4)
        #expect(w.position(10000 + 1281) == (10000 + 1281) * 4)
    }
}
