@testable import Pipeline
import Recipe
import Testing

/// The exact count is only worth something if the kernel made it: `drain` pads with silence and
/// trims whatever the kernel did, so these tests look at what was padded and at the sound.
@Suite("Audio time stretch accounting")
struct TimeStretchAccountingTests {
    typealias S = StretchSignal

    struct Run {
        var out: [Float]
        var padded: Int64
        var trimmed: Int64
    }

    static func run(_ input: [Float], method: TimeStretcher.Method, scale: TimeStretchScale, chunk: Int = 1000) throws -> Run {
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: method, scale: scale)
        var out: [Float] = []
        func take() throws {
            while let f = try s.drain() {
                let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples)))
            }
        }
        for at in stride(from: 0, to: input.count, by: chunk) {
            try s.feed(try S.frame([input], from: at, count: min(chunk, input.count - at), rate: 48000, layout: "mono"))
            try take()
        }
        #expect(s.paddedSamples == 0 && s.trimmedSamples == 0, "nothing is padded or trimmed before finish")
        try s.finish()
        try take()
        #expect(Int64(out.count) == s.targetSamples)
        return Run(out: out, padded: s.paddedSamples, trimmed: s.trimmedSamples)
    }

    static let scales: [(Int64, Int64)] = [(1, 3), (1, 2), (2, 3), (3, 2), (8, 1), (30000, 1001), (1, 100), (100, 1)]

    @Test("a scaled range longer than a window is made by the kernel, not padded with silence",
          arguments: [TimeStretcher.Method.spectral, .timeDomain, .varispeed])
    func noPadding(method: TimeStretcher.Method) throws {
        let input = S.sine(1000, rate: 48000, count: 4097)
        for (t, s) in Self.scales {
            let scale = try TimeStretchScale(target: t, source: s)
            let r = try Self.run(input, method: method, scale: scale)
            #expect(r.padded == 0, "\(method.rawValue): 4097 × \(scale) padded \(r.padded) of \(r.out.count)")
        }
    }

    @Test("mute makes its silence itself and pads a caller's longer fixed length; the other kernels fill it themselves")
    func muteAndFixedTargets() throws {
        let input = S.sine(1000, rate: 48000, count: 4800)
        let mute = try Self.run(input, method: .mute, scale: try TimeStretchScale(target: 8, source: 1))
        #expect(mute.out.count == 38400 && mute.padded == 0 && mute.trimmed == 0)
        let scale = try TimeStretchScale(target: 8, source: 1)
        for method in TimeStretcher.Method.allCases {
            let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: method, scale: scale, targetSamples: 50000)
            try s.feed(try S.frame([input], from: 0, count: 4800, rate: 48000, layout: "mono"))
            try s.finish()
            var n: Int64 = 0
            while let f = try s.drain() { n += Int64(f.samples) }
            #expect(n == 50000)
            // mute makes its 38400 and the rest is padding; the other kernels are pushed with
            // silence until they reach the target, so their own output fills it.
            #expect(s.paddedSamples == (method == .mute ? 50000 - 38400 : 0), "\(method.rawValue)")
            #expect(s.trimmedSamples >= 0)
        }
    }

    @Test("every small range of a tone long enough to hold one has sound in its output, for every pitch-keeping and tape method",
          arguments: [TimeStretcher.Method.spectral, .timeDomain, .varispeed])
    func smallRangesHoldSound(method: TimeStretcher.Method) throws {
        // From 1023 samples on: rubberband makes next to nothing of 100 (rms below 0.004 of
        // the tone's 0.35), its start-up swallowing the range.
        for n in [1023, 1024, 1025, 2049, 4097] {
            let input = S.sine(1000, rate: 48000, count: n)
            for (t, s) in Self.scales {
                let scale = try TimeStretchScale(target: t, source: s)
                let r = try Self.run(input, method: method, scale: scale)
                let rms = S.rms(r.out[...])
                print("stretch accounting \(method.rawValue) \(n) × \(scale): \(r.out.count) out, padded \(r.padded), trimmed \(r.trimmed), rms \(rms)")
                // At least 48 samples out (1 ms, a period of the tone at 1 kHz) can hold it.
                #expect(rms > 0, "\(method.rawValue): \(n) × \(scale) is all silence")
                if r.out.count >= 48 { #expect(rms > 0.01, "\(method.rawValue): \(n) × \(scale) is silent (rms \(rms))") }
            }
        }
    }
}
