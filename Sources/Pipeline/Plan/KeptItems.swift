import Foundation
import Recipe

/// What of a source, beside its tracks, the output keeps: the file's metadata, its chapters and
/// its cover art, each in the form the output container holds it.
public struct KeptItems: Sendable {
    /// The file's metadata, under the names the output's writer knows.
    public var metadata: [String: String] = [:]
    /// MP4/MOV: the metadata is written as QuickTime keys (`mdta`, FFmpeg's `use_metadata_tags`),
    /// which hold any key, instead of iTunes-style atoms, which hold a fixed set (and cover art).
    public var quickTimeKeys = false
    /// On the output's timeline (0 = the start of the time range).
    public var chapters: [Chapter] = []
    public var pictures: [AttachedPicture] = []
    /// Matroska only: the source's other attachments (fonts, images), as they are.
    public var attachments: [Attachment] = []
    /// The recipe's `metadata: keep:` (nil: no `metadata:`, everything kept as the container holds it).
    public var policy: MetadataSpec.Keep?
    /// The keys of `metadata` the recipe set (the rest are the source's).
    public var recipeKeys: Set<String> = []

    public init(metadata: [String: String] = [:], quickTimeKeys: Bool = false, chapters: [Chapter] = [], pictures: [AttachedPicture] = [],
                attachments: [Attachment] = []) {
        self.metadata = metadata; self.quickTimeKeys = quickTimeKeys; self.chapters = chapters; self.pictures = pictures
        self.attachments = attachments
    }
}

/// Decides what the output keeps of a source's metadata, chapters, cover art and tracks, and
/// words a notice for everything it cannot keep: nothing a user cares about disappears silently.
enum Keeping {
    /// Keys that describe the source's muxer, not the media: the output's writer sets its own.
    static let muxerKeys = MetadataSpec.writerKeys

    /// What FFmpeg's MP4 writer stores as iTunes-style atoms (`ilst`), each with its atom, plus
    /// `location` (written as a 3GPP `loci` box) and `creation_time` (the movie header).
    static let iTunesAtoms: [String: String] = [
        "title": "©nam", "artist": "©ART", "album_artist": "aART", "composer": "©wrt", "album": "©alb", "date": "©day",
        "encoding_tool": "©too", "comment": "©cmt", "genre": "©gen", "copyright": "cprt", "grouping": "©grp",
        "lyrics": "©lyr", "description": "desc", "synopsis": "ldes", "show": "tvsh", "episode_id": "tven",
        "network": "tvnn", "keywords": "keyw", "episode_sort": "tves", "season_number": "tvsn", "media_type": "stik",
        "hd_video": "hdvd", "gapless_playback": "pgap", "compilation": "cpil", "track": "trkn", "disc": "disk",
    ]
    static let iTunesKeys = Set(iTunesAtoms.keys).union(["location", "creation_time"])

    /// QuickTime keys (as iPhones write them) and the MP4 (iTunes-style) name of the same item.
    static let quickTimeToMP4: [String: String] = [
        "com.apple.quicktime.title": "title", "com.apple.quicktime.displayname": "title",
        "com.apple.quicktime.artist": "artist", "com.apple.quicktime.album": "album",
        "com.apple.quicktime.comment": "comment", "com.apple.quicktime.description": "description",
        "com.apple.quicktime.copyright": "copyright", "com.apple.quicktime.genre": "genre",
        "com.apple.quicktime.keywords": "keywords", "com.apple.quicktime.creationdate": "date",
        "com.apple.quicktime.location.ISO6709": "location",
    ]

    /// The file's metadata a WAV file holds, each with the RIFF INFO item FFmpeg writes it as.
    static let riffInfoTags = ["artist": "IART", "comment": "ICMT", "copyright": "ICOP", "date": "ICRD", "genre": "IGNR",
                               "language": "ILNG", "title": "INAM", "album": "IPRD", "track": "IPRT"]
    static let riffInfoKeys = Set(riffInfoTags.keys)

