import CFFmpeg
import Recipe

extension OutputStream {
    /// The stream as the muxer stores it: its codec parameters, and its time base (the muxer's
    /// choice, once the header is written).
    var format: StreamFormat {
        let p = pointer.pointee.codecpar.pointee
        var f = StreamFormat(codec: String(cString: avcodec_get_name(p.codec_id)), profile: statedProfile, timeBase: Ratio(timeBase))
        switch p.codec_type {
        case AVMEDIA_TYPE_VIDEO:
            f.width = Int(p.width)
            f.height = Int(p.height)
            f.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: p.format)).map { String(cString: $0) }
        case AVMEDIA_TYPE_AUDIO:
            f.sampleRate = Int(p.sample_rate)
            var layout = p.ch_layout
            var buf = [CChar](repeating: 0, count: 64)
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 { f.channelLayout = String(cChars: buf) }
        default: break
        }
        return f
    }
}
