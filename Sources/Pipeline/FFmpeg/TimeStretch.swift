import CFFmpeg
import Recipe

/// Stretches one range of audio to `scale` times its length (slow motion, speed-up) and hands out
/// exactly `round(sourceSamples × scale)` samples (or the count the caller fixes), whatever the
/// kernel under it produced: the time mapping decides the length, never a filter.
///
/// Use: `feed` the range's source frames (planar float, the stretcher's rate and channel count),
/// `drain` until nil after every `feed`, `finish` after the range's last frame, then `drain` until
/// nil. What the kernel makes waits in a queue until drained; a `feed` that finds more than
/// `queueLimit` waiting is refused, so a caller that forgets to drain fails at once instead of
/// holding `fed × scale` samples (gigabytes at ×100).
/// Output frames are stamped by count: `pts` is the index of their first sample from the start of
/// the stretched range (time base 1/sampleRate); the caller adds the range's target start.
///
/// How the count is kept: until `finish`, no more than `round(fed × scale)` samples are handed out,
/// which can never exceed the final count. At `finish` the kernel's held-back tail is pushed out
/// by feeding it silence after the range's last sample, and what comes out beyond the count is
/// trimmed at the end. So the range ends on stretched source audio, not on a repeat or a gap, and
/// its start (where the sync is) is never moved. What is still missing after that (a caller's fixed
/// length beyond what `mute` or an unscaled range make) is silence at the end.
///
/// Where a sound lands: before the range's first sample the kernel is fed `primingSamples` of
/// lead-in (the caller's pre-range audio through `prime`, silence before it) so that it is in
/// its steady state when the range starts, and its output for them is dropped, less the lead
/// rubberband puts every onset at (`TimeStretchLead`, measured on the kernel itself):
/// so source sample y of the range sounds at output sample round(y × scale), not a tenth of a
/// second or more before it.
// Not Sendable: a stretcher belongs to the one lane or stage that feeds it.
final class TimeStretcher {
    /// How the audio of a scaled range is made (the recipe's words are the raw values).
    enum Method: String, Sendable, CaseIterable {
        /// Phase vocoder (librubberband through libavfilter): pitch kept, best for music and tones.
        case spectral
        /// WSOLA (`WSOLAKernel`, one stage at any scale, onsets on their samples): pitch kept,
        /// best for speech.
        case timeDomain = "time-domain"
        /// Resampled as if played slower or faster (libswresample): pitch follows, like tape.
        case varispeed
        /// Silence of the stretched length.
        case mute
    }

    /// The most channels `spectral` takes (see `kernel`).
    static let maxSpectralChannels: Int32 = 8

    let sampleRate: Int32
    let method: Method
    let scale: TimeStretchScale
    var channels: Int32 { layout.nb_channels }
    /// Samples fed so far (the range's source length once finished).
    private(set) var sourceSamples: Int64 = 0
    /// Samples handed out by `drain` so far.
    private(set) var emittedSamples: Int64 = 0
    /// The exact length of the stretched range: known at init when the caller fixed it, else at
    /// `finish`.
    private(set) var targetSamples: Int64?

    /// Once finished: silence `drain` adds at the end because the kernel made fewer samples than
    /// the target (a kernel that made nothing would be all padding).
    var paddedSamples: Int64 {
        guard finished, let targetSamples else { return 0 }
        return max(0, targetSamples - producedSamples)
    }
    /// Once finished: samples the kernel made beyond the target, cut from the end.
    var trimmedSamples: Int64 {
        guard finished, let targetSamples else { return 0 }
        return max(0, producedSamples - targetSamples)
    }

    /// Stretched samples waiting to be drained.
    var queuedSamples: Int64 { Int64(fifo.count) }
    /// The most that may wait when a frame is fed: two of the largest frames fed so far, stretched,
    /// and at least one second, plus the lead held back (`leadCompensation`). Draining until nil
    /// after each feed leaves only what a kernel made ahead of `round(fed × scale)`, far less.
    var queueLimit: Int64 {
        let (sum, overflow) = max(Int64(sampleRate), scale.stretched(2 * largestFrame) ?? .max).addingReportingOverflow(leadCompensation)
        return overflow ? .max : sum
    }
    private var largestFrame: Int64 = 0

