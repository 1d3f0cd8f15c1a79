import CFFmpeg

extension EncoderCapabilities {
    /// What this FFmpeg build's encoder `name` accepts; nil when it has no such encoder.
    public static func of(_ name: String) -> EncoderCapabilities? {
        guard let codec = avcodec_find_encoder_by_name(name) else { return nil }
        var caps = EncoderCapabilities()
        if var p = rx_codec_pix_fmts(codec) {
            while p.pointee != AV_PIX_FMT_NONE { caps.pixelFormats.append(pixelFormatName(p.pointee)); p += 1 }
        }
        if var r = rx_codec_sample_rates(codec) {
            while r.pointee != 0 { caps.sampleRates.append(Int(r.pointee)); r += 1 }
        }
        if var f = rx_codec_sample_fmts(codec) {
            while f.pointee != AV_SAMPLE_FMT_NONE {
                if let name = av_get_sample_fmt_name(f.pointee) { caps.sampleFormats.append(String(cString: name)) }
                f += 1
            }
        }
        return caps
    }
}

extension SettingsAssistant {
    /// The assistant for this machine's FFmpeg.
    public static let system = SettingsAssistant { EncoderCapabilities.of($0) }
}
