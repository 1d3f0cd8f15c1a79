import CFFmpeg

/// What turns a range's source samples into stretched samples, at whatever length it likes:
/// `TimeStretcher` owns the count. Planar float in and out, the stretcher's rate and channels.
protocol StretchKernel: AnyObject {
    /// Takes source samples; nil says the input has ended (nothing is pushed after it).
    func push(_ frame: Frame?) throws(MediaError)
    /// The next stretched samples ready now, or nil.
    func pull() throws(MediaError) -> Frame?
}

/// Scale 1: the source unchanged.
// Not Sendable: owned by one TimeStretcher.
final class PassKernel: StretchKernel {
    private var queue: [Frame] = []

    func push(_ frame: Frame?) throws(MediaError) {
        if let frame { queue.append(try frame.reference()) }
    }

    func pull() throws(MediaError) -> Frame? {
        queue.isEmpty ? nil : queue.removeFirst()
    }
}

/// `mute`: silence, made as the input arrives so that memory stays flat however long the range.
// Not Sendable: owned by one TimeStretcher.
final class SilenceKernel: StretchKernel {
    private let scale: TimeStretchScale
    private let sampleRate: Int32
    private var layout = AVChannelLayout()
    private var sourceSamples: Int64 = 0
    private var made: Int64 = 0
    private var pending: Int64 = 0

    init(scale: TimeStretchScale, sampleRate: Int32, layout: UnsafePointer<AVChannelLayout>) throws(MediaError) {
        self.scale = scale
        self.sampleRate = sampleRate
        try FFmpeg.check(av_channel_layout_copy(&self.layout, layout), "channel layout")
    }

    deinit { av_channel_layout_uninit(&layout) }

    func push(_ frame: Frame?) throws(MediaError) {
        guard let frame else { return }
        sourceSamples += Int64(frame.samples)
        // The same count the stretcher allows out so far.
        let due = scale.stretched(sourceSamples) ?? made
        pending = max(0, due - made)
    }

    func pull() throws(MediaError) -> Frame? {
        guard pending > 0 else { return nil }
        let n = Int32(clamping: min(pending, 4096))
        pending -= Int64(n)
        made += Int64(n)
        return try Self.frame(samples: n, layout: &layout, sampleRate: sampleRate)
    }

    /// `samples` samples of planar float silence.
    static func frame(samples: Int32, layout: UnsafePointer<AVChannelLayout>, sampleRate: Int32) throws(MediaError) -> Frame {
        let f = try Frame.audio(samples: samples, format: AV_SAMPLE_FMT_FLTP, layout: layout, sampleRate: sampleRate)
        try FFmpeg.check(av_samples_set_silence(f.pointer.pointee.extended_data, 0, samples, f.channels, AV_SAMPLE_FMT_FLTP),
                         "audio silence")
        return f
    }
}

/// `varispeed`: the samples resampled as if they had been recorded at `rate / scale`, so that
/// they play `scale` times longer at `rate` and the pitch follows (tape, turntable).
/// Owns its SwrContext (freed once, in deinit).
// Not Sendable: owned by one TimeStretcher.
final class VarispeedKernel: StretchKernel {
    private var context: OpaquePointer?
    private var layout = AVChannelLayout()
    private let sampleRate: Int32
    private var output: [Frame] = []
    private var ended = false

    init(scale: TimeStretchScale, sampleRate: Int32, layout: UnsafePointer<AVChannelLayout>) throws(MediaError) {
        // Only the ratio matters to the resampler: source samples at `source` Hz become `target`
        // Hz, so each lasts target/source times longer.
        guard let inRate = Int32(exactly: scale.source), let outRate = Int32(exactly: scale.target) else {
            throw MediaError(.unsupported, "varispeed: the scale \(scale) has terms beyond 32 bits")
        }
        self.sampleRate = sampleRate
        try FFmpeg.check(av_channel_layout_copy(&self.layout, layout), "channel layout")
        var ctx: OpaquePointer? = nil
        // FFmpeg 5.1 declares the layouts non-const; swr only copies them.
        let l = UnsafeMutablePointer(mutating: layout)
        let rc = swr_alloc_set_opts2(&ctx, l, AV_SAMPLE_FMT_FLTP, outRate, l, AV_SAMPLE_FMT_FLTP, inRate, 0, nil)
        context = ctx
        try FFmpeg.check(rc, "varispeed resampler")
        try FFmpeg.check(swr_init(ctx), "cannot set up the varispeed resampler")
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&layout)
    }

    func push(_ frame: Frame?) throws(MediaError) {
        guard !ended else { return }
        if frame == nil { ended = true }
        // A flush may need several calls: repeat while the output fills the frame.
        var first = true
        while true {
            let inSamples = first ? (frame?.samples ?? 0) : 0
            let capacity = Int32(clamping: Int64(swr_get_out_samples(context, inSamples)) + 64)
            guard capacity > 0 else { return }
            let out = try Frame.audio(samples: capacity, format: AV_SAMPLE_FMT_FLTP, layout: &layout, sampleRate: sampleRate)
            let got: Int32
            if first, let frame {
                let i = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data)
                    .map { $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
                got = try FFmpeg.check(swr_convert(context, out.pointer.pointee.extended_data, capacity, i, frame.samples),
                                       "varispeed")
            } else {
                got = try FFmpeg.check(swr_convert(context, out.pointer.pointee.extended_data, capacity, nil, 0), "varispeed")
            }
            first = false
            if got > 0 {
                out.pointer.pointee.nb_samples = got
                output.append(out)
            }
            // Fed input is all taken in one call; only a flush that filled the frame has more.
            if frame != nil || got < capacity { return }
        }
    }

    func pull() throws(MediaError) -> Frame? {
        output.isEmpty ? nil : output.removeFirst()
    }
}
