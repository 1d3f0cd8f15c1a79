import CFFmpeg
import Foundation

/// An opened input file (demuxer). Owns its AVFormatContext and the AVIOContext it reads through;
/// both are closed once, in deinit.
///
/// The file is opened by us (not by the demuxer) so that a failure can be told apart by its real
/// cause: the AVIOContext records whether a read(2) failed (an I/O error, 74) or the data simply
/// ended (a cut-off or non-media file, 66). The demuxer's error lines are collected from the
/// moment the context exists, so damage met while probing (a short file read whole by
/// `avformat_find_stream_info`) is not lost.
// Not Sendable: it is probed on one thread (Asset.load), then owned by ProbedInput until one
// AssetReader takes it; those owners make the thread-safety claim for it.
final class InputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// A packet read at open to prove the file holds one (only when probing met damage).
    private var pending: Packet?

    /// Whether `avformat_find_stream_info` ran (it decodes pictures to learn the streams).
    let readStreamInformation: Bool

    /// `streamInformation` false: a reader of packets only (FrameStartScan, the slow-motion
    /// conform's layer scan, a subtitle track read from the start) skips the stream
    /// information where the demuxer names every stream in its header; one that finds streams in
    /// the packets (`AVFMTCTX_NOHEADER`: MPEG-TS, FLV) reads it all the same, so the streams and
    /// their numbers are those of a full open; so does a raw video elementary stream.
    init(path: String, streamInformation: Bool = true) throws(MediaError) {
        _ = FFmpeg.installLog
        self.path = path
        try SourceFileKind.checkRegularFile(path)
        FFmpeg.clearLog()
        var io: UnsafeMutablePointer<AVIOContext>? = nil
        // "file:" so that a name with a colon is never taken for another protocol.
        let opened = avio_open2(&io, "file:" + path, AVIO_FLAG_READ, nil, nil)
        guard opened >= 0, let io else {
            throw FFmpeg.error(opened, "cannot open", kind: Self.openKind(opened)).at(file: path)
        }
        guard let allocated = avformat_alloc_context() else {
            var pb: UnsafeMutablePointer<AVIOContext>? = io
            avio_closep(&pb)
            throw ResourceShortage.outOfMemory("a demuxer").at(file: path)
        }
        allocated.pointee.pb = io
        let key = UnsafeMutableRawPointer(allocated)
        FFmpegLog.watch(key)
        var ctx: UnsafeMutablePointer<AVFormatContext>? = allocated
        // On failure avformat_open_input frees the context (not our AVIOContext).
        let rc = avformat_open_input(&ctx, path, nil, nil)
        guard rc >= 0, let ctx else {
            let error = Self.failure(rc, io: io, "not a media file FFmpeg can read")
            _ = FFmpegLog.unwatch(key)
            var pb: UnsafeMutablePointer<AVIOContext>? = io
            avio_closep(&pb)
            throw error.at(file: path)
        }
        context = ctx
        self.io = io
        // A raw video elementary stream reads it too: its refusal (UntimedElementaryStream) is
        // told from the rate and reordering the stream information finds.
        readStreamInformation = streamInformation || ctx.pointee.ctx_flags & AVFMTCTX_NOHEADER != 0
            || UntimedElementaryStream.isCandidate(ctx)
        let info = readStreamInformation ? avformat_find_stream_info(ctx, nil) : 0
        if info < 0 {
            throw Self.failure(info, io: io, "cannot read stream information").at(file: path)
        }
        if ctx.pointee.nb_streams == 0 {
            throw MediaError(.notMedia, "not a media file: it holds no tracks", file: path,
                             detail: demuxerErrors.first ?? FFmpeg.takeLastLogLine())
        }
        // Probing met the end of a cut-off file: it must still describe a picture or sound track
        // and hold at least one sample, else it is a header and nothing more — not media.
        if let (reason, line) = damageAtEnd {
            let media = (0..<streamCount).filter { stream($0).isPictureOrSound }
            if !media.isEmpty, !media.contains(where: { isDescribed(stream($0).pointer) }) {
                throw MediaError(.notMedia, "not a media file: it ends before any track can be described (\(reason ?? "cut off?"))",
                                 file: path, detail: line)
            }
            let first = try Packet()
            let got: Bool
            do throws(MediaError) { got = try read(into: first) } catch {
                if error.kind == .io { throw error.at(file: path) }
                got = false
            }
            guard got else {
                throw MediaError(.notMedia, "not a media file: it ends before its first sample (\(reason ?? "cut off?"))",
                                 file: path, detail: line)
            }
            pending = first
        }
        // A raw video elementary stream: its first packet says whether its pictures carry times.
        if pending == nil, UntimedElementaryStream.isCandidate(ctx) {
            let first = try Packet()
            let got: Bool
            do throws(MediaError) { got = try read(into: first) } catch {
                if error.kind == .io { throw error.at(file: path) }
                got = false
            }
            if got {
                if let refusal = UntimedElementaryStream.refusal(ctx, first: first, path: path) { throw refusal }
                pending = first
            }
        }
    }

    /// The probe could say what a picture or sound track holds: size and pixel format, or rate
    /// and channels.
    private func isDescribed(_ st: UnsafeMutablePointer<AVStream>) -> Bool {
        let par = st.pointee.codecpar.pointee
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: return par.width > 0 && par.height > 0 && par.format >= 0
        case AVMEDIA_TYPE_AUDIO: return par.sample_rate > 0 && par.ch_layout.nb_channels > 0
        default: return false
        }
    }

    deinit {
        _ = FFmpegLog.unwatch(UnsafeMutableRawPointer(context))
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
        avio_closep(&io)
    }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ i: Int) -> SourceStream { SourceStream(pointer: context.pointee.streams[i]!) }

    /// Error lines the demuxer logged since the file was opened (probing included).
    var demuxerErrors: [String] { FFmpegLog.errors(of: UnsafeMutableRawPointer(context)) }

    /// Evidence, once reading has ended, that the file was cut off or damaged: the demuxer's first
    /// error line, or a transport stream that stops inside a packet (its demuxer ends quietly on
    /// a short last packet). nil when the file ended where its structure says it ends.
    var damageAtEnd: (reason: String?, ffmpegLine: String?)? {
        if let line = demuxerErrors.first { return (nil, line) }
        if String(cString: context.pointee.iformat.pointee.name) == "mpegts", let io {
            let size = avio_size(io)
            // 188-byte packets, 192 with a timecode prefix (M2TS), 204 with Reed-Solomon parity.
            if size > 0, size % 188 != 0, size % 192 != 0, size % 204 != 0 {
                return ("it ends inside a transport stream packet", nil)
            }
        }
        return nil
    }

    /// The next packet in file order, or nil at the end.
    func read(into packet: Packet) throws(MediaError) -> Bool {
        av_packet_unref(packet.pointer)
        if let first = pending {
            pending = nil
            av_packet_move_ref(packet.pointer, first.pointer)
            return true
        }
        let rc = av_read_frame(context, packet.pointer)
        if rc == FFmpeg.eof { return false }
        if rc < 0 { throw Self.failure(rc, io: io, "cannot read from file", otherwise: .processing) }
        return true
    }

    /// Back to the first byte, for stream formats with timestamp discontinuities (MPEG-TS/PS),
    /// whose demuxers pick up anywhere and whose timestamp seeks are guesses; false for others.
    func seekToFirstByte() -> Bool {
        let flags = context.pointee.iformat.pointee.flags
        guard flags & AVFMT_TS_DISCONT != 0, flags & AVFMT_NO_BYTE_SEEK == 0 else { return false }
        pending = nil
        return av_seek_frame(context, -1, 0, AVSEEK_FLAG_BYTE) >= 0
    }

    /// Positions every stream at or before `time` (a sync sample), `-1` stream = all.
    func seek(to time: Int64, stream: Int32) throws(MediaError) {
        pending = nil
        let rc = avformat_seek_file(context, stream, Int64.min, time, time, 0)
        if rc < 0 {
            // Some demuxers only seek backwards with the flag; try that before giving up.
            try FFmpeg.check(av_seek_frame(context, stream, time, AVSEEK_FLAG_BACKWARD), "cannot seek")
        }
    }

    /// An error from the demuxer, judged by its cause: a read(2) that failed is an I/O error
    /// (74, "cannot read"); anything else is `otherwise` (not media at open, damage while
    /// reading) — invalid data, or the data ending early, which some demuxers report as EIO.
    private static func failure(_ rc: Int32, io: UnsafeMutablePointer<AVIOContext>?, _ what: String,
                                otherwise: MediaError.Kind = .notMedia) -> MediaError {
        if let io, io.pointee.error < 0, io.pointee.error != FFmpeg.eof {
            let cause = io.pointee.error
            let kind = FFmpeg.classify(cause)
            return FFmpeg.error(cause, "cannot read", kind: kind == .processing ? .io : kind)
        }
        if rc == -ENOMEM, ResourceShortage.cause(ofErrno: ENOMEM) == nil {
            // Memory is not short (else FFmpeg.error says so). While opening, a small file that makes the demuxer run out of memory claims
            // impossible sizes (a sample table of 2^32 entries): not media. Later it is ours.
            guard otherwise == .notMedia else { return FFmpeg.error(rc, what, kind: .processing) }
            return MediaError(.notMedia, "\(what): a size in its index is impossible (damaged?)", detail: FFmpeg.takeLastLogLine(), code: .ffmpeg(rc))
        }
        if rc == -EIO || rc == FFmpeg.eof, let io, io.pointee.eof_reached != 0 {
            return MediaError(otherwise, "\(what): the file ends too soon (cut off?)", detail: FFmpeg.takeLastLogLine(), code: .ffmpeg(rc))
        }
        return FFmpeg.error(rc, what, kind: otherwise)
    }

    /// Opening a regular file we were allowed to read can only fail for a reason of the OS.
    private static func openKind(_ rc: Int32) -> MediaError.Kind {
        switch FFmpeg.classify(rc) {
        case .inputMissing: return .inputMissing
        default: return .io
        }
    }
}
