import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// A scaled segment's sound in its decoded format, and what waits between feeds.
@Suite("Stretched sound of a segment")
struct StretchedSoundTests {
    typealias S = StretchSignal

    /// `count` samples of a 1 kHz tone as interleaved 16-bit stereo at 48 kHz (PCM's decoded format).
    static func s16(_ count: Int, from: Int) throws -> Frame {
        var l = AVChannelLayout()
        defer { av_channel_layout_uninit(&l) }
        av_channel_layout_default(&l, 2)
        let f = try Frame.audio(samples: Int32(count), format: AV_SAMPLE_FMT_S16, layout: &l, sampleRate: 48000)
        let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Int16.self)
        for i in 0..<count {
            let v = Int16(16000 * sin(2 * Double.pi * 1000 * Double(from + i) / 48000))
            p[2 * i] = v; p[2 * i + 1] = v
        }
        return f
    }

    @Test("16-bit interleaved sound is stretched in float and handed back as 16-bit interleaved, exactly the fixed count, stamped by count")
    func otherFormat() throws {
        let scale = try TimeStretchScale(target: 8, source: 1)
        let sound = try StretchedSound(format: try Self.s16(1024, from: 0), method: .varispeed, scale: scale, targetSamples: 96001)
        var out: [Frame] = []
        for k in 0..<12 { out += try sound.feed(try Self.s16(1000, from: 1000 * k)) }
        out += try sound.finish()
        var at: Int64 = 0
        var samples: [Int16] = []
        for f in out {
            #expect(f.sampleFormat == AV_SAMPLE_FMT_S16)
            #expect(f.channels == 2 && f.sampleRate == 48000)
            #expect(f.pts == at)
            at += Int64(f.samples)
            let p = UnsafeRawPointer(f.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Int16.self)
            samples += (0..<Int(f.samples)).map { p[2 * $0] }
        }
        #expect(at == 96001)
        // 1 kHz ÷ 8: 125 Hz.
        let hz = S.dominantFrequency(samples[24000..<72000].map { Float($0) / 32768 }[...], rate: 48000)
        #expect(abs(hz - 125) < 2, "\(hz) Hz")
    }

    @Test("at ×32, draining after every feed leaves no more waiting than the kernel's held-back lead and two frames' stretch",
          arguments: [TimeStretcher.Method.spectral, .timeDomain, .varispeed])
    func boundedAtThirtyTwo(method: TimeStretcher.Method) throws {
        let scale = try TimeStretchScale(target: 32, source: 1)
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: method, scale: scale)
        let tone = S.sine(1000, rate: 48000, count: 48000)
        var most: Int64 = 0
        for at in stride(from: 0, to: 48000, by: 1024) {
            try s.feed(try S.frame([tone], from: at, count: min(1024, 48000 - at), rate: 48000, layout: "mono"))
            while try s.drain() != nil {}
            most = max(most, s.queuedSamples)
        }
        print("stretch ×32 \(method.rawValue): at most \(most) samples wait after a drain (lead held back \(s.leadCompensation))")
        #expect(most <= s.leadCompensation + 2 * 1024 * 32, "\(method.rawValue): \(most)")
        // Under 1.5 s of output, 47 ms of source: not seconds of it.
        #expect(most < 72000, "\(method.rawValue): \(most)")
    }
}

extension StretchedSoundTests {
    @Test("a segment with sound before it but none in it (the track ended): led in, then silence of the fixed length",
          arguments: [TimeStretcher.Method.spectral, .timeDomain])
    func leadInOnly(method: TimeStretcher.Method) throws {
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: method,
                                  scale: try TimeStretchScale(target: 8, source: 1), targetSamples: 9600)
        try s.prime([try S.frame([S.sine(1000, rate: 48000, count: 4800)], from: 0, count: 4800, rate: 48000, layout: "mono")])
        try s.finish()
        var n: Int64 = 0
        while let f = try s.drain() { n += Int64(f.samples) }
        #expect(n == 9600)
    }
}
