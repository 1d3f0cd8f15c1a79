import CFFmpeg

/// Fill for gaps on the output's timeline.
extension Frame {
    /// A black picture of this picture's size, format and range (a gap in the video).
    func black() throws(MediaError) -> Frame {
        let f = try Frame.video(width: width, height: height, format: pixelFormat)
        f.pointer.pointee.color_range = pointer.pointee.color_range
        f.pointer.pointee.colorspace = pointer.pointee.colorspace
        f.pointer.pointee.color_primaries = pointer.pointee.color_primaries
        f.pointer.pointee.color_trc = pointer.pointee.color_trc
        try f.fillBlack()
        return f
    }

    /// Paints all of this picture black for its format and `color_range`: Y=16 U=V=128 in limited
    /// range (64/512 at 10 bits), Y=0 in full range; a yuvj format is full range whatever its tag.
    func fillBlack() throws(MediaError) {
        let range = pixelFormat.isFullRangeYUV ? AVCOL_RANGE_JPEG : pointer.pointee.color_range
        var data: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { plane(Int32($0)) }
        let lines: [Int] = (0..<4).map { lineSize(Int32($0)) }
        let status = data.withUnsafeMutableBufferPointer { d in
            lines.withUnsafeBufferPointer { l in
                av_image_fill_black(d.baseAddress, l.baseAddress, pixelFormat, range, width, height)
            }
        }
        try FFmpeg.check(status, "cannot make a black picture")
    }

    /// `count` samples of silence in this frame's format, layout and rate (a gap in the audio).
    func silence(samples count: Int32) throws(MediaError) -> Frame {
        let f = try Frame.audio(samples: count, format: sampleFormat, layout: &pointer.pointee.ch_layout, sampleRate: sampleRate)
        try FFmpeg.check(av_samples_set_silence(f.pointer.pointee.extended_data, 0, count, channels, sampleFormat), "cannot make silence")
        return f
    }
}

extension AVPixelFormat {
    /// The deprecated full-range formats (yuvj420p …): their range is in the name, not the tag.
    var isFullRangeYUV: Bool {
        self == AV_PIX_FMT_YUVJ420P || self == AV_PIX_FMT_YUVJ422P || self == AV_PIX_FMT_YUVJ444P
            || self == AV_PIX_FMT_YUVJ440P || self == AV_PIX_FMT_YUVJ411P
    }
}
