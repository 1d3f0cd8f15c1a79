import CFFmpeg
import Recipe

/// What the stages do to frames, kept here with the other FFmpeg calls.
extension Frame {
    /// The presentation time the decoder settled on, in its stream's ticks (best effort first).
    var decodedTimestamp: Int64 { bestEffortTimestamp != FFmpeg.noPTS ? bestEffortTimestamp : pts }

    /// Samples `range` of this audio frame, copied into a frame of their own (same format, layout
    /// and rate); the frame itself when the range is all of it.
    func samples(_ range: Range<Int64>) throws(MediaError) -> Frame {
        if range.lowerBound == 0 && range.upperBound == Int64(samples) { return self }
        let n = Int32(clamping: range.count), from = Int32(clamping: range.lowerBound)
        let kept = try Frame.audio(samples: n, format: sampleFormat, layout: &pointer.pointee.ch_layout, sampleRate: sampleRate)
        try FFmpeg.check(av_samples_copy(kept.pointer.pointee.extended_data, pointer.pointee.extended_data,
                                         0, from, n, channels, sampleFormat), "audio trim")
        return kept
    }

    /// A picture handed to an encoder: decoded pictures carry their old I/P/B types, and the
    /// encoder must choose its own.
    func clearPictureType() { pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE }

    /// A picture the encoder must code as a keyframe (an IDR where its options say so:
    /// `KeyframeForcing`).
    func forceKeyframe() { pointer.pointee.pict_type = AV_PICTURE_TYPE_I }

    /// A resampler from this frame's format, rate and layout.
    func makeResampler(toRate rate: Int32, format: AVSampleFormat, layout: String) throws(MediaError) -> Resampler {
        try Resampler(inRate: sampleRate, inFormat: sampleFormat, inLayout: &pointer.pointee.ch_layout,
                      outRate: rate, outFormat: format, outLayout: layout)
    }
}

extension Frame {
    /// Whether nothing else holds its buffers: it may be written again.
    var isWritable: Bool { av_frame_is_writable(pointer) != 0 }

    /// Shortens (or restores) a block of samples within its buffers.
    func setSampleCount(_ n: Int32) { pointer.pointee.nb_samples = n }

    /// A block of `format` samples in the channel layout `resampler` makes.
    static func audio(samples: Int32, format: SampleFormat, layoutOf resampler: Resampler, sampleRate: Int32) throws(MediaError) -> Frame {
        var layout = resampler.layout
        return try audio(samples: samples, format: format.av, layout: &layout, sampleRate: sampleRate)
    }

    /// A resampler from this frame's format, rate and layout to `format`.
    func makeResampler(toRate rate: Int32, format: SampleFormat, layout: String) throws(MediaError) -> Resampler {
        try makeResampler(toRate: rate, format: format.av, layout: layout)
    }
}

extension AudioFIFO {
    /// A queue of `format` samples.
    convenience init(format: SampleFormat, channels: Int32) throws(MediaError) {
        try self.init(format: format.av, channels: channels)
    }
}

/// FFmpeg's sample format, as the stages name it (`fltp`, `s16`, `s32` …).
struct SampleFormat: Equatable {
    let av: AVSampleFormat

    /// nil when FFmpeg has none by that name.
    init?(named name: String) {
        let f = av_get_sample_fmt(name)
        guard f != AV_SAMPLE_FMT_NONE else { return nil }
        av = f
    }
}

/// The parameters of a source stream a stage is made from.
struct StreamParameters {
    let timeBase: TimeBase
    /// The stream's average rate as FFmpeg guessed it; nil when unknown.
    let averageFrameRate: FrameRate?
    /// The codec's global header (avcC/hvcC …), for reading NAL headers.
    let extradata: [UInt8]

    init(_ source: SourceStream) {
        let stream = source.pointer
        timeBase = TimeBase(stream.pointee.time_base)
        let avg = stream.pointee.avg_frame_rate
        averageFrameRate = avg.num > 0 && avg.den > 0 ? FrameRate(frames: avg.num, seconds: avg.den) : nil
        let par = stream.pointee.codecpar.pointee
        extradata = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
    }
}

/// A pixel format, as the stages hold it (FFmpeg's, by its name).
struct PixelFormat: Equatable {
    let av: AVPixelFormat

    /// FFmpeg's pixel format by its name (`yuv420p`); nil when it has none by that name.
    init?(named name: String) {
        guard let f = PixelFormats.named(name) else { return nil }
        av = f
    }

    init(_ av: AVPixelFormat) { self.av = av }
}

extension EncoderConfiguration {
    mutating func setPixelFormat(_ format: PixelFormat) { pixelFormat = format.av }
}

extension PictureFitter {
    convenience init(width: Int32, height: Int32, format: PixelFormat) throws(MediaError) {
        try self.init(width: width, height: height, pixelFormat: format.av)
    }
}

extension LayerPainter {
    convenience init(width: Int32, height: Int32, format: PixelFormat, background: RecipeColor,
                     outputColor: (range: String?, matrix: String?, primaries: String?, transfer: String?)?) throws(MediaError) {
        try self.init(width: width, height: height, pixelFormat: format.av, background: background, outputColor: outputColor)
    }
}

extension Frame {
    /// A picture of this size in this format already.
    func isPicture(width: Int, height: Int, format: PixelFormat) -> Bool {
        self.width == Int32(width) && self.height == Int32(height) && pixelFormat == format.av
    }

    /// A scaler from this picture's size and format to those given; `fields`: field by field.
    func scaler(toWidth width: Int, height: Int, format: PixelFormat, fields: Bool) throws(MediaError) -> Scaler {
        try Scaler(from: (self.width, self.height, pixelFormat), to: (Int32(width), Int32(height), format.av), fields: fields)
    }
}

enum PixelFormats {
    /// FFmpeg's pixel format by its name (`yuv420p`); nil when it has none by that name.
    static func named(_ name: String) -> AVPixelFormat? {
        let f = av_get_pix_fmt(name)
        return f == AV_PIX_FMT_NONE ? nil : f
    }

    /// The format carries an alpha plane (`yuva444p10le`, `rgba`); false for a name FFmpeg lacks.
    static func hasAlpha(_ name: String) -> Bool {
        guard let f = named(name), let d = av_pix_fmt_desc_get(f) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}

extension Frame {
    /// Channel `c`'s samples of a planar float audio frame (any channel count: FFmpeg's
    /// extended data); nil when it has no such plane.
    func floatSamples(channel c: Int) -> UnsafeMutablePointer<Float>? {
        guard let plane = pointer.pointee.extended_data[c] else { return nil }
        return UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
    }
}
