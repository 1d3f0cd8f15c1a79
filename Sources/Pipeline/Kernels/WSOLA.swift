import Foundation
import Recipe

/// `time-domain`: WSOLA (waveform-similarity overlap-add) in one stage at any scale, with each
/// onset on its sample.
///
/// Output is made in fragments of `window` samples (Hann, half overlapping, so the weights add up
/// to 1), one every `hop` output samples. Fragment k is centred on output sample c = k × hop +
/// window/2 and takes the source around `OnsetWarp.position(c)` (the plain mapping c × source /
/// target, bent at onsets), moved by up to `tolerance` samples to where the source best continues
/// the previous fragment (normalised cross-correlation on the channels' mix): a seamless splice,
/// so the pitch stays. A fragment whose window holds an onset is not moved, so the onset sounds
/// exactly where the warp puts it: on its due sample. libavfilter's atempo, which this replaces,
/// has to be chained at 0.5…2 per stage, and each stage's splice choice moved an onset by up to
/// half a window, multiplied by the stages after it: ±83 ms at 1/8 speed, 90 ms late over a quiet
/// tone (docs/engine-audio-stretch.md).
// Not Sendable: owned by one WSOLAKernel (FFmpeg/WSOLAKernel.swift, which feeds it frames).
final class WSOLA {
    let channels: Int
    private let window: Int
    private let hop: Int
    private let tolerance: Int
    private let shape: [Float]
    private var warp: OnsetWarp
    private var detector: OnsetDetector
    /// Source per channel and its mix, from absolute source sample `base` (negative: the silence
    /// before the first sample).
    private var input: [[Float]]
    private var mix: [Float]
    private var base: Int64
    private var fed: Int64 = 0
    private var ended = false
    /// The output sample the range ends at (known once the input has ended): the fragments up
    /// to it read the source only, holding its last window still rather than reading past it.
    private var outputEnd: Int64?
    private var done = false
    private var fragment: Int64 = 0
    private var previousStart: Int64?
    /// The overlap-add sums per channel, from output sample `fragment × hop`.
    private var sums: [[Float]]

