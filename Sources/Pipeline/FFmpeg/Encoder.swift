import CFFmpeg
import Recipe

/// What an encoder is opened with; negotiated before any data flows.
struct EncoderConfiguration {
    var codecName: String
    var timeBase: TimeBase
    // video
    var width: Int32 = 0
    var height: Int32 = 0
    var pixelFormat: AVPixelFormat = AV_PIX_FMT_NONE
    /// nil: unknown (a variable rate).
    var frameRate: FrameRate?
    /// The pictures' sample aspect ratio, as the bitstream and the container state it.
    var sampleAspect = Ratio.square
    /// Interlaced: coded as fields (`VideoFamily.codesFields`), the field order stated; nil or
    /// progressive: whole pictures.
    var fieldOrder: FieldOrder?
    var gopSize: Int32 = 0
    var colorPrimaries: AVColorPrimaries = AVCOL_PRI_UNSPECIFIED
    var colorTransfer: AVColorTransferCharacteristic = AVCOL_TRC_UNSPECIFIED
    var colorSpace: AVColorSpace = AVCOL_SPC_UNSPECIFIED
    var colorRange: AVColorRange = AVCOL_RANGE_UNSPECIFIED
    var chromaLocation: AVChromaLocation = AVCHROMA_LOC_UNSPECIFIED
    /// HDR10 static metadata: written into the bitstream (`VideoEncoder.hdr`) and the container.
    var masteringDisplay: MasteringDisplay?
    var contentLightLevel: ContentLightLevel?
    // audio
    var sampleRate: Int32 = 0
    var sampleFormat: AVSampleFormat = AV_SAMPLE_FMT_NONE
    /// The samples' real depth when it is less than their format's (24 bits in 32-bit samples); 0: the format's.
    var bitsPerSample: Int32 = 0
    var channels: Int32 = 0
    /// The channel layout by its FFmpeg name (`stereo`, `2.1`); nil: the default one for `channels`.
    var channelLayout: String?
    // both
    var bitRate: Int64 = 0
    var maxBitRate: Int64 = 0
    var profile: String?
    var globalHeader = false
    var threads: Int32 = 0
    /// The encoder's own options (AVOptions on its private class: its quality, speed, parameter string …).
    var options: [(String, String)] = []
    /// Which of two passes this encode is (`EncoderPass`); nil: one pass.
    var ratePass: RatePass?
}

extension EncoderConfiguration {
    /// The pixel format by FFmpeg's name (unknown: none, which the encoder refuses when it opens).
    mutating func setPixelFormat(named name: String) { pixelFormat = av_get_pix_fmt(name) }

    /// The samples the encoder takes, by FFmpeg's name (unknown: none, which it refuses when it opens).
    mutating func setSampleFormat(named name: String) { sampleFormat = av_get_sample_fmt(name) }

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

    /// The chroma siting by FFmpeg's name (`left`, `topleft` …); nil or unknown: unspecified.
    mutating func setChromaLocation(_ name: String?) {
        let v = name.map { $0.withCString(av_chroma_location_from_name) } ?? -1
        chromaLocation = v >= 0 ? AVChromaLocation(rawValue: UInt32(v)) : AVCHROMA_LOC_UNSPECIFIED
    }

    /// The encoder's options with the HDR10 metadata added to its own parameter string (under
    /// its family's keys): FFmpeg 5.1's libx265 and libx264 wrappers do not read it from frame
    /// side data.
    var optionsWithHDR: [(String, String)] {
        guard let encoder = VideoEncoder.named(codecName), let hdr = encoder.hdr, let parameters = encoder.parameters else { return options }
        var params: [String] = []
        if let m = masteringDisplay { params.append("\(hdr.masteringDisplay)=\(m.encoderParameter)") }
        if let c = contentLightLevel { params.append("\(hdr.contentLightLevel)=\(c.encoderParameter)") }
        guard !params.isEmpty else { return options }
        let key = parameters.option
        var out = options.filter { $0.0 != key }
        let existing = options.first { $0.0 == key }.map { [$0.1] } ?? []
        out.append((key, (existing + params).joined(separator: ":")))
        return out
    }
}