    /// Image codecs each container keeps as cover art.
    static func holdsPicture(_ codec: String, in format: ContainerFormat) -> Bool {
        switch format {
        case .mp4, .m4a: return ["mjpeg", "png", "bmp"].contains(codec)
        case .mkv: return mkvMimeType(codec) != nil
        // A METADATA_BLOCK_PICTURE: FFmpeg's FLAC writer names these types (it has no GIF writer
        // and no MIME type for WebP).
        case .flac: return ["mjpeg", "png", "bmp", "tiff"].contains(codec)
        case .mov: return false  // FFmpeg's QuickTime writer stores no cover art
        // FFmpeg 5.1's Ogg writer refuses a picture stream ("Unsupported codec id").
        case .webm, .opus, .ogg, .wav: return false
        }
    }

    static func mkvMimeType(_ codec: String) -> String? {
        ["mjpeg": "image/jpeg", "png": "image/png", "bmp": "image/bmp", "gif": "image/gif", "webp": "image/webp", "tiff": "image/tiff"][codec]
    }

    /// `spec`: the recipe's `metadata:` (what is kept of the source's), `extra` the items it sets.
    static func plan(_ asset: Asset, format: ContainerFormat, range: TimeRange, lanes: [LanePlan],
                     extra: [String: String], spec: MetadataSpec? = nil) -> (KeptItems, [PlanNotice]) {
        var kept = KeptItems()
        kept.policy = spec?.keep
        kept.recipeKeys = Set(extra.keys)
        var notices: [PlanNotice] = []

        // Cover art.
        for p in asset.pictures {
            if holdsPicture(p.codec, in: format) { kept.pictures.append(p); continue }
            let why: String
            switch format {
            case .mov: why = "MOV files as FFmpeg writes them hold no cover art (.mp4, .m4a and .mkv keep it)"
            case .mp4, .m4a: why = "\(format.rawValue.uppercased()) files hold cover art as JPEG, PNG or BMP only"
            case .mkv: why = "Matroska files hold image attachments as JPEG, PNG, BMP, GIF, WebP or TIFF only"
            case .webm: why = "WebM files hold no cover art (.mkv keeps it)"
            case .flac: why = "FLAC files hold cover art as JPEG, PNG, BMP or TIFF only"
            case .opus, .ogg, .wav: why = "reencode writes no cover art into \(format.displayName) files (.flac, .m4a and .mkv keep it)"
            }
            notices.append(PlanNotice(.dropped, "cover-art", track: p.track, "cover art (\(p.summary)) is dropped: \(why)"))
        }

        // Other attachments (fonts an ASS subtitle track is drawn with, images): files only
        // Matroska holds.
        for a in asset.attachments {
            if format.holdsAttachments { kept.attachments.append(a); continue }
            notices.append(PlanNotice(.dropped, "attachment", track: a.track, "the attachment \(a.summary) is dropped: \(format.displayName) files hold no attachments (.mkv keeps them)"))
        }

        // Metadata.
        var source: [String: String] = [:]
        for (key, value) in asset.metadata where !muxerKeys.contains(canonical(key)) { source[canonical(key)] = value }
        // FFmpeg reads a localised item twice, as `location` and `location-eng`: one is the item.
        for key in source.keys {
            if let dash = key.lastIndex(of: "-"), key.distance(from: dash, to: key.endIndex) == 4,
               source[String(key[..<dash])] == source[key] {
                source[key] = nil
            }
        }
        source = MetadataKeeping.kept(source, by: spec)
        source.merge(extra) { _, new in new }
        switch format {
        case .mkv, .webm, .flac, .opus, .ogg:
            // Matroska tags and Vorbis comments hold any key.
            kept.metadata = source
        case .wav:
            kept.metadata = source.filter { riffInfoKeys.contains($0.key) }
            let unheld = source.keys.filter { !riffInfoKeys.contains($0) }.sorted()
            if !unheld.isEmpty {
                notices.append(PlanNotice(.dropped, "metadata", "metadata \(unheld.joined(separator: ", ")) is dropped: WAV files hold only \(riffInfoKeys.sorted().joined(separator: ", ")) (RIFF INFO)"))
            }
        case .mov:
            kept.metadata = withQuickTimeKeys(source)
            kept.quickTimeKeys = true
        case .mp4, .m4a:
            var mapped = source
            for (qt, mp4) in quickTimeToMP4 where mapped[mp4] == nil {
                if let v = source[qt] { mapped[mp4] = v }
            }
            let covered = Set(quickTimeToMP4.filter { mapped[$0.value] != nil }.keys)
            let unheld = source.keys.filter { !iTunesKeys.contains($0) && !covered.contains($0) }.sorted()
            if unheld.isEmpty {
                kept.metadata = mapped.filter { !quickTimeToMP4.keys.contains($0.key) }
            } else if kept.pictures.isEmpty {
                // Only QuickTime keys hold these in an MP4: every key is kept as it is, and the
                // location also as the 3GPP box players outside Apple's read.
                kept.metadata = withQuickTimeKeys(source)
                kept.metadata["location"] = mapped["location"]
                kept.quickTimeKeys = true
            } else {
                kept.metadata = mapped.filter { iTunesKeys.contains($0.key) }
                notices.append(PlanNotice(.dropped, "metadata", "metadata \(unheld.joined(separator: ", ")) is dropped: \(format.rawValue.uppercased()) files hold these only as QuickTime keys, which cannot be written beside cover art"))
            }
        }

        // Chapters, moved and cut with the time range.
        let (chapters, chapterNotices) = keptChapters(asset.chapters, range: range)
        notices += chapterNotices
        if format.holdsChapters {
            kept.chapters = chapters
        } else if !chapters.isEmpty {
            notices.append(PlanNotice(.dropped, "chapters", "\(chapters.count) chapter\(chapters.count == 1 ? " is" : "s are") dropped: reencode writes no chapters into \(format.displayName) files (.m4a and .mkv keep them)"))
        }

        // Track titles: MP4 and QuickTime files name a track by its handler.
        if format.isISOMedia {
            for lane in lanes {
                if let title = lane.track.tag("title"), let handler = lane.track.tag("handler_name"), handler != title, !isWriterDefault(handler: handler) {
                    notices.append(PlanNotice(.dropped, "track-title", track: lane.track.index, "the track title \"\(title)\" is dropped: \(format.rawValue.uppercased()) files name a track by its handler name, which is kept (\"\(handler)\")"))
                }
            }
        }

        // FLAC, Ogg Opus and WAV state no title or language of a track.
        if !format.isISOMedia && !format.tagsTracks {
            for lane in lanes {
                for (tag, what) in [("title", "track title"), ("language", "track language")] {
                    guard let value = lane.track.tag(tag), value != "und" else { continue }
                    notices.append(PlanNotice(.dropped, what.replacingOccurrences(of: " ", with: "-"), track: lane.track.index, "the \(what) '\(value)' is dropped: \(format.displayName) files state none"))
                }
            }
        }

        if format == .mov {
            for lane in lanes {
                if let lang = lane.track.tag("language"), lang != "und", quickTimeLanguage(lang) == nil {
                    notices.append(PlanNotice(.dropped, "track-language", track: lane.track.index, "the track language '\(lang)' is dropped: MOV files state only the languages of QuickTime's list (.mp4 and .mkv keep it)"))
                }
            }
        }

        // Tracks no writer input takes.
        for t in unwritten(asset, reading: Set(lanes.map(\.track.index))) {
            notices.append(PlanNotice(.dropped, "track", track: t.index, "\(describe(t)) is not written: no writer input takes it"))
        }
        return (kept, notices)
    }

