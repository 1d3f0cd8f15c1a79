import CFFmpeg
import Recipe

/// What this FFmpeg build can do with a codec, asked by name (a track's `format.codec`): the
/// planner refuses early what the run could not do.
enum CodecSupport {
    /// A decoder for `codec` is built in.
    static func canDecode(_ codec: String) -> Bool {
        avcodec_find_decoder(id(of: codec)) != nil
    }

    /// `format`'s muxer stores `codec`'s samples as they are (stream copy). An unknown muxer
    /// answers yes: the writer says what is wrong when it opens.
    static func canCopy(_ codec: String, into format: ContainerFormat) -> Bool {
        guard let muxer = av_guess_format(format.muxerName, nil, nil) else { return true }
        let id = id(of: codec)
        let answer = avformat_query_codec(muxer, id, FF_COMPLIANCE_NORMAL)
        // A muxer with neither a codec list nor a query of its own knows only its default codecs
        // (FFmpeg's Ogg writer: Vorbis, yet it writes Opus and FLAC): where it cannot say, the
        // codecs the containers' table names for it are what it holds.
        if answer < 0, format.holds.names(codec) { return true }
        return answer == 1 || (format == .mkv && hasMatroskaFallbackTag(id))
    }

    /// `format`'s muxer knows `codec` as one of its own (no fallback tag); an unknown muxer
    /// answers no.
    static func isNative(_ codec: String, to format: ContainerFormat) -> Bool {
        guard let muxer = av_guess_format(format.muxerName, nil, nil) else { return false }
        return avformat_query_codec(muxer, id(of: codec), FF_COMPLIANCE_NORMAL) == 1
    }

    /// `codec` is a text subtitle format (SubRip, ASS, mov_text, WebVTT …), not bitmaps.
    static func isTextSubtitle(_ codec: String) -> Bool {
        guard let d = avcodec_descriptor_get_by_name(codec) else { return false }
        return d.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0
    }

    /// An encoder by this name is built in.
    static func canEncode(_ name: String) -> Bool { avcodec_find_encoder_by_name(name) != nil }

    private static func id(of codec: String) -> AVCodecID {
        avcodec_descriptor_get_by_name(codec)?.pointee.id ?? AV_CODEC_ID_NONE
    }

    /// Matroska's query knows only its native codec IDs; its muxer also stores any other codec
    /// FFmpeg has a Windows (VFW/ACM) or QuickTime tag for, as `ffmpeg -c copy` does (H.263).
    private static func hasMatroskaFallbackTag(_ id: AVCodecID) -> Bool {
        id != AV_CODEC_ID_NONE && [avformat_get_riff_video_tags(), avformat_get_riff_audio_tags(), avformat_get_mov_video_tags()].contains { table in
            var tables: [OpaquePointer?] = [table, nil]  // a list of tables, ended by NULL
            return av_codec_get_tag(&tables, id) != 0
        }
    }
}

extension CodecSupport {
    /// The codec (FFmpeg's stream codec name) the encoder `name` writes; nil for one not built in.
    static func codec(ofEncoder name: String) -> String? {
        guard let encoder = avcodec_find_encoder_by_name(name) else { return nil }
        return avcodec_get_name(encoder.pointee.id).map { String(cString: $0) }
    }
}

