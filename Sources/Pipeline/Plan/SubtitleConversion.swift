import Recipe

/// How a subtitle track reaches the output: copied when the container holds its format, else
/// text decoded and encoded in the container's own text format (MP4/MOV/M4A: mov_text, MKV:
/// SubRip, WebM: WebVTT). Bitmap subtitles (PGS, DVD, DVB) cannot become text: only MKV takes them.
public struct SubtitleConversion: Sendable, Hashable {
    /// FFmpeg's encoder: `mov_text` or `subrip`.
    public let encoderName: String

    /// The container's text format; an audio-only container's tracks are refused before this is asked.
    static func textFormat(for format: ContainerFormat) -> String { format.textSubtitleCodec ?? "none" }

    static func holds(_ codec: String, format: ContainerFormat) -> Bool { CodecSupport.isNative(codec, to: format) }

    static func isText(_ codec: String) -> Bool { CodecSupport.isTextSubtitle(codec) }

    /// Why this track cannot go into `format` as subtitles, or nil when it can.
    public static func refusal(_ track: Track, format: ContainerFormat?) -> String? {
        bitmapRefusal(track, format: format).map { "track #\(track.index) (\(track.format.codec)) " + $0 }
    }

    /// The refusal without the track's name (a MediaError names its track itself).
    private static func bitmapRefusal(_ track: Track, format: ContainerFormat?) -> String? {
        guard let format, !holds(track.format.codec, format: format), !isText(track.format.codec) else { return nil }
        return "holds bitmap subtitles, which cannot become text: \(format.displayName) files hold text subtitles only (\(textFormat(for: format))); write to .mkv, or leave the track out"
    }

    /// A copy the container cannot hold, refused with what would work: text subtitles are
    /// converted when the recipe does not ask for a copy; bitmap ones cannot become text.
    static func checkCopy(_ track: Track, format: ContainerFormat, source: String) throws(MediaError) {
        guard !holds(track.format.codec, format: format) else { return }
        if let why = bitmapRefusal(track, format: format) { throw MediaError(.unsupported, "\(track.format.codec) " + why, file: source, track: track.index) }
        throw MediaError(.unsupported, "\(track.format.codec) cannot be copied into \(format.displayName) files as it is: without 'decode: false' or 'codec: copy' it is converted to \(textFormat(for: format))",
                         file: source, track: track.index)
    }

    /// Copied when the container holds the format as it is, unless a trim must cut text events
    /// at its ends (copied samples cannot be cut): then encoded again in the same format where
    /// FFmpeg has an encoder for it (ASS keeps its styles), else in the container's.
    static func plan(_ track: Track, format: ContainerFormat, trimmed: Bool, source: String) throws(MediaError) -> LanePlan.Kind {
        let codec = track.format.codec
        let held = holds(codec, format: format)
        if held && (!trimmed || !isText(codec)) { return .passthrough }
        if let why = refusal(track, format: format) { throw MediaError(.unsupported, why, file: source, track: track.index) }
        let same = held && CodecSupport.canEncode(codec)
        return .subtitle(SubtitleConversion(encoderName: same ? codec : textFormat(for: format)))
    }
}
