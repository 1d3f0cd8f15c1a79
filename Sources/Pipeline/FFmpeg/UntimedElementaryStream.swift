import CFFmpeg
import Foundation

/// A raw video elementary stream whose pictures carry no presentation times: H.264 and HEVC as
/// `raspivid`, drones and `ffmpeg -f h264` write them (their packets have no time at all), and
/// MPEG-1/2 video (`.m2v`: decode times only, counted from the frame rate, so the first picture
/// has none and is lost, every other shown a frame late). The pipeline places every picture by its
/// time (trims, frame grids, copied timestamps), so such a file is refused at open with the way to
/// wrap it, rather than failing later with "nothing to convert" or "cannot seek", or being copied
/// out of order. Raw streams whose demuxer does time them (MPEG-4 Part 2 video, ADTS AAC, MP3,
/// FLAC, AC-3, WAV) are not concerned.
enum UntimedElementaryStream {
    /// Whether the file is a single-picture-track stream read by a demuxer that takes a
    /// `-framerate` (the raw video elementary stream demuxers): only then is its first packet
    /// worth looking at.
    static func isCandidate(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard ctx.pointee.nb_streams == 1, let st = ctx.pointee.streams[0],
              st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
              var options = ctx.pointee.iformat.pointee.priv_class else { return false }
        // Asked of the demuxer's class, not its private data (which starts with a class pointer
        // only when the demuxer has options).
        return av_opt_find(&options, "framerate", nil, 0, AV_OPT_SEARCH_FAKE_OBJ) != nil
    }

    /// The refusal for a candidate whose first packet has no presentation time; nil when it has one.
    static func refusal(_ ctx: UnsafeMutablePointer<AVFormatContext>, first: Packet, path: String) -> MediaError? {
        guard first.pts == FFmpeg.noPTS, let st = ctx.pointee.streams[0] else { return nil }
        let kind = ctx.pointee.iformat.pointee.long_name.map { String(cString: $0) } ?? "raw video"
        // The rate the stream's own header states (H.264/HEVC VUI timing), when it states one;
        // the demuxer's 25 fps default is no evidence and is not offered.
        let r = st.pointee.r_frame_rate
        let stated = r.num > 0 && r.den > 0 && Double(r.num) / Double(r.den) <= 480 ? rateText(r) : nil
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        let rate = stated ?? "RATE"
        let because = stated.map { " (\($0) fps, as its header states)" } ?? " (the rate it was recorded at: its header states none)"
        // Pictures stored out of display order (B-frames): `ffmpeg -c copy` would give them
        // their stored order's times (checked: an MP4 with pts = dts); mkvmerge times them by
        // their picture order counts.
        let reorders = st.pointee.codecpar.pointee.video_delay > 0
        let what = reorders ? "its pictures carry no presentation times and may be stored out of display order"
            : "its pictures carry no presentation times"
        let command = reorders
            ? "mkvmerge -o \(shellWord(stem + ".mkv")) --default-duration 0:\(rate)fps \(shellWord(name)) (ffmpeg -c copy would time them in stored order)"
            : "ffmpeg -framerate \(rate) -i \(shellWord(name)) -c copy \(shellWord(stem + ".mp4"))"
        return MediaError(.notMedia, "\(kind) stream: \(what); wrap it with its frame rate first\(because): \(command)", file: path)
    }

    private static func rateText(_ r: AVRational) -> String {
        r.den == 1 ? "\(r.num)" : "\(r.num)/\(r.den)"
    }

    /// A file name as a shell reads it: quoted only when it needs to be.
    private static func shellWord(_ s: String) -> String {
        let plain = s.allSatisfy { $0.isLetter || $0.isNumber || "._-+,@%/=:".contains($0) }
        return plain && !s.isEmpty ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
