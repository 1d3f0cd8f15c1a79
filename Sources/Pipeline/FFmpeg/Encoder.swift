import CFFmpeg

/// What an encoder is opened with; negotiated before any data flows.
struct EncoderConfiguration {
    var codecName: String
    var timeBase: AVRational
    // video
    var width: Int32 = 0
    var height: Int32 = 0
    var pixelFormat: AVPixelFormat = AV_PIX_FMT_NONE
    var frameRate: AVRational = AVRational(num: 0, den: 1)
    var gopSize: Int32 = 0
    var colorPrimaries: AVColorPrimaries = AVCOL_PRI_UNSPECIFIED
    var colorTransfer: AVColorTransferCharacteristic = AVCOL_TRC_UNSPECIFIED
    var colorSpace: AVColorSpace = AVCOL_SPC_UNSPECIFIED
    var colorRange: AVColorRange = AVCOL_RANGE_UNSPECIFIED
    /// HDR10 static metadata: written into the bitstream (x265/x264 SEI) and the container.
    var masteringDisplay: MasteringDisplay?
    var contentLightLevel: ContentLightLevel?
    // audio
    var sampleRate: Int32 = 0
    var sampleFormat: AVSampleFormat = AV_SAMPLE_FMT_NONE
    var channels: Int32 = 0
    // both
    var bitRate: Int64 = 0
    var maxBitRate: Int64 = 0
    var profile: String?
    var globalHeader = false
    var threads: Int32 = 0
    /// The encoder's own options (AVOptions on its private class: crf, preset, tune, x265-params …).
    var options: [(String, String)] = []
}

extension EncoderConfiguration {
    /// Sets the colour tags from FFmpeg's names (nil or unknown: unspecified).
    mutating func setColor(primaries: String?, transfer: String?, matrix: String?, range: String?) {
        func value(_ name: String?, _ lookup: (UnsafePointer<CChar>) -> Int32) -> UInt32? {
            guard let name else { return nil }
            let v = name.withCString(lookup)
            return v >= 0 ? UInt32(v) : nil
        }
        colorPrimaries = value(primaries, av_color_primaries_from_name).map { AVColorPrimaries(rawValue: $0) } ?? AVCOL_PRI_UNSPECIFIED
        colorTransfer = value(transfer, av_color_transfer_from_name).map { AVColorTransferCharacteristic(rawValue: $0) } ?? AVCOL_TRC_UNSPECIFIED
        colorSpace = value(matrix, av_color_space_from_name).map { AVColorSpace(rawValue: $0) } ?? AVCOL_SPC_UNSPECIFIED
        colorRange = value(range, av_color_range_from_name).map { AVColorRange(rawValue: $0) } ?? AVCOL_RANGE_UNSPECIFIED
    }

    /// The encoder's options with the HDR10 metadata added to its own parameter string: FFmpeg
    /// 5.1's libx265 and libx264 wrappers do not read it from frame side data.
    var optionsWithHDR: [(String, String)] {
        var params: [String] = []
        switch codecName {
        case "libx265":
            if let m = masteringDisplay { params.append("master-display=\(m.encoderParameter)") }
            if let c = contentLightLevel { params.append("max-cll=\(c.encoderParameter)") }
        case "libx264":
            if let m = masteringDisplay { params.append("mastering-display=\(m.encoderParameter)") }
            if let c = contentLightLevel { params.append("cll=\(c.encoderParameter)") }
        default:
            break
        }
        guard !params.isEmpty else { return options }
        let key = codecName == "libx265" ? "x265-params" : "x264-params"
        var out = options.filter { $0.0 != key }
        let existing = options.first { $0.0 == key }.map { [$0.1] } ?? []
        out.append((key, (existing + params).joined(separator: ":")))
        return out
    }
}

/// An encoder. Owns its AVCodecContext (freed once, in deinit).
// SAFETY: an encoder belongs to one lane and is only called from that lane's queue.
final class Encoder: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codecName: String
    /// For the container's stream side data (`mdcv`/`clli`, Matroska's colour elements).
    let masteringDisplay: MasteringDisplay?
    let contentLightLevel: ContentLightLevel?

    init(_ c: EncoderConfiguration) throws(MediaError) {
        codecName = c.codecName
        masteringDisplay = c.masteringDisplay
        contentLightLevel = c.contentLightLevel
        guard let codec = avcodec_find_encoder_by_name(c.codecName) else {
            throw MediaError(.unsupported, "encoder '\(c.codecName)' is not in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { fatalError("avcodec_alloc_context3: out of memory") }
        context = ctx
        ctx.pointee.time_base = c.timeBase
        ctx.pointee.thread_count = c.threads
        if codec.pointee.type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.width = c.width
            ctx.pointee.height = c.height
            ctx.pointee.pix_fmt = c.pixelFormat
            ctx.pointee.framerate = c.frameRate
            ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            if c.gopSize > 0 { ctx.pointee.gop_size = c.gopSize }
            ctx.pointee.color_primaries = c.colorPrimaries
            ctx.pointee.color_trc = c.colorTransfer
            ctx.pointee.colorspace = c.colorSpace
            ctx.pointee.color_range = c.colorRange
        } else {
            ctx.pointee.sample_rate = c.sampleRate
            ctx.pointee.sample_fmt = c.sampleFormat
            av_channel_layout_default(&ctx.pointee.ch_layout, c.channels)
        }
        if c.bitRate > 0 { ctx.pointee.bit_rate = c.bitRate }
        if c.maxBitRate > 0 {
            ctx.pointee.rc_max_rate = c.maxBitRate
            ctx.pointee.rc_buffer_size = Int32(clamping: c.maxBitRate * 2)
        }
        if c.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }

        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        if let profile = c.profile { av_dict_set(&dict, "profile", profile, 0) }
        for (k, v) in c.optionsWithHDR { av_dict_set(&dict, k, v, 0) }
        try FFmpeg.check(avcodec_open2(ctx, codec, &dict), "cannot open the \(c.codecName) encoder", kind: .invalidSettings)
        // Options the encoder did not take are a settings error, not something to ignore.
        if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: left.pointee.key)
            throw MediaError(.invalidSettings, "the \(c.codecName) encoder has no option '\(key)'")
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    var timeBase: AVRational { context.pointee.time_base }
    /// Samples per audio frame the encoder wants (0: any).
    var frameSize: Int32 { context.pointee.frame_size }

    func send(_ frame: Frame?) throws(MediaError) {
        let rc = avcodec_send_frame(context, frame?.pointer)
        if rc == FFmpeg.eof { return }
        try FFmpeg.check(rc, "cannot encode")
    }

    func receive() throws(MediaError) -> Packet? {
        let packet = Packet()
        let rc = avcodec_receive_packet(context, packet.pointer)
        if rc == FFmpeg.eagain || rc == FFmpeg.eof { return nil }
        try FFmpeg.check(rc, "cannot encode")
        return packet
    }

    func copyParameters(to par: UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) {
        try FFmpeg.check(avcodec_parameters_from_context(par, context), "encoder parameters")
    }
}
