import CFFmpeg
import Recipe

extension Ratio {
    init(_ r: AVRational) { self.init(Int(r.num), Int(r.den)) }
    var rational: AVRational { AVRational(num: Int32(clamping: num), den: Int32(clamping: den)) }
}

extension StreamFormat {
    /// A stream as the muxer stores it: its codec parameters, and its time base once the header
    /// is written (the muxer may choose another than the encoder's).
    init(parameters par: UnsafePointer<AVCodecParameters>, timeBase: AVRational) {
        let p = par.pointee
        self.init(codec: String(cString: avcodec_get_name(p.codec_id)), profile: CodecProfile.name(par), timeBase: Ratio(timeBase))
        switch p.codec_type {
        case AVMEDIA_TYPE_VIDEO:
            width = Int(p.width)
            height = Int(p.height)
            pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: p.format)).map { String(cString: $0) }
        case AVMEDIA_TYPE_AUDIO:
            sampleRate = Int(p.sample_rate)
            var layout = p.ch_layout
            var buf = [CChar](repeating: 0, count: 64)
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 { channelLayout = String(cChars: buf) }
        default: break
        }
    }
}

extension AssetWriter {
    /// What input `i` is stored as, once the header is written.
    func streamFormat(ofInput i: Int) -> StreamFormat? {
        guard let par = codecParameters(ofInput: i), let tb = timeBase(ofInput: i) else { return nil }
        return StreamFormat(parameters: par, timeBase: tb)
    }
}
