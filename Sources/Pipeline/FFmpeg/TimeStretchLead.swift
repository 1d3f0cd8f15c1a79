import CFFmpeg
import Foundation
import Recipe

/// Where a pitch-keeping kernel puts a sound relative to where the scale says, measured on the
/// kernel itself, once per method, scale and rate in a process.
///
/// rubberband smears an onset over its analysis window and hands it out early: at 1/8 speed and
/// 48 kHz a tone onset comes ~100 ms early, and the amount depends on the scale and the rate in
/// ways no formula of ours would track. So the stretcher asks: a fresh kernel is led in with the
/// same lead-in a range gets (silence), then four 1 kHz bursts follow, and the offset is the mean
/// of where each burst's first millisecond at half the tone's level lies, minus where the scale
/// puts it. Kernels are deterministic, so the number holds for every range of that scale and rate.
/// `varispeed` is a resampler and `time-domain` (`WSOLAKernel`) puts each onset on its sample,
/// both exact by construction: 0.
enum TimeStretchLead {
    private struct Key: Hashable {
        let method: TimeStretcher.Method
        let scale: TimeStretchScale
        let sampleRate: Int32
    }

    private static let measured = Locked<[Key: Int64?]>([:])

    /// Output samples by which the kernel puts an onset late (positive) or early (negative); nil
    /// when the test bursts do not come out apart: such a range is stretched without a lead-in,
    /// as it comes.
    static func offset(method: TimeStretcher.Method, scale: TimeStretchScale, sampleRate: Int32) throws(MediaError) -> Int64? {
        guard method == .spectral, !scale.isIdentity else { return 0 }
        let key = Key(method: method, scale: scale, sampleRate: sampleRate)
        if let known = measured.withLock({ $0[key] }) { return known }
        let offset = try measure(key)
        measured.withLock { $0[key] = offset }
        return offset
    }

    /// The lead-in a range of `scale` gets at `sampleRate`: half a second of source for
    /// `spectral` (rubberband settles within a quarter), a tenth for `time-domain` (its windows,
    /// splice search and onset hold reach 70 ms back, its onset scan 20 ms), longer for a speed-up
    /// so that it still lasts as long in the kernel's output (up to 8 times).
    static func leadIn(method: TimeStretcher.Method, scale: TimeStretchScale, sampleRate: Int32) -> Int64 {
        Int64(sampleRate) / perStep(method) * speedUp(scale)
    }

    /// The same lead-in as source time, for a range whose `source` span plays in `target`: how
    /// much earlier its reader starts.
    static func leadInDuration(method: TimeStretcher.Method, source: Int64, target: Int64) -> MediaTime {
        MediaTime(value: speedUp(source: source, target: target), timescale: Int32(perStep(method)))
    }

    /// The lead-in's seconds per step of speed-up are 1/perStep.
    private static func perStep(_ method: TimeStretcher.Method) -> Int64 { method == .timeDomain ? 10 : 2 }

    private static func speedUp(_ scale: TimeStretchScale) -> Int64 { speedUp(source: scale.source, target: scale.target) }

    private static func speedUp(source: Int64, target: Int64) -> Int64 {
        min(8, max(1, (source + target - 1) / target))
    }

    /// Four tone bursts, each after a quiet stretch (the first after the range's lead-in), at
    /// different phases of the kernel's hop; the offset is their mean: WSOLA splices where the
    /// waveform fits, so one onset alone can land ±12 ms off the kernel's middle. nil when the
    /// kernel made no audible burst (a range too short to hold any).
    private static func measure(_ key: Key) throws(MediaError) -> Int64? {
        let rate = Int64(key.sampleRate)
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, 1)
        defer { av_channel_layout_uninit(&layout) }
        let kernel = try TimeStretcher.kernel(method: key.method, scale: key.scale, sampleRate: key.sampleRate, layout: &layout)
        let leadIn = leadIn(method: key.method, scale: key.scale, sampleRate: key.sampleRate)
        let gap = rate / 4 * speedUp(key.scale), tone = rate / 8 * speedUp(key.scale)
        let bursts: [Int64] = (0..<4).map { leadIn + $0 * (gap + tone) + gap / 2 + $0 * rate / 97 }
        let expected = bursts.compactMap { key.scale.stretched($0) }
        let hz = min(1000, Double(rate) / 8), amplitude: Float = 0.5
        let block = max(1, rate / 1000)
        // The level of a steady tone over a block: amplitude/√2; an onset reaches half of it.
        let threshold = Double(amplitude) / 2.squareRoot() / 2
        // An onset: loud after a stretch that was not (a burst's decay and the next burst's
        // smeared lead-up stay below half the level).
        let minQuiet = (key.scale.stretched(gap / 2) ?? 0)
        var pending: [Float] = []
        var scanned: Int64 = 0, loudUntil: Int64 = 0
        var onsets: [Int64] = []
        func collect() throws(MediaError) {
            while let f = try kernel.pull() {
                guard f.samples > 0, let plane = f.pointer.pointee.extended_data[0] else { continue }
                let samples = UnsafeRawPointer(plane).assumingMemoryBound(to: Float.self)
                pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(f.samples)))
            }
            var at = 0
            while at + Int(block) <= pending.count {
                let energy = pending[at..<(at + Int(block))].reduce(0.0) { $0 + Double($1) * Double($1) }
                let level = (energy / Double(block)).squareRoot()
                if level > threshold {
                    if scanned - loudUntil >= minQuiet { onsets.append(scanned) }
                    loudUntil = scanned + block
                }
                at += Int(block)
                scanned += block
            }
            pending.removeFirst(at)
        }
        let chunk: Int64 = 1024
        var fed: Int64 = 0
        // Silence after the last burst until its onset shows (bounded: two seconds of source
        // beyond it, far past any window).
        let limit = (bursts.last ?? 0) + tone + 2 * rate
        while fed < limit, onsets.count < bursts.count {
            let n = Int32(min(chunk, limit - fed))
            let frame = try SilenceKernel.frame(samples: n, layout: &layout, sampleRate: key.sampleRate)
            let samples = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
            for i in 0..<Int64(n) {
                guard let b = bursts.last(where: { $0 <= fed + i }), fed + i - b < tone else { continue }
                samples[Int(i)] = amplitude * Float(sin(2 * Double.pi * hz * Double(fed + i - b) / Double(rate)))
            }
            fed += Int64(n)
            try kernel.push(frame)
            try collect()
        }
        guard onsets.count == expected.count else { return nil }
        let total = zip(onsets, expected).reduce(Int64(0)) { $0 + ($1.0 - $1.1) }
        return total / Int64(onsets.count)
    }
}