    private var layout = AVChannelLayout()
    private let kernel: StretchKernel
    private let fifo: AudioFIFO
    /// Samples the kernel produced (handed out, queued or trimmed).
    private var producedSamples: Int64 = 0
    private let fixedTarget: Int64?
    private var finished = false
    /// Source samples fed ahead of the range so that its start finds the kernel warmed up (0 for
    /// the kernels without a window: unscaled, `mute`, a caller's own).
    let primingSamples: Int64
    private var primed = false
    /// Kernel output still to drop: the lead-in's stretched length less the kernel's lead.
    private var skipRemaining: Int64 = 0
    /// The kernel's output sample the range's first output sample is (its lead-in's stretched
    /// length less its lead).
    private var kernelStart: Int64 = 0
    /// `TimeStretchLead.offset` of this kernel (0 when there is no lead-in).
    private let leadOffset: Int64
    /// Output samples by which the kernel's output is held back to put sounds where the scale
    /// says (its measured lead; 0 before the lead-in): what it made ahead waits that much longer.
    private(set) var leadCompensation: Int64 = 0
    /// The error that stopped the range: every later call throws it again, so a caller that
    /// carries on after a failed `finish` gets the error, not silence up to the target.
    private var failure: MediaError?

    /// - Parameters:
    ///   - channelLayout: a layout name FFmpeg knows (`mono`, `stereo`, `5.1`), as the resampler's.
    ///   - targetSamples: the exact output length when the caller's time mapping has fixed it
    ///     (a target range's sample count); nil for `round(sourceSamples × scale)`.
    ///   - kernel: replaces the method's kernel (tests: one that fails).
    init(sampleRate: Int32, channelLayout: String, method: Method, scale: TimeStretchScale,
         targetSamples: Int64? = nil, kernel: StretchKernel? = nil) throws(MediaError) {
        guard sampleRate > 0 else {
            throw MediaError(.invalidSettings, "time stretch: sample rate \(sampleRate) is not positive", setting: "sample-rate")
        }
        if let targetSamples, targetSamples < 0 {
            throw MediaError(.invalidSettings, "time stretch: target length of \(targetSamples) samples is negative")
        }
        var l = AVChannelLayout()
        guard av_channel_layout_from_string(&l, channelLayout) >= 0, l.nb_channels > 0 else {
            av_channel_layout_uninit(&l)
            throw MediaError(.invalidSettings, "unknown channel layout '\(channelLayout)'", setting: "channel-layout")
        }
        let channels = l.nb_channels
        let made: StretchKernel
        var offset: Int64?
        do throws(MediaError) {
            if let kernel { made = kernel } else { made = try Self.kernel(method: method, scale: scale, sampleRate: sampleRate, layout: &l) }
            // Kernels with a window get a lead-in and their measured lead taken out (a caller's
            // own kernel is taken as it is).
            if kernel == nil, !(made is PassKernel), !(made is SilenceKernel) {
                offset = try TimeStretchLead.offset(method: method, scale: scale, sampleRate: sampleRate)
            }
        } catch {
            av_channel_layout_uninit(&l)
            throw error
        }
        self.sampleRate = sampleRate
        self.method = method
        self.scale = scale
        self.layout = l
        self.kernel = made
        self.fixedTarget = targetSamples
        self.targetSamples = targetSamples
        if let offset {
            primingSamples = TimeStretchLead.leadIn(method: method, scale: scale, sampleRate: sampleRate)
            leadOffset = offset
        } else {
            primingSamples = 0
            leadOffset = 0
        }
        fifo = try AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: channels)
    }

    deinit { av_channel_layout_uninit(&layout) }

    static func kernel(method: Method, scale: TimeStretchScale, sampleRate: Int32,
                               layout: UnsafePointer<AVChannelLayout>) throws(MediaError) -> StretchKernel {
        if method == .mute { return try SilenceKernel(scale: scale, sampleRate: sampleRate, layout: layout) }
        // Unscaled audio is the source itself, whichever method: no filter's colouring or delay.
        if scale.isIdentity { return PassKernel() }
        switch method {
        case .spectral:
            // FFmpeg 5.1's af_rubberband hands rubberband the frame's 8 inline plane pointers:
            // more channels read past them and crash (ffmpeg itself segfaults on 16).
            guard layout.pointee.nb_channels <= maxSpectralChannels else {
                throw MediaError(.unsupported, "time stretch: the spectral method (rubberband) takes at most \(maxSpectralChannels) channels; "
                                 + "this audio has \(layout.pointee.nb_channels) (time-domain and varispeed take any number)")
            }
            return try AudioFilterChain(sampleRate: sampleRate, layout: layout,
                                        filters: [("rubberband", "tempo=\(scale.tempo)")])
        case .timeDomain:
            return try WSOLAKernel(scale: scale, sampleRate: sampleRate, layout: layout)
        case .varispeed:
            return try VarispeedKernel(scale: scale, sampleRate: sampleRate, layout: layout)
        case .mute:
            return try SilenceKernel(scale: scale, sampleRate: sampleRate, layout: layout)
        }
    }

    /// Takes the next source frame of the range.
    func feed(_ frame: Frame) throws(MediaError) {
        if let failure { throw failure }
        guard !finished else {
            throw MediaError(.processing, "time stretch: a frame was fed after the range was finished")
        }
        try checkFormat(frame)
        guard frame.samples > 0 else { return }
        if !primed { try prime([]) }
        largestFrame = max(largestFrame, Int64(frame.samples))
        guard queuedSamples <= queueLimit else {
            throw MediaError(.processing, "time stretch: \(queuedSamples) stretched samples wait to be drained (at most \(queueLimit)): "
                             + "drain until nil after every feed")
        }
        sourceSamples += Int64(frame.samples)
        do throws(MediaError) {
            try kernel.push(frame)
            try collect()
        } catch {
            failure = error
            throw error
        }
    }

    /// Leads the kernel in with the audio just before the range (at most `primingSamples`, the
    /// latest ones; silence makes up the rest, before them), ahead of the first `feed`, which
    /// otherwise leads in with silence alone. Same format rules as `feed`.
    func prime(_ preRange: [Frame]) throws(MediaError) {
        if let failure { throw failure }
        guard !primed, sourceSamples == 0, !finished else {
            throw MediaError(.processing, "time stretch: the lead-in comes before the range's first sample")
        }
        primed = true
        guard primingSamples > 0 else { return }
        do throws(MediaError) {
            var given: [Frame] = []
            var count: Int64 = 0
            for frame in preRange.reversed() where count < primingSamples && frame.samples > 0 {
                try checkFormat(frame)
                let n = Int64(frame.samples), keep = min(n, primingSamples - count)
                given.insert(try frame.samples((n - keep)..<n), at: 0)
                count += keep
            }
            var silence = primingSamples - count
            while silence > 0 {
                let n = Int32(min(silence, 1024))
                given.insert(try SilenceKernel.frame(samples: n, layout: &layout, sampleRate: sampleRate), at: 0)
                silence -= Int64(n)
            }
            guard let stretched = scale.stretched(primingSamples) else {
                throw MediaError(.processing, "time stretch: the lead-in of \(primingSamples) samples × \(scale) does not fit in 64 bits")
            }
            // offset < 0: the kernel puts sounds early; dropping less of the lead-in delays them.
            skipRemaining = stretched + leadOffset
            kernelStart = skipRemaining
            leadCompensation = max(0, -leadOffset)
            if skipRemaining < 0 {
                try fifo.write(try SilenceKernel.frame(samples: Int32(clamping: -skipRemaining), layout: &layout, sampleRate: sampleRate))
                producedSamples += -skipRemaining
                skipRemaining = 0
            }
            for frame in given {
                try kernel.push(frame)
                try collect()
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Ends the range: pushes the kernel's tail out and fixes the output length.
    func finish() throws(MediaError) {
        if let failure { throw failure }
        guard !finished else { return }
        finished = true
        do throws(MediaError) {
            try flush()
        } catch {
            failure = error
            throw error
        }
    }

    private func flush() throws(MediaError) {
        let target: Int64
        if let fixedTarget {
            target = fixedTarget
        } else {
            guard let n = scale.stretched(sourceSamples) else {
                throw MediaError(.processing, "time stretch: \(sourceSamples) samples × \(scale) does not fit in 64 bits")
            }
            target = n
        }
        targetSamples = target
        if sourceSamples > 0, let wsola = kernel as? WSOLAKernel {
            // Our WSOLA is told where the range ends instead: it makes its output up to there
            // from the source alone, holding its last window still (fed silence, its last windows
            // spliced against it: the last 70 ms at ×8 dipped to nothing).
            try wsola.finish(outputEnd: target + kernelStart)
        } else {
            // rubberband and varispeed hold back up to a window or two of input; silence after
            // the last sample pushes the real tail out. Bounded by two seconds of source, far
            // beyond any one window, times the speed-up.
            // A kernel that was fed is pushed until it has made something even when the target
            // is 0: rubberband fails at its end (EPERM) when it never made a sample.
            if sourceSamples > 0, !(kernel is PassKernel), !(kernel is SilenceKernel) {
                let chunk: Int32 = 1024
                var fed: Int64 = 0
                let limit = 2 * Int64(sampleRate) * max(1, (scale.source + scale.target - 1) / scale.target)
                let silence = try SilenceKernel.frame(samples: chunk, layout: &layout, sampleRate: sampleRate)
                while producedSamples < max(target, 1), fed < limit {
                    try kernel.push(silence)
                    fed += Int64(chunk)
                    try collect()
                }
            }
            try kernel.push(nil)
        }
        try collect()
        // Beyond the target `drain` stops (the trim); short of it, it hands out silence.
    }

    /// The next stretched frame of at most `maxSamples` samples, or nil when none is ready (before
    /// `finish`) or the range is complete (after).
    func drain(maxSamples: Int32 = 4096) throws(MediaError) -> Frame? {
        if let failure { throw failure }
        let allowed: Int64
        if finished {
            allowed = (targetSamples ?? 0) - emittedSamples
        } else {
            // Never beyond what the final length is sure to include.
            let sure = scale.stretched(sourceSamples) ?? .max
            allowed = min(sure, fixedTarget ?? .max) - emittedSamples
        }
        let queued = Int64(fifo.count)
        // Once finished, a kernel that came up short is made up with silence at the end.
        let available = finished && queued == 0 ? allowed : queued
        let n = Int32(clamping: min(allowed, available, Int64(max(maxSamples, 1))))
        guard n > 0 else { return nil }
        let out: Frame
        if queued == 0 {
            out = try SilenceKernel.frame(samples: n, layout: &layout, sampleRate: sampleRate)
        } else {
            out = try Frame.audio(samples: n, format: AV_SAMPLE_FMT_FLTP, layout: &layout, sampleRate: sampleRate)
            let got = try fifo.read(into: out, samples: n)
            guard got == n else {
                throw MediaError(.processing, "time stretch: the audio queue gave \(got) of \(n) samples")
            }
        }
        out.pts = emittedSamples
        out.pointer.pointee.time_base = AVRational(num: 1, den: sampleRate)
        emittedSamples += Int64(n)
        return out
    }

    private func checkFormat(_ frame: Frame) throws(MediaError) {
        guard frame.sampleFormat == AV_SAMPLE_FMT_FLTP, frame.channels == channels,
              frame.sampleRate == sampleRate || frame.sampleRate == 0 else {
            let name = av_get_sample_fmt_name(frame.sampleFormat).map { String(cString: $0) } ?? "unknown format"
            throw MediaError(.processing, "time stretch: expected planar float audio, \(Self.channelCount(channels)) at \(sampleRate) Hz; "
                             + "got \(name), \(Self.channelCount(frame.channels)) at \(frame.sampleRate) Hz")
        }
    }

    private static func channelCount(_ n: Int32) -> String { n == 1 ? "1 channel" : "\(n) channels" }

    private func collect() throws(MediaError) {
        while var f = try kernel.pull() {
            guard f.samples > 0 else { continue }
            guard f.channels == channels, f.sampleFormat == AV_SAMPLE_FMT_FLTP else {
                throw MediaError(.processing, "time stretch: the \(method.rawValue) kernel changed the audio format")
            }
            if skipRemaining > 0 {
                let n = Int64(f.samples), dropped = min(n, skipRemaining)
                skipRemaining -= dropped
                guard dropped < n else { continue }
                f = try f.samples(dropped..<n)
            }
            try fifo.write(f)
            producedSamples += Int64(f.samples)
        }
    }
}
