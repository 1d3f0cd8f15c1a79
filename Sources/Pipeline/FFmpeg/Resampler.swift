import CFFmpeg

/// Sample-rate, sample-format and channel-layout conversion (downmix included).
/// Owns its SwrContext (freed once, in deinit).
// Not Sendable: a resampler belongs to one lane (or to SampleReader's caller).
final class Resampler {
    private var context: OpaquePointer?
    let outRate: Int32, outFormat: AVSampleFormat
    private var outLayout = AVChannelLayout()
    /// What it takes: a frame of another rate, format or layout needs another resampler.
    private let inRate: Int32, inFormat: AVSampleFormat
    private var inLayout = AVChannelLayout()

    init(inRate: Int32, inFormat: AVSampleFormat, inLayout: UnsafePointer<AVChannelLayout>,
         outRate: Int32, outFormat: AVSampleFormat, outLayout layoutName: String) throws(MediaError) {
        self.outRate = outRate
        self.outFormat = outFormat
        self.inRate = inRate
        self.inFormat = inFormat
        try FFmpeg.check(av_channel_layout_copy(&self.inLayout, inLayout), "channel layout")
        // The layout the plan names (2.1 is not stereo plus one: it has an LFE channel).
        guard av_channel_layout_from_string(&outLayout, layoutName) >= 0 else {
            throw MediaError(.invalidSettings, "unknown channel layout '\(layoutName)'", setting: "channel-layout")
        }
        var inCopy = AVChannelLayout()
        defer { av_channel_layout_uninit(&inCopy) }
        try FFmpeg.check(av_channel_layout_copy(&inCopy, inLayout), "channel layout")
        if inCopy.order == AV_CHANNEL_ORDER_UNSPEC {
            // An unlabelled layout: assume the default order for its channel count.
            let n = inCopy.nb_channels
            av_channel_layout_uninit(&inCopy)
            av_channel_layout_default(&inCopy, n)
        }
        var ctx: OpaquePointer? = nil
        try FFmpeg.check(swr_alloc_set_opts2(&ctx, &outLayout, outFormat, outRate, &inCopy, inFormat, inRate, 0, nil), "resampler")
        context = ctx
        try FFmpeg.check(swr_init(ctx), "cannot set up audio conversion")
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&outLayout)
        av_channel_layout_uninit(&inLayout)
    }

    /// Whether `frame` is in the rate, format and layout this resampler takes.
    func takes(_ frame: Frame) -> Bool {
        frame.sampleRate == inRate && frame.sampleFormat == inFormat
            && av_channel_layout_compare(&inLayout, &frame.pointer.pointee.ch_layout) == 0
    }

    var layout: AVChannelLayout { outLayout }

    /// Converts `input` (nil drains what the resampler holds). Returns nil when nothing came out.
    func convert(_ input: Frame?) throws(MediaError) -> Frame? {
        let capacity = Int32(swr_get_out_samples(context, input?.samples ?? 0)) + 32
        if capacity <= 0 { return nil }
        let out = try block(capacity)
        return try convert(input, into: out, capacity: capacity) ? out : nil
    }

    /// Converts `input` (nil: drains) onto the end of `queue`, through a working block kept
    /// between calls: the sinks' and the mixer's path allocates nothing per frame.
    func convert(_ input: Frame?, onto queue: AudioFIFO) throws(MediaError) {
        let capacity = Int32(swr_get_out_samples(context, input?.samples ?? 0)) + 32
        if capacity <= 0 { return }
        if working == nil || workingCapacity < capacity {
            working = try block(capacity)
            workingCapacity = capacity
        }
        if try convert(input, into: working!, capacity: capacity) { try queue.write(working!) }
    }

    /// The working block for `convert(_:onto:)` (never leaves this resampler) and its size.
    private(set) var working: Frame?
    private var workingCapacity: Int32 = 0

    private func block(_ capacity: Int32) throws(MediaError) -> Frame {
        try withUnsafePointer(to: &outLayout) { (p) throws(MediaError) -> Frame in
            try Frame.audio(samples: capacity, format: outFormat, layout: p, sampleRate: outRate)
        }
    }

    /// Whether samples came out (then `out` holds them, its sample count set).
    private func convert(_ input: Frame?, into out: Frame, capacity: Int32) throws(MediaError) -> Bool {
        out.pointer.pointee.nb_samples = capacity
        let got = try withFrameData(out, input) { (o, i, n) throws(MediaError) -> Int32 in
            try FFmpeg.check(swr_convert(context, o, capacity, i, n), "cannot convert audio")
        }
        if got <= 0 { return false }
        out.pointer.pointee.nb_samples = got
        return true
    }

    private func withFrameData<R>(_ out: Frame, _ input: Frame?,
                                  _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int32) throws(MediaError) -> R) throws(MediaError) -> R {
        let o = out.pointer.pointee.extended_data!
        if let input {
            let i = UnsafeMutableRawPointer(input.pointer.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            return try body(o, i, input.samples)
        }
        return try body(o, nil, 0)
    }
}

/// A queue of audio samples, so the encoder gets the frame size it asks for.
/// Owns its AVAudioFifo (freed once, in deinit).
// Not Sendable: a FIFO belongs to one audio lane.
final class AudioFIFO {
    private let fifo: OpaquePointer

    init(format: AVSampleFormat, channels: Int32) throws(MediaError) {
        guard let f = av_audio_fifo_alloc(format, channels, 4096) else { throw ResourceShortage.outOfMemory("an audio queue") }
        fifo = f
    }

    deinit { av_audio_fifo_free(fifo) }

    var count: Int32 { av_audio_fifo_size(fifo) }

    func write(_ frame: Frame) throws(MediaError) {
        try FFmpeg.check(rx_fifo_write_frame(fifo, frame.pointer), "audio queue")
    }

    func read(into frame: Frame, samples: Int32) throws(MediaError) -> Int32 {
        try FFmpeg.check(rx_fifo_read_frame(fifo, frame.pointer, samples), "audio queue")
    }

    /// Drops `samples` from the front (trim).
}
