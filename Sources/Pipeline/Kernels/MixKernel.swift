import Foundation
import Recipe

/// The arithmetic of a mix, on planar float samples of one rate and layout: an explicit weighted
/// sum (no hidden 1/n), then the stated limit. Float has the headroom: a sum past full scale is
/// kept until the limit decides. (FFmpeg/MixFormat.swift applies it to frames.)
enum MixKernel {
    /// `dst[i] += gains[i] · src[i]` for i below `count` (at most the gains' count).
    static func accumulate(_ src: UnsafePointer<Float>, gains: [Float], into dst: UnsafeMutablePointer<Float>, count n: Int) {
        gains.withUnsafeBufferPointer { g in
            for i in 0..<n { dst[i] += g[i] * src[i] }
        }
    }

    /// `d[i] *= gains[i]` for i below `count` (at most the gains' count).
    static func scale(_ d: UnsafeMutablePointer<Float>, by gains: [Float], count n: Int) {
        gains.withUnsafeBufferPointer { g in
            for i in 0..<n { d[i] *= g[i] }
        }
    }

    /// The soft limiter's knee: samples up to −1 dBFS pass untouched.
    static let knee = Float(pow(10, -1.0 / 20))

    /// Applies `rule` to `count` samples.
    static func limit(_ d: UnsafeMutablePointer<Float>, count n: Int, _ rule: MixLimit) {
        for i in 0..<n { d[i] = limited(d[i], rule) }
    }
    /// One sample through the limit: `clip` cuts at ±1; `soft` bends what is above the knee
    /// towards ±1 along tanh, continuous and smooth at the knee, never reaching full scale.
    static func limited(_ x: Float, _ rule: MixLimit) -> Float {
        switch rule {
        case .clip: return min(1, max(-1, x))
        case .soft:
            let a = abs(x)
            guard a > knee else { return x }
            let room = 1 - knee
            let y = knee + room * Float(tanh(Double((a - knee) / room)))
            return x < 0 ? -y : y
        }
    }
}