    /// Items written as QuickTime keys: each one QuickTime names is also written under the key
    /// Apple's software reads (`title` as `com.apple.quicktime.title`, an MP4's place as
    /// `…location.ISO6709`), where the file has no such key already.
    static func withQuickTimeKeys(_ m: [String: String]) -> [String: String] {
        var out = m
        for (qt, generic) in quickTimeToMP4 where qt != "com.apple.quicktime.displayname" && out[qt] == nil {
            if let v = m[generic] { out[qt] = v }
        }
        return out
    }

    /// The tracks of `asset` a note should name as not written: those not `read`, but for cover
    /// art, chapter text and attachments (kept or dropped by their own rules).
    static func unwritten(_ asset: Asset, reading read: Set<Int>) -> [Track] {
        asset.tracks.filter { !read.contains($0.index) && !$0.isAttachedPicture && !$0.isChapterText && $0.mediaType != .attachment }
    }

    /// The languages a QuickTime file can state, spelt as FFmpeg's QuickTime writer looks them
    /// up (the old Macintosh language codes; a language not in it is written as unknown).
    static let quickTimeLanguages: Set<String> = [
        "eng", "fra", "ger", "ita", "dut", "sve", "spa", "dan", "por", "nor", "heb", "jpn", "ara", "fin", "gre",
        "ice", "mlt", "tur", "chi", "urd", "hin", "tha", "kor", "lit", "pol", "hun", "est", "lav", "rus", "iri",
        "alb", "ron", "ces", "slk", "slv", "yid", "mac", "bul", "ukr", "bel", "uzb", "kaz", "aze", "arm", "geo",
        "mol", "kir", "tgk", "tuk", "mon", "pus", "kur", "kas", "snd", "tib", "nep", "san", "mar", "ben", "asm",
        "guj", "ori", "mal", "kan", "tam", "tel", "bur", "khm", "lao", "vie", "ind", "tgl", "may", "amh", "tir",
        "orm", "som", "swa", "run", "mlg", "epo", "wel", "baq", "cat", "lat", "que", "grn", "aym", "tat", "uig",
        "dzo", "jav",
    ]

