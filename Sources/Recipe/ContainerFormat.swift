/// Container formats reencode writes, and what each holds: every rule that differs by container
/// asks one of these properties, so a container is described here once.
public enum ContainerFormat: String, Sendable, CaseIterable {
    case mp4, mov, m4a, mkv, webm, flac, opus, ogg, wav

    /// From a path's extension (`.mp4`, `.m4v` → mp4, `.mov`, `.qt` → mov, …).
    public init?(pathExtension ext: String) {
        guard let f = Self.allCases.first(where: { $0.extensions.contains(ext.lowercased()) }) else { return nil }
        self = f
    }

    /// The extensions that name it, its own first.
    public var extensions: [String] {
        switch self {
        case .mp4: return ["mp4", "m4v"]
        case .mov: return ["mov", "qt"]
        // `.oga` is Xiph's name for an Ogg file of audio only: what reencode writes into one.
        case .ogg: return ["ogg", "oga"]
        default: return [rawValue]
        }
    }

    /// As people write it: `MP4`, `WebM`, `Ogg Opus`.
    public var displayName: String {
        switch self {
        case .webm: return "WebM"
        case .opus: return "Ogg Opus"
        case .ogg: return "Ogg"
        default: return rawValue.uppercased()
        }
    }

    /// `mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav` (each after `prefix`), for a message.
    public static func namesList(prefix: String = "") -> String {
        let names = allCases.map { prefix + $0.rawValue }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// An ISO base media file (MP4, MOV, M4A; FFmpeg's mov muxers): `movflags`, the index at the
    /// front on request, a track named by its handler, an encoder's priming hidden by the edit list.
    public var isISOMedia: Bool { self == .mp4 || self == .mov || self == .m4a }

    /// Matroska (MKV, and WebM, its subset for browsers; FFmpeg's matroska muxer): any tag, track
    /// titles as they are, and no edit list, so an encoder's priming cannot be hidden.
    public var isMatroska: Bool { self == .mkv || self == .webm }

    /// Holds files beside its tracks (fonts, images): MKV only (WebM holds none).
    public var holdsAttachments: Bool { self == .mkv }

    /// Holds chapters as FFmpeg 5.1 writes them: none into FLAC or WAV, and Ogg's Vorbis-comment
    /// chapters misplaced (its writer rounds the seconds: a chapter at 2.5 s is written at 3.5 s).
    public var holdsChapters: Bool { isISOMedia || isMatroska }

    /// States a title and a language per track (Matroska); ISO files name a track by its
    /// handler; FLAC, Ogg and WAV files hold one set of tags, the file's (an Ogg file's writer
    /// gives each stream the file's).
    public var tagsTracks: Bool { isMatroska }

    /// Holds one track: FFmpeg's FLAC and WAV muxers take exactly one stream (its Ogg muxer
    /// takes several Opus streams).
    public var holdsOneTrack: Bool { self == .flac || self == .wav }

    /// `an` or `a` before its name as a message writes it: `an m4a file`, `a webm file`.
    public var article: String { [.mp4, .m4a, .mkv, .opus, .ogg].contains(self) ? "an" : "a" }

    /// The codecs it holds, by FFmpeg's stream codec names: nil, any its muxer takes; empty, no
    /// track of that kind.
    public var holds: Holdings {
        switch self {
        case .mp4, .mkv: return Holdings(video: nil, audio: nil, subtitles: nil)
        // FFmpeg's mov muxer lists these codecs' tags but writes them only into MP4 (its header
        // fails with 'vp9 only supported in MP4'); Vorbis it writes, under a Windows audio tag no
        // QuickTime player plays.
        case .mov:
            let mp4Only = "FFmpeg writes it into MP4 only"
            return Holdings(video: nil, audio: nil, subtitles: nil, refused: [
                "vp9": mp4Only, "av1": mp4Only, "opus": mp4Only, "flac": mp4Only,
                "vorbis": "FFmpeg stores it under a Windows audio tag ('msVo') that QuickTime and Apple's players do not play",
            ])
        case .m4a: return Holdings(video: [], audio: nil, subtitles: nil)
        case .webm:
            return Holdings(video: ["vp8", "vp9", "av1"], audio: ["opus", "vorbis"], subtitles: ["webvtt"],
                            description: "VP8, VP9 or AV1 video, Opus or Vorbis audio and WebVTT subtitles")
        case .flac: return Holdings(video: [], audio: ["flac"], subtitles: [], description: "FLAC audio")
        case .opus: return Holdings(video: [], audio: ["opus"], subtitles: [], description: "Opus audio")
        // The Ogg mappings FFmpeg's Ogg writer has for sound (its Theora and VP8 video are not
        // written here: an Ogg file is audio to the players that open one).
        case .ogg: return Holdings(video: [], audio: ["opus", "vorbis", "flac"], subtitles: [], description: "Opus, Vorbis or FLAC audio")
        case .wav:
            return Holdings(video: [], audio: ["pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le", "pcm_f32le", "pcm_f64le"], subtitles: [],
                            description: "PCM audio")
        }
    }

    /// The codec a video track is encoded in where the recipe names none (nil: the codec
    /// table's default), and why.
    public var defaultVideoCodec: (codec: VideoCodec, why: String)? {
        self == .webm ? (.vp9, "a WebM file holds VP8, VP9 or AV1 video: VP9, which every browser that plays WebM plays, made faster than AV1") : nil
    }

    /// The codec an audio track is encoded in where the recipe names none (nil: the codec
    /// table's default), and why.
    public var defaultAudioCodec: (codec: AudioCodec, why: String)? {
        switch self {
        case .webm: return (.opus, "a WebM file holds Opus or Vorbis audio: Opus, which sounds better than Vorbis at every bit rate")
        case .opus: return (.opus, "an Ogg Opus file holds Opus")
        case .ogg: return (.vorbis, "an Ogg file holds Opus, Vorbis or FLAC audio: Vorbis, which every player that opens .ogg files plays (.opus names an Ogg Opus file)")
        case .flac: return (.flac, "a FLAC file holds FLAC")
        case .wav: return (.pcm, "a WAV file holds PCM")
        default: return nil
        }
    }

    /// The text subtitle format it holds (what other text subtitles are converted to); nil:
    /// it holds no subtitles.
    public var textSubtitleCodec: String? {
        switch self {
        case .mp4, .mov, .m4a: return "mov_text"
        case .mkv: return "subrip"
        case .webm: return "webvtt"
        case .flac, .opus, .ogg, .wav: return nil
        }
    }
}

/// What a container holds, by kind of track: FFmpeg's stream codec names (nil: any its muxer
/// takes; empty: none of that kind).
public struct Holdings: Sendable {
    public let video: [String]?
    public let audio: [String]?
    public let subtitles: [String]?
    /// Codecs it does not hold although its muxer knows them (or writes them), each with why.
    public var refused: [String: String] = [:]
    /// The codecs it holds, as a message says them (nil: it holds whatever its muxer takes).
    public var description: String? = nil

