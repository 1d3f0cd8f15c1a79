import CFFmpeg
import Foundation

/// An opened input file (demuxer). Owns its AVFormatContext; closed once, in deinit.
// SAFETY: the container is used by one reader at a time; AssetReader serialises every call on it
// behind its lock.
final class InputContainer: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String

    init(path: String) throws(MediaError) {
        _ = FFmpeg.installLog
        self.path = path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw MediaError(.inputMissing, "no such file", file: path)
        }
        if isDir.boolValue { throw MediaError(.inputMissing, "is a directory, not a media file", file: path) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError(.inputMissing, "cannot read: permission denied", file: path)
        }
        FFmpeg.clearLog()
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = avformat_open_input(&ctx, path, nil, nil)
        guard rc >= 0, let ctx else {
            let kind: MediaError.Kind = rc == rx_averror_invaliddata() ? .notMedia : FFmpeg.classify(rc)
            let e = FFmpeg.error(rc, "not a media file FFmpeg can read", kind: kind == .processing ? .notMedia : kind)
            throw e.at(file: path)
        }
        context = ctx
        let info = avformat_find_stream_info(ctx, nil)
        if info < 0 {
            throw FFmpeg.error(info, "cannot read stream information", kind: .notMedia).at(file: path)
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[i]! }

    /// The next packet in file order, or nil at the end.
    func read(into packet: Packet) throws(MediaError) -> Bool {
        av_packet_unref(packet.pointer)
        let rc = av_read_frame(context, packet.pointer)
        if rc == FFmpeg.eof { return false }
        try FFmpeg.check(rc, "cannot read from file")
        return true
    }

    /// Positions every stream at or before `time` (a sync sample), `-1` stream = all.
    func seek(to time: Int64, stream: Int32) throws(MediaError) {
        let rc = avformat_seek_file(context, stream, Int64.min, time, time, 0)
        if rc < 0 {
            // Some demuxers only seek backwards with the flag; try that before giving up.
            try FFmpeg.check(av_seek_frame(context, stream, time, AVSEEK_FLAG_BACKWARD), "cannot seek")
        }
    }
}