    /// Other ISO 639-2 spellings of languages in that list (terminology or bibliographic codes).
    static let quickTimeSpelling = [
        "fre": "fra", "deu": "ger", "nld": "dut", "swe": "sve", "ell": "gre", "isl": "ice", "zho": "chi",
        "rum": "ron", "cze": "ces", "slo": "slk", "sqi": "alb", "mkd": "mac", "hye": "arm", "kat": "geo",
        "bod": "tib", "mya": "bur", "msa": "may", "cym": "wel", "eus": "baq", "gle": "iri",
    ]

    /// The language as a QuickTime file can state it, or nil when it cannot.
    static func quickTimeLanguage(_ code: String) -> String? {
        let c = quickTimeSpelling[code] ?? code
        return quickTimeLanguages.contains(c) ? c : nil
    }

    /// One spelling per language (ISO 639-2 terminology codes): QuickTime files state `ger`
    /// where MP4 files state `deu`.
    static func terminology(_ code: String) -> String {
        let b = ["ger": "deu", "dut": "nld", "sve": "swe", "gre": "ell", "ice": "isl", "chi": "zho", "rum": "ron",
                 "cze": "ces", "slo": "slk", "alb": "sqi", "mac": "mkd", "arm": "hye", "geo": "kat", "tib": "bod",
                 "bur": "mya", "may": "msa", "wel": "cym", "baq": "eus", "fre": "fra", "iri": "gle"]
        return b[code] ?? code
    }