/// An encoder. Owns its AVCodecContext (freed once, in deinit).
// Not Sendable: an encoder belongs to one lane, whose QueueBound keeps it on the lane's queue
// (or to a rehearsal, on the thread that plans).
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codecName: String
    /// `VideoEncoder.guessesShortEncodeDTS`.
    private let guessesShortEncodeDTS: Bool
    /// `VideoEncoder.closesOnlyAfterAPicture`.
    private let closesOnlyAfterAPicture: Bool
    /// For the container's stream side data (`mdcv`/`clli`, Matroska's colour elements).
    let masteringDisplay: MasteringDisplay?
    let contentLightLevel: ContentLightLevel?
    /// Its pass of two-pass rate control (nothing for one pass).
    let pass: EncoderPass
    /// The first pass's statistics as last read from `stats_out` (`collectStatistics`).
    var statistics: String?

    /// Opens the encoder. A refusal names the setting that caused it where one did: an option
    /// the encoder does not have (`codec-options.presett`, with the nearest name it has), or
    /// the one option or profile without which it opens (`codec-options.preset`, `profile`).
    init(_ configuration: EncoderConfiguration) throws(MediaError) {
        _ = FFmpeg.installLog  // an encoder's notes go to our log, not to stderr
        var c = configuration
        pass = try EncoderPass.prepare(&c)
        codecName = c.codecName
        guessesShortEncodeDTS = VideoEncoder.named(c.codecName)?.guessesShortEncodeDTS ?? false
        closesOnlyAfterAPicture = VideoEncoder.named(c.codecName)?.closesOnlyAfterAPicture ?? false
        masteringDisplay = c.masteringDisplay
        contentLightLevel = c.contentLightLevel
        guard let codec = avcodec_find_encoder_by_name(c.codecName) else {
            throw MediaError(.unsupported, "encoder '\(c.codecName)' is not in this FFmpeg build")
        }
        // Options the encoder does not have are a settings error, not something to ignore; they
        // are found before anything is opened, so the message is ours and not the library's.
        let known = Self.optionNames(codec)
        for (key, _) in c.options where !known.contains(key) {
            throw MediaError(.invalidSettings, "the \(c.codecName) encoder has no option '\(key)'" + suggestion(key, among: known.sorted()),
                             setting: "codec-options.\(key)")
        }
        try Self.checkNamedValues(c)
        try Self.checkProfile(c)
        switch Self.open(codec, c, pass: pass) {
        case .success(let ctx):
            context = ctx
        case .failure(let error):
            throw Self.blame(error, codec: codec, c)
        }
    }

    /// The encoder opened with `c`, or why not.
    private static func open(_ codec: UnsafePointer<AVCodec>, _ c: EncoderConfiguration, pass: EncoderPass = EncoderPass()) -> Result<UnsafeMutablePointer<AVCodecContext>, MediaError> {
        guard let ctx = avcodec_alloc_context3(codec) else {
            return .failure(ResourceShortage.outOfMemory("the \(c.codecName) encoder"))
        }
        ctx.pointee.time_base = c.timeBase.rational
        ctx.pointee.thread_count = c.threads
        if codec.pointee.type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.width = c.width
            ctx.pointee.height = c.height
            ctx.pointee.pix_fmt = c.pixelFormat
            ctx.pointee.framerate = c.frameRate.map { AVRational(num: $0.frames, den: $0.seconds) } ?? AVRational(num: 0, den: 1)
            ctx.pointee.sample_aspect_ratio = AVRational(num: Int32(clamping: c.sampleAspect.num), den: Int32(clamping: c.sampleAspect.den))
            if let o = c.fieldOrder, o.isInterlaced {
                // Coded as fields (x264: MBAFF), each frame's field order taken from the frame.
                ctx.pointee.flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME
                ctx.pointee.field_order = o.topFieldFirst ? AV_FIELD_TT : AV_FIELD_BB
            }
            if c.gopSize > 0 { ctx.pointee.gop_size = c.gopSize }
            ctx.pointee.color_primaries = c.colorPrimaries
            ctx.pointee.color_trc = c.colorTransfer
            ctx.pointee.colorspace = c.colorSpace
            ctx.pointee.color_range = c.colorRange
            ctx.pointee.chroma_sample_location = c.chromaLocation
        } else {
            ctx.pointee.sample_rate = c.sampleRate
            ctx.pointee.sample_fmt = c.sampleFormat
            if c.bitsPerSample > 0 { ctx.pointee.bits_per_raw_sample = c.bitsPerSample }
            if let name = c.channelLayout {
                av_channel_layout_uninit(&ctx.pointee.ch_layout)
                if av_channel_layout_from_string(&ctx.pointee.ch_layout, name) < 0 {
                    EncoderClosing.free(ctx, codecName: c.codecName)
                    return .failure(MediaError(.invalidSettings, "unknown channel layout '\(name)'", setting: "channel-layout"))
                }
            } else {
                av_channel_layout_default(&ctx.pointee.ch_layout, c.channels)
            }
        }
        if c.bitRate > 0 { ctx.pointee.bit_rate = c.bitRate }
        if c.maxBitRate > 0 {
            ctx.pointee.rc_max_rate = c.maxBitRate
            ctx.pointee.rc_buffer_size = Int32(clamping: c.maxBitRate * 2)
        }
        if c.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }

        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        do throws(MediaError) {
            try pass.apply(to: ctx)
            if let profile = c.profile { try FFmpeg.set(&dict, "profile", profile, in: "the \(c.codecName) encoder's options") }
            for (k, v) in c.optionsWithHDR { try FFmpeg.set(&dict, k, v, in: "the \(c.codecName) encoder's options") }
            FFmpegLog.watch(UnsafeMutableRawPointer(ctx), level: AV_LOG_WARNING)
            let rc = avcodec_open2(ctx, codec, &dict)
            let logged = FFmpegLog.unwatch(UnsafeMutableRawPointer(ctx))
            try FFmpeg.check(rc, "cannot open the \(c.codecName) encoder", kind: .invalidSettings)
            if let refusal = paramsRefusal(logged, c) { throw refusal }
            // Checked above against the encoder's own options; a generic one it ignored is
            // caught here.
            if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
                let key = String(cString: left.pointee.key)
                throw MediaError(.invalidSettings, "the \(c.codecName) encoder has no option '\(key)'", setting: "codec-options.\(key)")
            }
        } catch {
            EncoderClosing.free(ctx, codecName: c.codecName)
            return .failure(error)
        }
        return .success(ctx)
    }

    /// x264 and x265 only warn about an entry of their parameter string (`VideoEncoder.parameters`)
    /// they cannot parse, and open without it: such a warning, logged while opening, is a refusal
    /// of that option.
    private static func paramsRefusal(_ logged: [String], _ c: EncoderConfiguration) -> MediaError? {
        // x265 quotes the key it cannot parse, SVT-AV1 does not.
        let signs = ["Unknown option: ", "Invalid value for ", "Error parsing option "]
        for line in logged {
            // "[libx265] Unknown option: garbage." → "Unknown option: garbage"
            var text = Substring(line)
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") { text = text[text.index(after: close)...] }
            text = text.drop { $0 == " " }
            while text.hasSuffix(".") { text = text.dropLast() }
            guard signs.contains(where: { text.hasPrefix($0) }) else { continue }
            guard let params = VideoEncoder.named(c.codecName)?.parameters else { continue }
            let keys = [params.option] + params.aliases
            // The value is not quoted: the lane adds its own entries (level, log level) to it.
            guard let key = c.options.first(where: { keys.contains($0.0) })?.0 else { continue }
            return MediaError(.invalidSettings, "the \(c.codecName) encoder refuses \(key): \(text)",
                              setting: "codec-options.\(key)")
        }
        return nil
    }

    /// The setting an open failure comes from: the one option (or the profile) without which the
    /// encoder opens. Only tried after a failure, so a good configuration costs one open.
    private static func blame(_ error: MediaError, codec: UnsafePointer<AVCodec>, _ c: EncoderConfiguration) -> MediaError {
        // Only a refusal of the settings is blamed on one: not a shortage, not an entry FFmpeg
        // could not store.
        guard error.setting == nil, error.kind == .invalidSettings else { return error }
        var suspects: [(setting: String, value: String, without: EncoderConfiguration)] = []
        let params = VideoEncoder.named(c.codecName)?.parameters
        for (i, (k, v)) in c.options.enumerated() {
            var d = c
            // x265 keeps quiet only with its log level among its params: without them it would
            // print its banner on stderr.
            if k == params?.option, let quiet = params?.quiet { d.options[i].1 = "\(quiet.key)=\(quiet.value)" } else { d.options.remove(at: i) }
            suspects.append(("codec-options.\(k)", "\(k) '\(v)'", d))
        }
        if let p = c.profile {
            var d = c
            d.profile = nil
            suspects.append(("profile", "profile '\(p)'", d))
        }
        guard suspects.count > 0 else { return error }
        for s in suspects {
            guard case .success(let ctx) = open(codec, s.without) else { continue }
            EncoderClosing.free(ctx, codecName: c.codecName)
            var e = error
            e.message = "the \(c.codecName) encoder refuses \(s.value)"
            e.setting = s.setting
            return e
        }
        return error
    }

    /// x264 and x265 check `preset` and `tune` before FFmpeg's log reaches them and print their
    /// own line on stderr: their names (`VideoEncoder.namedOptions`) are checked here first, with
    /// the nearest one suggested.
    private static func checkNamedValues(_ c: EncoderConfiguration) throws(MediaError) {
        guard let encoder = VideoEncoder.named(c.codecName) else { return }
        for (key, value) in c.options {
            guard let allowed = encoder.namedOptions.first(where: { $0.option == key })?.names else { continue }
            // x264 combines tunes: `film,fastdecode`.
            for part in value.split(whereSeparator: { ",+./".contains($0) }).map(String.init) + (value.isEmpty ? [""] : [])
            where !allowed.contains(part) {
                throw MediaError(.invalidSettings, "the \(c.codecName) encoder has no \(key) '\(part)'" + suggestion(part, among: allowed)
                                 + " (it has \(allowed.joined(separator: ", ")))", setting: "codec-options.\(key)")
            }
        }
    }

    /// x264 and x265 refuse a profile they do not have (`VideoFamily.profiles`), or one the pixel
    /// format does not fit, with their own line on stderr; prores_ks codes any format under any
    /// profile, a stream its profile misnames: checked here first, as a settings error.
    private static func checkProfile(_ c: EncoderConfiguration) throws(MediaError) {
        guard let profile = c.profile, let family = VideoFamily.of(encoder: c.codecName) else { return }
        var table: [String: Profile] = [:]
        for p in family.profiles { table[p.name] = p }
        let names = family.profiles.sorted { ($0.chroma, $0.depth, $0.name) < ($1.chroma, $1.depth, $1.name) }.map(\.name)
        guard let limit = table[profile] else {
            throw MediaError(.invalidSettings, "the \(c.codecName) encoder has no profile '\(profile)'" + suggestion(profile, among: names)
                             + " (it has \(names.joined(separator: ", ")))", setting: "profile")
        }
        guard let desc = av_pix_fmt_desc_get(c.pixelFormat), c.pixelFormat != AV_PIX_FMT_NONE else { return }
        let depth = Int(desc.pointee.comp.0.depth)
        let chroma = desc.pointee.log2_chroma_w == 0 ? 444 : desc.pointee.log2_chroma_h == 0 ? 422 : 420
        let name = av_get_pix_fmt_name(c.pixelFormat).map { String(cString: $0) } ?? "this pixel format"
        if !limit.carries(name, depth: depth, chroma: chroma) {
            throw MediaError(.invalidSettings, "profile '\(profile)' cannot carry \(name) (\(depth)-bit \(chroma == 444 ? "4:4:4" : chroma == 422 ? "4:2:2" : "4:2:0")); "
                             + "\(c.codecName) profiles that can: \(names.filter { table[$0]!.carries(name, depth: depth, chroma: chroma) }.joined(separator: ", "))",
                             setting: "profile")
        }
    }

    /// The names of an encoder's own options (AVOptions of its private class) and the generic
    /// ones every codec context takes.
    static func optionNames(_ codec: UnsafePointer<AVCodec>) -> Set<String> {
        var names: Set<String> = []
        func collect(_ cls: UnsafePointer<AVClass>?) {
            guard var cls else { return }
            withUnsafePointer(to: &cls) { obj in
                var opt: UnsafePointer<AVOption>? = nil
                while let o = av_opt_next(obj, opt) {
                    if o.pointee.type != AV_OPT_TYPE_CONST, let n = o.pointee.name { names.insert(String(cString: n)) }
                    opt = o
                }
            }
        }
        collect(codec.pointee.priv_class)
        collect(avcodec_get_class())
        return names
    }

    deinit {
        EncoderClosing.free(context, codecName: codecName, stream: .init(pictures: framesSent, toldEnd: draining && !endedEmpty, ended: ended))
    }

    var timeBase: TimeBase { TimeBase(context.pointee.time_base) }
    /// Samples per audio frame the encoder wants (0: any).
    var frameSize: Int32 { context.pointee.frame_size }

    /// Pictures or sample frames sent, and whether the encoder is being drained.
    private var framesSent = 0
    private var draining = false
    /// The encoder said it has nothing more (end of stream after draining).
    private var ended = false
    /// A stream without pictures ended here, not passed on (`VideoEncoder.closesOnlyAfterAPicture`).
    private var endedEmpty = false

    func send(_ frame: Frame?) throws(MediaError) {
        if frame == nil && framesSent == 0 && closesOnlyAfterAPicture {
            (draining, endedEmpty) = (true, true)
            return
        }
        let rc = avcodec_send_frame(context, frame?.pointer)
        if rc == FFmpeg.eof { return }
        try FFmpeg.check(rc, "cannot encode")
        if frame == nil { draining = true } else { framesSent += 1 }
    }

    func receive() throws(MediaError) -> Packet? {
        if endedEmpty { return nil }
        let packet = try Packet()
        let rc = avcodec_receive_packet(context, packet.pointer)
        if rc == FFmpeg.eof { ended = true }
        if rc == FFmpeg.eagain || rc == FFmpeg.eof { return nil }
        try FFmpeg.check(rc, "cannot encode")
        collectStatistics()
        // x265 stamps dts = pts − (its B-frame delay in time), a delay it measures only once
        // more pictures than that delay (at most 2) have come in: an encode of 1 or 2 pictures
        // gets whatever its memory held, and the MP4 muxer then refuses the packet ("pts/dts
        // pair unsupported") or keeps a nonsense dts. Two pictures cannot be reordered (the
        // first is the keyframe), so their decode times are their presentation times.
        if guessesShortEncodeDTS && draining && framesSent <= 2 { packet.dts = packet.pts }
        return packet
    }

    func copyParameters(to par: UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) {
        try FFmpeg.check(avcodec_parameters_from_context(par, context), "encoder parameters")
    }
}
