import CFFmpeg

/// A decoder for one input stream. Owns its AVCodecContext (freed once, in deinit).
// Not Sendable: a decoder belongs to one lane, whose QueueBound keeps it on the lane's queue.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// `threads` 0 lets FFmpeg choose. `strict`: a damaged picture is an error, not concealed
    /// (a check that the stream decodes cleanly, `ChunkJoinCheck`).
    init(stream source: SourceStream, threads: Int32 = 0, strict: Bool = false) throws(MediaError) {
        let stream = source.pointer
        let par = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw MediaError(.unsupported, "no decoder for codec '\(name)' in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceShortage.outOfMemory("a decoder") }
        context = ctx
        try FFmpeg.check(avcodec_parameters_to_context(ctx, par), "decoder parameters")
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = threads
        if strict { ctx.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER }
        try FFmpeg.check(avcodec_open2(ctx, codec, nil), "cannot open the \(String(cString: codec.pointee.name)) decoder")
    }

    /// A decoder for what `encoder` makes, as it was opened (loudness normalisation decodes a
    /// lossy encode again to read the true peak it really has).
    init(decoding encoder: Encoder) throws(MediaError) {
        guard let codec = avcodec_find_decoder(encoder.context.pointee.codec_id) else {
            throw MediaError(.unsupported, "no decoder for the \(encoder.codecName) encoder's codec in this FFmpeg build")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw ResourceShortage.outOfMemory("a decoder") }
        context = ctx
        guard let par = avcodec_parameters_alloc() else { throw ResourceShortage.outOfMemory("codec parameters") }
        defer { var p: UnsafeMutablePointer<AVCodecParameters>? = par; avcodec_parameters_free(&p) }
        try FFmpeg.check(avcodec_parameters_from_context(par, encoder.context), "encoder parameters")
        try FFmpeg.check(avcodec_parameters_to_context(ctx, par), "decoder parameters")
        ctx.pointee.pkt_timebase = encoder.context.pointee.time_base
        try FFmpeg.check(avcodec_open2(ctx, codec, nil), "cannot open the \(String(cString: codec.pointee.name)) decoder")
    }

    /// The threads FFmpeg settled on when it opened (1 for a codec that decodes on one).
    var threadCount: Int32 { context.pointee.thread_count }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Sends a packet, or nil to start draining. EAGAIN is reported as false (receive first).
    func send(_ packet: Packet?) throws(MediaError) -> Bool {
        let rc = avcodec_send_packet(context, packet?.pointer)
        if rc == FFmpeg.eagain { return false }
        if rc == FFmpeg.eof { return true }
        try FFmpeg.check(rc, "cannot decode")
        return true
    }

    /// The next decoded frame, or nil when the decoder needs input (or is drained).
    func receive() throws(MediaError) -> Frame? {
        let frame = try Frame()
        let rc = avcodec_receive_frame(context, frame.pointer)
        if rc == FFmpeg.eagain || rc == FFmpeg.eof { return nil }
        try FFmpeg.check(rc, "cannot decode")
        return frame
    }
}
