import CFFmpeg

/// An output file being written (muxer). Owns its AVFormatContext and AVIOContext; both are
/// released once, in deinit, whether or not the trailer was written. A rehearsal writes the
/// header into memory instead of a file: the muxer then checks every stream as it would for
/// the real file, and nothing is created.
// Not Sendable: its one owner, AssetWriter, makes the thread-safety claim for it.
final class OutputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    let formatName: String
    /// The header goes to a memory buffer, not to `path`.
    let rehearsal: Bool

    init(path: String, formatName: String, rehearsal: Bool = false) throws(MediaError) {
        _ = FFmpeg.installLog
        self.path = path
        self.formatName = formatName
        self.rehearsal = rehearsal
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpeg.check(avformat_alloc_output_context2(&ctx, nil, formatName, path), "no muxer '\(formatName)'", kind: .unsupported)
        guard let ctx else { throw ResourceShortage.outOfMemory("the \(formatName) muxer") }
        context = ctx
    }

    deinit {
        closeIO()
        avformat_free_context(context)
    }

    private func closeIO() {
        guard context.pointee.pb != nil else { return }
        if rehearsal {
            var buffer: UnsafeMutablePointer<UInt8>? = nil
            _ = avio_close_dyn_buf(context.pointee.pb, &buffer)
            av_free(buffer)
            context.pointee.pb = nil
        } else {
            avio_closep(&context.pointee.pb)
        }
    }

    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }
    /// The same of the muxer named, before any file is opened (false for a muxer FFmpeg lacks).
    static func needsGlobalHeader(muxer: String) -> Bool {
        guard let format = av_guess_format(muxer, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }
    /// The muxer refuses a dts equal to the last (MP4/MOV); Matroska (TS_NONSTRICT) takes it.
    var needsStrictlyIncreasingDTS: Bool { context.pointee.oformat.pointee.flags & AVFMT_TS_NONSTRICT == 0 }

    func addStream() throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else { throw ResourceShortage.outOfMemory("an output stream") }
        return s
    }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream>? {
        guard i >= 0, i < streamCount else { return nil }
        return context.pointee.streams[i]
    }

    func open(options: [(String, String)]) throws(MediaError) {
        if rehearsal {
            try FFmpeg.check(avio_open_dyn_buf(&context.pointee.pb), "cannot rehearse the output")
        } else {
            try FFmpeg.check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "cannot create the output", kind: .cannotCreateOutput)
        }
        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        for (k, v) in options { try FFmpeg.set(&dict, k, v, in: "the muxer options") }
        try FFmpeg.check(avformat_write_header(context, &dict), "cannot write the container header")
    }

    /// Takes the packet's data (the packet is left blank).
    func write(_ packet: Packet) throws(MediaError) {
        try FFmpeg.check(av_interleaved_write_frame(context, packet.pointer), "cannot write")
    }

    /// The first stream this muxer refuses on its own (each is tried alone, in memory): which
    /// track a failed header is about. nil when each is accepted alone.
    func refusedStream() -> (index: Int, error: MediaError)? {
        for i in 0..<streamCount {
            guard let source = stream(i),
                  let alone = try? OutputContainer(path: path, formatName: formatName, rehearsal: true),
                  let st = try? alone.addStream(),
                  avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar) >= 0 else { continue }
            st.pointee.time_base = source.pointee.time_base
            do throws(MediaError) { try alone.open(options: []) } catch { return (i, error) }
        }
        return nil
    }

    /// The bytes written to the file so far (the muxer may hold more it has not written yet).
    var bytesWritten: Int64 {
        guard let pb = context.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// Ends the open fragment of a fragmented MP4 (`+frag_custom`), the interleaver's queue
    /// written into it first.
    func flushFragment() throws(MediaError) {
        try FFmpeg.check(av_interleaved_write_frame(context, nil), "cannot write")
        try FFmpeg.check(av_write_frame(context, nil), "cannot end a fragment")
    }

    func finish() throws(MediaError) {
        try FFmpeg.check(av_write_trailer(context), "cannot finish the output")
        try FFmpeg.check(avio_closep(&context.pointee.pb), "cannot close the output")
    }
}
