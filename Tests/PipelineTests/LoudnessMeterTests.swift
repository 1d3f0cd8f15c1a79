import Foundation
@testable import Pipeline
import Testing

/// The BS.1770-4 / EBU R128 kernel against known values: EBU Tech 3341's basic cases (a 1 kHz
/// sine's loudness, the gates), the channel weights, the filters at other rates, and true peak
/// between samples.
@Suite("Loudness meter: BS.1770-4 integrated loudness, gates, channel weights, true peak")
struct LoudnessMeterTests {
    /// `seconds` of a sine of `frequency` Hz at `dbfs` (peak), phase `phase`, in each of `channels` planes.
    static func sine(_ frequency: Double, dbfs: Double, seconds: Double, rate: Int = 48000, phase: Double = 0) -> [Float] {
        let amplitude = pow(10, dbfs / 20)
        return (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate) + phase)) }
    }

    /// `planes` (one per channel of `names`) measured, fed in blocks of 1000.
    static func measure(_ planes: [[Float]], names: [String], rate: Int = 48000) -> LoudnessMeter.Measurement {
        var meter = LoudnessMeter(sampleRate: rate, channels: names)
        let count = planes[0].count
        var at = 0
        while at < count {
            let n = min(1000, count - at)
            let pointers = planes.map { p in p.withUnsafeBufferPointer { UnsafePointer($0.baseAddress! + at) } }
            meter.add(pointers, count: n)
            at += n
        }
        return meter.measurement
    }

    @Test("EBU 3341 case 1: a 1 kHz sine at -23 dBFS in both stereo channels reads -23.0 LUFS; at -20 dBFS, -20.0")
    func sineStereo() throws {
        for level in [-23.0, -20.0] {
            let s = Self.sine(1000, dbfs: level, seconds: 20)
            let m = Self.measure([s, s], names: ["FL", "FR"])
            let integrated = try #require(m.integrated)
            #expect(abs(integrated - level) <= 0.1, "\(integrated)")
            #expect(abs(m.truePeak - level) <= 0.1, "\(m.truePeak)")
        }
    }

    @Test("the filters are made for the sound's rate: the -20 dBFS sine reads -20.0 LUFS at 44.1, 32 and 96 kHz too")
    func otherRates() throws {
        for rate in [44100, 32000, 96000] {
            let s = Self.sine(1000, dbfs: -20, seconds: 10, rate: rate)
            let integrated = try #require(Self.measure([s, s], names: ["FL", "FR"], rate: rate).integrated)
            #expect(abs(integrated + 20) <= 0.1, "\(rate) Hz: \(integrated)")
        }
    }

    @Test("EBU 3341 cases 3 and 5: quieter passages fall under the relative gate; the whole reads -23.0 LUFS")
    func relativeGate() throws {
        // Case 3: 10 s at -36, 60 s at -23, 10 s at -36 dBFS.
        let three = Self.sine(1000, dbfs: -36, seconds: 10) + Self.sine(1000, dbfs: -23, seconds: 60) + Self.sine(1000, dbfs: -36, seconds: 10)
        let m3 = try #require(Self.measure([three, three], names: ["FL", "FR"]).integrated)
        #expect(abs(m3 + 23) <= 0.1, "\(m3)")
        // Case 5: 20 s at -26, 20.1 s at -20, 20 s at -26 dBFS.
        let five = Self.sine(1000, dbfs: -26, seconds: 20) + Self.sine(1000, dbfs: -20, seconds: 20.1) + Self.sine(1000, dbfs: -26, seconds: 20)
        let m5 = try #require(Self.measure([five, five], names: ["FL", "FR"]).integrated)
        #expect(abs(m5 + 23) <= 0.1, "\(m5)")
    }

    @Test("the absolute gate: a sine at -75 dBFS is silence; silence beside a tone does not lower its loudness")
    func absoluteGate() throws {
        let quiet = Self.sine(1000, dbfs: -75, seconds: 5)
        #expect(Self.measure([quiet, quiet], names: ["FL", "FR"]).integrated == nil)
        let zeros = [Float](repeating: 0, count: 48000 * 5)
        let silent = Self.measure([zeros, zeros], names: ["FL", "FR"])
        #expect(silent.integrated == nil)
        #expect(silent.truePeak == -.infinity)
        // Only the blocks that straddle the tone's edges (6 of 203) lower it, by 0.07 LU.
        let mixed = zeros + Self.sine(1000, dbfs: -20, seconds: 20) + zeros
        let m = try #require(Self.measure([mixed, mixed], names: ["FL", "FR"]).integrated)
        #expect(abs(m + 20) <= 0.1, "\(m)")
    }

    @Test("channel weights: one channel alone is 3 dB under a stereo pair, a surround 1.41 times it, the LFE nothing")
    func channelWeights() throws {
        let s = Self.sine(1000, dbfs: -20, seconds: 10)
        let z = [Float](repeating: 0, count: s.count)
        let names = ["FL", "FR", "FC", "LFE", "BL", "BR"]
        let centre = try #require(Self.measure([z, z, s, z, z, z], names: names).integrated)
        #expect(abs(centre + 23.01) <= 0.1, "\(centre)")
        let surround = try #require(Self.measure([z, z, z, z, s, z], names: names).integrated)
        #expect(abs(surround - (centre + 10 * log10(1.41))) <= 0.05, "\(surround) vs \(centre)")
        #expect(Self.measure([z, z, z, s, z, z], names: names).integrated == nil)
    }

    @Test("true peak between samples: a 12 kHz sine at 45° has samples at -9.03 dBFS and peaks at -6.02 dBTP")
    func truePeakBetweenSamples() {
        let s = Self.sine(12000, dbfs: -6.0206, seconds: 1, phase: .pi / 4)
        let m = Self.measure([s, s], names: ["FL", "FR"])
        let samplePeak = 20 * log10(Double(s.map { abs($0) }.max() ?? 0))
        #expect(abs(samplePeak + 9.03) < 0.01)
        #expect(abs(m.truePeak + 6.02) <= 0.3, "\(m.truePeak)")
    }

    @Test("the gain: target minus measured; lowered to keep the true peak at the ceiling; none for silence")
    func gain() {
        let plain = LoudnessGain(measured: .init(integrated: -30, truePeak: -20, range: nil), target: -16, ceiling: -1)
        #expect(plain.decibels == 14 && !plain.peakLimited && plain.result == -16)
        let limited = LoudnessGain(measured: .init(integrated: -20, truePeak: -4, range: nil), target: -16, ceiling: -1)
        #expect(limited.decibels == 3 && limited.peakLimited && limited.result == -17)
        let silent = LoudnessGain(measured: .init(integrated: nil, truePeak: -80, range: nil), target: -16, ceiling: -1)
        #expect(silent.decibels == 0 && silent.result == nil)
    }
}
