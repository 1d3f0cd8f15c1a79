import CFFmpeg

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

    /// A resampler from this frame's format, rate and layout.
    func makeResampler(toRate rate: Int32, format: AVSampleFormat, layout: String) throws(MediaError) -> Resampler {
        try Resampler(inRate: sampleRate, inFormat: sampleFormat, inLayout: &pointer.pointee.ch_layout,
                      outRate: rate, outFormat: format, outLayout: layout)
    }
}

/// The parameters of a source stream a stage is made from.
struct StreamParameters {
    let timeBase: AVRational
    let averageFrameRate: AVRational
    /// The codec's global header (avcC/hvcC …), for reading NAL headers.
    let extradata: [UInt8]

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        timeBase = stream.pointee.time_base
        averageFrameRate = stream.pointee.avg_frame_rate
        let par = stream.pointee.codecpar.pointee
        extradata = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
    }
}

enum PixelFormats {
    /// FFmpeg's pixel format by its name (`yuv420p`); nil when it has none by that name.
    static func named(_ name: String) -> AVPixelFormat? {
        let f = av_get_pix_fmt(name)
        return f == AV_PIX_FMT_NONE ? nil : f
    }
}