    init(scale: TimeStretchScale, sampleRate: Int32, channels: Int) {
        self.channels = channels
        // About 33 ms windows (1600 samples at 48 kHz), splices moved by up to 10 ms: a period of
        // 100 Hz either way, enough to line up voices and most instruments.
        let hop = max(8, Int(sampleRate) / 60), window = 2 * hop
        self.hop = hop
        self.window = window
        tolerance = max(2, Int(sampleRate) / 100)
        shape = (0..<window).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window))) }
        let margin = Int64(hop + tolerance)
        warp = OnsetWarp(scale: scale, before: margin, after: margin)
        detector = OnsetDetector(sampleRate: sampleRate, refractory: 2 * margin + Int64(hop))
        let pad = 2 * window + 4 * tolerance + Int(margin)
        base = -Int64(pad)
        input = Array(repeating: Array(repeating: 0, count: pad), count: channels)
        mix = Array(repeating: 0, count: pad)
        sums = Array(repeating: Array(repeating: 0, count: window), count: channels)
    }

    /// Whether the input has ended (nothing more is taken).
    var hasEnded: Bool { ended }

    /// Takes the next source samples, one buffer per channel (all of one length), and makes
    /// every fragment they allow: per channel, the output samples made (none yet: empty).
    func feed(_ planes: [UnsafeBufferPointer<Float>]) -> [[Float]] {
        guard !ended, let n = planes.first?.count, n > 0 else { return [] }
        let start = mix.count
        mix.append(contentsOf: repeatElement(0, count: n))
        for c in 0..<channels {
            let p = planes[c]
            input[c].append(contentsOf: p)
            let w = 1 / Float(channels)
            mix.withUnsafeMutableBufferPointer { m in
                var i = 0
                while i < n { m[start + i] += w * p[i]; i += 1 }
            }
        }
        fed += Int64(n)
        let found = mix.withUnsafeBufferPointer { detector.scan($0, base: base, available: fed) }
        for t in found { warp.add(t) }
        return produce()
    }

    /// Ends the input and makes the rest: output up to kernel output sample `outputEnd` (the
    /// range's end, a caller's fixed length included; nil: round(fed × scale)), every sample of
    /// it from the source.
    func end(outputEnd: Int64?) -> [[Float]] {
        guard !ended else { return [] }
        self.outputEnd = outputEnd ?? WideArithmetic.mulDiv(fed, warp.scale.target, warp.scale.source, rounding: .nearest)
        ended = true
        // What lies past the end is silence: only a window that holds an onset may read it.
        let pad = 2 * window + 4 * tolerance + Int(warp.before + warp.after)
        for c in 0..<channels { input[c].append(contentsOf: repeatElement(0, count: pad)) }
        mix.append(contentsOf: repeatElement(0, count: pad))
        return produce()
    }

    /// Makes every fragment the input fed so far allows.
    private func produce() -> [[Float]] {
        guard !done else { return [] }
        let half = Int64(window / 2)
        var made: [[Float]] = Array(repeating: [], count: channels)
        while true {
            let centre = fragment * Int64(hop) + half
            let nominal = warp.nominal(centre)
            if ended {
                // Each fragment completes the hop it starts at: stop once the end is complete.
                if fragment * Int64(hop) >= outputEnd ?? 0 {
                    done = true
                    break
                }
            } else {
                // The window, its search and the onsets that bend the mapping here must be in.
                let need = max(nominal + warp.after, warp.nominal(centre + warp.reach)) + half + Int64(tolerance) + 2 * Int64(detector.block) + 1
                guard fed >= need else { break }
            }
            let start = place(centre: centre)
            add(start)
            for c in 0..<channels {
                made[c].append(contentsOf: sums[c][0..<hop])
                sums[c].withUnsafeMutableBufferPointer { s in
                    var i = 0
                    while i < window - hop { s[i] = s[i + hop]; i += 1 }
                    while i < window { s[i] = 0; i += 1 }
                }
            }
            previousStart = start
            fragment += 1
        }
        trim()
        return made
    }

    /// The source sample fragment `centre` starts at.
    private func place(centre: Int64) -> Int64 {
        let planned = warp.position(centre) - Int64(window / 2)
        // A window that holds an onset stays (the onset is placed).
        for (t, _) in warp.onsets where t >= planned && t < planned + Int64(window) { return planned }
        // At the input's end a window reads the source only up to the range's end, so the end holds
        // the last window still: read past it, the last windows fade out and splice against
        // silence (the last 70 ms at ×8 dipped to nothing). Never back to an onset it is past.
        var latest = Int64.max
        if ended {
            let ahead = min(Int64(window), max(0, (outputEnd ?? 0) - (centre - Int64(window / 2))))
            latest = fed - ahead
        }
        var a = min(planned, latest)
        for (t, _) in warp.onsets where t < planned { a = max(a, t + 1) }
        // How far the splice may move: one before an onset does not reach it, one after it does
        // not go back to it, none past the source's end.
        var lo = -Int64(tolerance), hi = Int64(tolerance)
        if ended { hi = min(hi, max(0, latest - a)) }
        for (t, _) in warp.onsets {
            if t >= a, t < a + Int64(window) { return a }
            if t >= a + Int64(window) { hi = min(hi, t - Int64(window) - a) } else { lo = max(lo, t + 1 - a) }
        }
        guard let previous = previousStart, lo < hi else { return a }
        // The source just after the previous fragment's first half continues it seamlessly.
        let natural = previous + Int64(hop)
        if natural >= a + lo, natural <= a + hi { return natural }
        return bestMatch(to: natural, near: a, lo: lo, hi: hi)
    }

    /// The start in a + lo … a + hi whose `hop` samples best match those from `template`:
    /// coarse (every other start, every fourth sample), then every start near the best.
    private func bestMatch(to template: Int64, near a: Int64, lo: Int64, hi: Int64) -> Int64 {
        mix.withUnsafeBufferPointer { m in
            let t = m.baseAddress! + Int(template - base)
            func score(_ s: Int64, step: Int) -> Float {
                let x = m.baseAddress! + Int(s - base)
                var dot: Float = 0, energy: Float = 0
                var n = 0
                while n < hop {
                    let v = x[n]
                    dot += t[n] * v
                    energy += v * v
                    n += step
                }
                return dot / (energy + 1e-12).squareRoot()
            }
            // Silence or a tie keeps the plain place.
            var best = a, bestScore = score(a, step: 4)
            var s = a + lo
            while s <= a + hi {
                let v = score(s, step: 4)
                if v > bestScore { best = s; bestScore = v }
                s += 2
            }
            let coarse = best
            bestScore = score(best, step: 1)
            s = max(a + lo, coarse - 2)
            while s <= min(a + hi, coarse + 2) {
                let v = score(s, step: 1)
                if v > bestScore { best = s; bestScore = v }
                s += 1
            }
            return best
        }
    }

    /// Adds the fragment of source from `start` to the sums, weighted by the window.
    private func add(_ start: Int64) {
        let from = Int(start - base)
        for c in 0..<channels {
            input[c].withUnsafeBufferPointer { x in
                sums[c].withUnsafeMutableBufferPointer { s in
                    shape.withUnsafeBufferPointer { w in
                        var i = 0
                        while i < window { s[i] += w[i] * x[from + i]; i += 1 }
                    }
                }
            }
        }
    }

    /// Drops the source no later fragment, search or onset scan can reach.
    private func trim() {
        let centre = fragment * Int64(hop) + Int64(window / 2)
        let lowest = min(warp.nominal(max(0, centre - warp.reach)), warp.nominal(centre) - warp.before)
        var keep = lowest - Int64(window + 2 * tolerance)
        if let previousStart { keep = min(keep, previousStart + Int64(hop)) }
        keep = min(keep, detector.scanned - 2 * Int64(detector.block))
        // The end's held window.
        keep = min(keep, fed - Int64(window + 2 * tolerance))
        warp.forget(before: centre - Int64(window))
        let drop = Int(keep - base)
        guard drop > 1 << 16 else { return }
        for c in 0..<channels { input[c].removeFirst(drop) }
        mix.removeFirst(drop)
        base += Int64(drop)
    }
}
