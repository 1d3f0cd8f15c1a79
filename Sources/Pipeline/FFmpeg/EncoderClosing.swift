import CFFmpeg
import Recipe

/// Frees encoder contexts, first ending the stream of one whose library closes only after a
/// picture (`VideoEncoder.closesOnlyAfterAPicture`: SVT-AV1 1.4 blocks for ever in
/// `svt_av1_enc_deinit` otherwise).
enum EncoderClosing {
    /// What an encoder was sent before it is freed.
    struct Stream {
        var pictures = 0
        /// The end of the stream was passed on to it.
        var toldEnd = false
        /// It answered that its stream has ended.
        var ended = false
    }

    static func free(_ ctx: UnsafeMutablePointer<AVCodecContext>, codecName: String, stream: Stream = Stream()) {
        if !stream.ended, avcodec_is_open(ctx) != 0, VideoEncoder.named(codecName)?.closesOnlyAfterAPicture == true {
            end(ctx, stream)
        }
        // The second pass's statistics are ours to free (FFmpeg frees `stats_out`, never `stats_in`).
        let statisticsIn = ctx.pointee.stats_in
        var c: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&c)
        av_free(statisticsIn)
    }

    /// One black picture where it had none, then the end, its packets dropped. A picture that
    /// cannot be made (no memory) leaves it as it is: nothing else can end its stream.
    private static func end(_ ctx: UnsafeMutablePointer<AVCodecContext>, _ stream: Stream) {
        if stream.pictures == 0 && !stream.toldEnd {
            guard let picture = try? Frame.video(width: ctx.pointee.width, height: ctx.pointee.height, format: ctx.pointee.pix_fmt) else { return }
            picture.pointer.pointee.color_range = ctx.pointee.color_range
            picture.pointer.pointee.pts = 0
            guard (try? picture.fillBlack()) != nil, avcodec_send_frame(ctx, picture.pointer) == 0 else { return }
        }
        if !stream.toldEnd { _ = avcodec_send_frame(ctx, nil) }
        guard let packet = try? Packet() else { return }
        while avcodec_receive_packet(ctx, packet.pointer) == 0 { av_packet_unref(packet.pointer) }
    }
}
