import CFFmpeg

/// An output file being written (muxer). Owns its AVFormatContext and AVIOContext; both are
/// released once, in deinit, whether or not the trailer was written.
// SAFETY: AssetWriter serialises every call on the container behind its lock.
final class OutputContainer: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String

    init(path: String, formatName: String) throws(MediaError) {
        _ = FFmpeg.installLog
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpeg.check(avformat_alloc_output_context2(&ctx, nil, formatName, path), "no muxer '\(formatName)'", kind: .unsupported)
        context = ctx!
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }
    /// The muxer refuses a dts equal to the last (MP4/MOV); Matroska (TS_NONSTRICT) takes it.
    var needsStrictlyIncreasingDTS: Bool { context.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT == 0 }

    func addStream() -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else { fatalError("avformat_new_stream: out of memory") }
        return s
    }

    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[i]! }

    func open(options: [(String, String)]) throws(MediaError) {
        try FFmpeg.check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "cannot create the output", kind: .cannotCreateOutput)
        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        try FFmpeg.check(avformat_write_header(context, &dict), "cannot write the container header")
    }

    /// Takes the packet's data (the packet is left blank).
    func write(_ packet: Packet) throws(MediaError) {
        try FFmpeg.check(av_interleaved_write_frame(context, packet.pointer), "cannot write")
    }

    func finish() throws(MediaError) {
        try FFmpeg.check(av_write_trailer(context), "cannot finish the output")
        try FFmpeg.check(avio_closep(&context.pointee.pb), "cannot close the output")
    }
}