    /// Matroska writes tag names in capitals (`ARTIST`, `COM.APPLE.QUICKTIME.MAKE`): a name other
    /// containers know is given back its usual spelling, so that it maps like any other.
    static func canonical(_ key: String) -> String {
        let lower = key.lowercased()
        if iTunesKeys.contains(lower) || muxerKeys.contains(lower) { return lower }
        return quickTimeToMP4.keys.first { $0.lowercased() == lower } ?? (lower.hasPrefix("com.apple.quicktime.") || lower.hasPrefix("com.android.") ? lower : key)
    }

    /// The chapters an output keeps (moved and cut with the time range), and a notice for those
    /// outside it and for those whose times no output can state (a hostile file's).
    static func keptChapters(_ all: [Chapter], range: TimeRange) -> ([Chapter], [PlanNotice]) {
        var notices: [PlanNotice] = []
        func names(_ cs: [Chapter]) -> String { cs.map { $0.title.map { "\"\($0)\"" } ?? "untitled" }.joined(separator: ", ") }
        let outside = all.filter { $0.clipped(to: range) == nil }
        if !outside.isEmpty {
            notices.append(PlanNotice(.dropped, "chapters", "\(outside.count) of \(all.count) chapters lie outside the time range: \(names(outside))"))
        }
        let inRange = all.compactMap { $0.clipped(to: range) }
        let tb = OutputContainer.chapterTimeBase
        let kept = inRange.filter { (try? $0.start.ts(in: tb)) != nil && (try? $0.end.ts(in: tb)) != nil }
        if kept.count < inRange.count {
            let far = inRange.filter { !kept.contains($0) }
            notices.append(PlanNotice(.dropped, "chapters", "\(far.count) of \(all.count) chapters have times no output can state: \(names(far))"))
        }
        return (kept, notices)
    }

    /// `data gpmd "GoPro MET" (eng)`: type, codec, name and language, as a user can find it.
    static func describe(_ t: Track) -> String {
        let f = t.format
        let known = !["unknown", "none", "bin_data"].contains(f.codec)
        let codec = known ? f.codec : f.codecTag
        let type = f.codecTag == "tmcd" ? "timecode" : (t.mediaType == .unknown ? "track of unknown type" : t.mediaType.rawValue)
        var s = type + (codec.map { " " + $0 } ?? "")
        // Some muxers leave a length byte before a handler name (`\u{0B}GoPro MET`).
        let name = (t.tag("title") ?? t.tag("handler_name") ?? "")
            .unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        let shown = String(String.UnicodeScalarView(name)).trimmingCharacters(in: .whitespaces)
        if !shown.isEmpty { s += " \"\(shown)\"" }
        if let lang = t.language { s += " (\(lang))" }
        return s
    }

    /// A track's tags as an output container holds them: MP4 and QuickTime files keep no track
    /// title, but name a track by its handler, so a title becomes the handler name when the
    /// source has none.
    static func streamMetadata(_ m: [String: String], format: ContainerFormat) -> [String: String] {
        // One set of tags, the file's: a track's title would replace the file's (Ogg Opus).
        if !format.isISOMedia && !format.tagsTracks { return [:] }
        var out = m
        // A QuickTime file states a language by its old Macintosh code, which FFmpeg finds by
        // one ISO 639-2 spelling: `deu` would be lost, `ger` is kept.
        if format == .mov, let lang = m["language"] { out["language"] = quickTimeLanguage(lang) }
        if format.isISOMedia, let title = m["title"] {
            out["title"] = nil
            if out["handler_name"].map(isWriterDefault) ?? true { out["handler_name"] = title }
        }
        return out
    }

    /// The handler names writers give every track of a type (FFmpeg's, Android's, Apple's): they
    /// name the writer, not the track, and give way to a title the source states.
    static func isWriterDefault(handler: String) -> Bool {
        ["VideoHandler", "SoundHandler", "SubtitleHandler", "DataHandler", "TimeCodeHandler", "VideoHandle", "SoundHandle",
         "Core Media Video", "Core Media Audio", "Core Media Text", "Core Media Metadata"].contains(handler)
    }
}
