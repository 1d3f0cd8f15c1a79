import CFFmpeg

/// A decoded picture or block of audio samples. Owns its AVFrame (freed once, in deinit).
// Not Sendable: a frame never leaves the lane that decoded or made it.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>
    /// How its source track is displayed (degrees turned clockwise, pixel aspect), for a sink that
    /// draws pictures of several files upright into one frame; nil: as stored, square pixels.
    var display: (rotation: Int, pixelAspect: Ratio)?

    /// The dynamic range its transfer tag says (a decoded picture: its bitstream's, else its stream's).
    var dynamicRange: DynamicRange {
        switch pointer.pointee.color_trc {
        case AVCOL_TRC_SMPTE2084: return .pq
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        default: return .sdr
        }
    }

    init() throws(MediaError) {
        guard let p = av_frame_alloc() else { throw ResourceShortage.outOfMemory("a frame") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }

    /// A picture with its own buffers.
    static func video(width: Int32, height: Int32, format: AVPixelFormat) throws(MediaError) -> Frame {
        let f = try Frame()
        f.pointer.pointee.width = width
        f.pointer.pointee.height = height
        f.pointer.pointee.format = format.rawValue
        try FFmpeg.check(av_frame_get_buffer(f.pointer, 0), "cannot allocate a \(width)x\(height) frame")
        return f
    }

    /// A block of `samples` audio samples with its own buffers.
    static func audio(samples: Int32, format: AVSampleFormat, layout: UnsafePointer<AVChannelLayout>,
                      sampleRate: Int32) throws(MediaError) -> Frame {
        let f = try Frame()
        f.pointer.pointee.nb_samples = samples
        f.pointer.pointee.format = format.rawValue
        f.pointer.pointee.sample_rate = sampleRate
        try FFmpeg.check(av_channel_layout_copy(&f.pointer.pointee.ch_layout, layout), "channel layout")
        try FFmpeg.check(av_frame_get_buffer(f.pointer, 0), "cannot allocate an audio frame")
        return f
    }

    /// A new reference to the same buffers (cheap: no pixel copy).
    func reference() throws(MediaError) -> Frame {
        let f = try Frame()
        try FFmpeg.check(av_frame_ref(f.pointer, pointer), "av_frame_ref")
        return f
    }

    var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }
    /// The decoder's best guess at the presentation time (covers streams with no pts).
    var bestEffortTimestamp: Int64 { pointer.pointee.best_effort_timestamp }
    var duration: Int64 { rx_frame_duration(pointer) }
    var width: Int32 { pointer.pointee.width }
    var height: Int32 { pointer.pointee.height }
    var samples: Int32 { pointer.pointee.nb_samples }
    var sampleRate: Int32 { pointer.pointee.sample_rate }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }
    var sampleFormat: AVSampleFormat { AVSampleFormat(rawValue: pointer.pointee.format) }
    var channels: Int32 { pointer.pointee.ch_layout.nb_channels }

    /// Says the picture holds two fields, and which is shown first (what an interlaced encoder
    /// codes it by).
    func markInterlaced(topFieldFirst: Bool) {
        pointer.pointee.interlaced_frame = 1
        pointer.pointee.top_field_first = topFieldFirst ? 1 : 0
    }

    func plane(_ i: Int32) -> UnsafeMutablePointer<UInt8>? { rx_frame_plane(pointer, i) }
    func lineSize(_ i: Int32) -> Int { Int(rx_frame_linesize(pointer, i)) }
}