    public init(video: [String]?, audio: [String]?, subtitles: [String]?, refused: [String: String] = [:], description: String? = nil) {
        self.video = video; self.audio = audio; self.subtitles = subtitles; self.refused = refused; self.description = description
    }

    /// Holds some track of `kind` (`video`, `audio`, `subtitle`).
    public func holdsAny(_ kind: String) -> Bool { list(kind).map { !$0.isEmpty } ?? true }

    /// Holds a track of `kind` in `codec` (as far as this table says; the muxer has the last word).
    public func holds(_ codec: String, kind: String) -> Bool { refused[codec] == nil && (list(kind)?.contains(codec) ?? true) }

    /// Names `codec` among the codecs it holds (of any kind): a list, not "any its muxer takes".
    public func names(_ codec: String) -> Bool {
        refused[codec] == nil && [video, audio, subtitles].contains { $0?.contains(codec) == true }
    }

    /// The kinds of track it holds, as a message says them: `audio only`, `video, audio and
    /// subtitle tracks only`.
    public var kindsText: String {
        let kinds = ["video", "audio", "subtitle"].filter(holdsAny)
        return kinds.count == 1 ? "\(kinds[0]) only" : kinds.dropLast().joined(separator: ", ") + " and \(kinds[kinds.count - 1]) tracks only"
    }

    private func list(_ kind: String) -> [String]? {
        switch kind {
        case "video": return video
        case "audio": return audio
        case "subtitle": return subtitles
        // Data and other tracks: a container that lists its codecs holds none.
        default: return description == nil ? nil : []
        }
    }
}
