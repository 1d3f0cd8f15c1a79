import CFFmpeg

/// One subtitle event, decoded: ASS text lines and when they show.
struct SubtitleEvent {
    /// ASS dialogue events (FFmpeg's common form for text subtitles).
    var lines: [String]
    /// Milliseconds after the packet's time the text appears and disappears (0 … 0: unknown).
    var startMilliseconds: Int64
    var endMilliseconds: Int64
}

/// A text subtitle decoder (avcodec_decode_subtitle2). Owns its AVCodecContext (freed once, in
/// deinit). Not Sendable: it lives in one lane, which its queue holds (QueueBound).
final class SubtitleDecoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    init(stream source: SourceStream) throws(MediaError) {
        let stream = source.pointer
        let par = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw MediaError(.unsupported, "no decoder for subtitle codec '\(String(cString: avcodec_get_name(par.pointee.codec_id)))' in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceShortage.outOfMemory("a subtitle decoder") }
        context = ctx
        try FFmpeg.check(avcodec_parameters_to_context(ctx, par), "decoder parameters")
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        try FFmpeg.check(avcodec_open2(ctx, codec, nil), "cannot open the \(String(cString: codec.pointee.name)) decoder")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// The ASS header the decoder describes its styles with (the encoder needs it).
    var header: [UInt8] {
        guard let h = context.pointee.subtitle_header, context.pointee.subtitle_header_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: h, count: Int(context.pointee.subtitle_header_size)))
    }

    /// The event in `packet`, or nil when it holds none.
    func decode(_ packet: Packet) throws(MediaError) -> SubtitleEvent? {
        var sub = AVSubtitle()
        var got: Int32 = 0
        try FFmpeg.check(avcodec_decode_subtitle2(context, &sub, &got, packet.pointer), "cannot decode")
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&sub) }
        var lines: [String] = []
        for i in 0..<Int(sub.num_rects) {
            if let rect = sub.rects[i], let ass = rect.pointee.ass { lines.append(String(cString: ass)) }
        }
        return SubtitleEvent(lines: lines, startMilliseconds: Int64(sub.start_display_time), endMilliseconds: Int64(sub.end_display_time))
    }
}

/// A text subtitle encoder (mov_text, subrip) in milliseconds. Owns its AVCodecContext (freed
/// once, in deinit). Not Sendable: it lives in one lane (or one FrameSource).
final class SubtitleEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    static let timeBase = TimeBase(num: 1, den: 1000)
    /// AVERROR_BUFFER_TOO_SMALL (FFERRTAG 'B','U','F','S'; a macro Swift does not import).
    static let bufferTooSmall = -Int32(0x42 | 0x55 << 8 | 0x46 << 16 | 0x53 << 24)
    /// The largest encoded event (bytes): far beyond any real subtitle, a bound on memory.
    static let largestEvent = 16 * 1024 * 1024

    /// `header`: the decoder's ASS header (styles).
    init(name: String, header: [UInt8], globalHeader: Bool) throws(MediaError) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw MediaError(.unsupported, "encoder '\(name)' is not in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceShortage.outOfMemory("a subtitle encoder") }
        context = ctx
        ctx.pointee.time_base = Self.timeBase.rational
        if !header.isEmpty {
            // Without it the styles would be lost in silence. (The context is freed by deinit.)
            guard let h = av_mallocz(header.count + 1) else { throw ResourceShortage.outOfMemory("the subtitle header") }
            // Freed by avcodec_free_context with the context.
            let bytes = h.bindMemory(to: UInt8.self, capacity: header.count + 1)
            header.withUnsafeBufferPointer { src in if let from = src.baseAddress { bytes.update(from: from, count: src.count) } }
            ctx.pointee.subtitle_header = bytes
            ctx.pointee.subtitle_header_size = Int32(header.count)
        }
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try FFmpeg.check(avcodec_open2(ctx, codec, nil), "cannot open the \(name) encoder", kind: .invalidSettings)
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    func copyParameters(to par: UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) {
        try FFmpeg.check(avcodec_parameters_from_context(par, context), "encoder parameters")
    }

    /// A packet holding `lines` (ASS events) shown from `pts` for `duration` milliseconds.
    func encode(_ lines: [String], pts: Int64, duration: Int64) throws(MediaError) -> Packet? {
        guard !lines.isEmpty else { return nil }
        // The rects and their text are FFmpeg's to free (avsubtitle_free).
        var sub = AVSubtitle()
        defer { avsubtitle_free(&sub) }
        guard let table = av_calloc(lines.count, MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.stride) else {
            throw ResourceShortage.outOfMemory("a subtitle")
        }
        let rects = table.bindMemory(to: UnsafeMutablePointer<AVSubtitleRect>?.self, capacity: lines.count)
        sub.rects = rects
        for (i, line) in lines.enumerated() {
            guard let raw = av_mallocz(MemoryLayout<AVSubtitleRect>.stride) else { throw ResourceShortage.outOfMemory("a subtitle") }
            let rect = raw.bindMemory(to: AVSubtitleRect.self, capacity: 1)
            rects[i] = rect
            sub.num_rects = UInt32(i + 1)
            rect.pointee.type = SUBTITLE_ASS
            rect.pointee.ass = av_strdup(line)
        }
        sub.start_display_time = 0
        sub.end_display_time = UInt32(clamping: duration)
        // The encoders say when the buffer is too small (a long event): try again with more room.
        var buffer: [UInt8] = []
        var size = Self.bufferTooSmall
        var room = 64 * 1024
        while size == Self.bufferTooSmall && room <= Self.largestEvent {
            buffer = [UInt8](repeating: 0, count: room)
            size = avcodec_encode_subtitle(context, &buffer, Int32(room), &sub)
            room *= 4
        }
        let text = lines.reduce(0) { $0 + $1.utf8.count }
        if size == -ERANGE && String(cString: context.pointee.codec.pointee.name) == "mov_text" {
            // A mov_text sample states its text's length in 16 bits.
            throw MediaError(.unsupported, "a subtitle event of \(text) bytes is longer than mov_text holds (65535 bytes): write to .mkv, or leave the track out")
        }
        if size == Self.bufferTooSmall {
            throw MediaError(.unsupported, "a subtitle event of \(text) bytes is longer than reencode writes (\(Self.largestEvent / 1024 / 1024) MiB)")
        }
        try FFmpeg.check(size, "cannot encode")
        let packet = try Packet()
        try FFmpeg.check(av_new_packet(packet.pointer, size), "subtitle packet")
        buffer.withUnsafeBufferPointer { src in
            if let from = src.baseAddress, let to = packet.pointer.pointee.data { to.update(from: from, count: Int(size)) }
        }
        packet.pts = pts
        packet.dts = pts
        packet.duration = duration
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        return packet
    }
}
