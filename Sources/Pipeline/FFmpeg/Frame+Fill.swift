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
        var data: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { f.plane(Int32($0)) }
        let lines: [Int] = (0..<4).map { f.lineSize(Int32($0)) }
        let status = data.withUnsafeMutableBufferPointer { d in
            lines.withUnsafeBufferPointer { l in
                av_image_fill_black(d.baseAddress, l.baseAddress, pixelFormat, pointer.pointee.color_range,
                                    width, height)
            }
        }
        try FFmpeg.check(status, "cannot make a black picture")
        return f
    }

    /// `count` samples of silence in this frame's format, layout and rate (a gap in the audio).
    func silence(samples count: Int32) throws(MediaError) -> Frame {
        let f = try Frame.audio(samples: count, format: sampleFormat, layout: &pointer.pointee.ch_layout, sampleRate: sampleRate)
        try FFmpeg.check(av_samples_set_silence(f.pointer.pointee.extended_data, 0, count, channels, sampleFormat), "cannot make silence")
        return f
    }
}
