import CFFmpeg
import Recipe

/// A media file, probed: its duration, tracks and metadata. Loading is explicit and fails with a
/// typed error (AVURLAsset with its keys loaded). The probed file stays open for the first reader
/// of the asset (`ProbedInput`), and closes when that reader is done or the asset is dropped.
public struct Asset: Sendable {
    public let path: String
    /// FFmpeg's demuxer name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, …).
    public let formatName: String
    public let formatLongName: String
    public let startTime: MediaTime
    public let duration: MediaTime
    /// Where the media ends as the container's header states it (Matroska's and WebM's
    /// Duration, FLV's onMetaData, FLAC's sample count, an MP3's frame count), for a reader to
    /// tell a file cut between two samples from a whole one (`StatedLength`); nil where FFmpeg
    /// estimated the length from timestamps (MPEG-TS, MPEG-PS) or the bit rate, and for ISO
    /// files (MP4, MOV, M4A), whose index betrays a cut better.
    let statedEnd: MediaTime?
    public let bitRate: Int?
    public let tracks: [Track]
    public let metadata: [String: String]
    /// Chapter marks, on the file's timeline, in time order.
    public let chapters: [Chapter]
    /// Cover art (attached pictures), in stream order.
    public let pictures: [AttachedPicture]
    /// Files a Matroska source carries beside its tracks (fonts for its subtitles, images FFmpeg
    /// does not take for cover art), in stream order.
    public let attachments: [Attachment]
    /// The demuxer this asset was probed with, for the first reader to take over.
    let probed: ProbedInput

    public static func load(_ path: String) throws(MediaError) -> Asset {
        let input = try InputContainer(path: path)
        return Asset(input)
    }

    init(_ input: InputContainer) {
        let ctx = input.context.pointee
        path = input.path
        probed = ProbedInput(input)
        formatName = String(cString: ctx.iformat.pointee.name)
        formatLongName = ctx.iformat.pointee.long_name.map { String(cString: $0) } ?? formatName
        let avTimeBase = AVRational(num: 1, den: AV_TIME_BASE)
        startTime = ctx.start_time == FFmpeg.noPTS ? .zero : MediaTime(ts: ctx.start_time, timeBase: avTimeBase)
        bitRate = ctx.bit_rate > 0 ? Int(ctx.bit_rate) : nil
        metadata = dictionary(ctx.metadata)
        chapters = Self.readChapters(input.context)
        var pictures: [AttachedPicture] = []
        var attachments: [Attachment] = []
        var ordinals: [MediaType: Int] = [:]
        var tracks: [Track] = []
        for i in 0..<input.streamCount {
            let st = input.stream(i)
            var format = describe(st)
            if format.mediaType == .video {
                format.hdr = HDRProbe.items(st, path: input.path, range: format.dynamicRange)
                format.fieldOrder = format.fieldOrder ?? FieldOrderProbe.order(st, path: input.path)
            }
            let isAttachedPicture = st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
            // `video:1` counts pictures that play: cover art has no ordinal (only `#N` names it).
            var ordinal: Int? = nil
            if !isAttachedPicture {
                ordinal = ordinals[format.mediaType, default: 0]
                ordinals[format.mediaType] = ordinal! + 1
            }
            let tb = st.pointee.time_base
            let start = st.pointee.start_time == FFmpeg.noPTS ? .zero : MediaTime(ts: st.pointee.start_time, timeBase: tb)
            // Unstated (Matroska, FLV): the file's, once its end is known.
            let dur = st.pointee.duration == FFmpeg.noPTS ? MediaTime.invalid : MediaTime(ts: st.pointee.duration, timeBase: tb)
            let meta = dictionary(st.pointee.metadata)
            if let p = Self.readPicture(st, index: i) { pictures.append(p) }
            if let a = Self.readAttachment(st, index: i) { attachments.append(a) }
            tracks.append(Track(index: i, ordinal: ordinal, format: format, timeBase: tb.time,
                                startTime: start, duration: dur, language: meta["language"].flatMap { $0 == "und" ? nil : Keeping.terminology($0) },
                                metadata: meta, isAttachedPicture: isAttachedPicture))
            // The MP4 demuxer hides the text track that holds a file's chapters (it reads them
            // as chapters): discarded by the demuxer itself, it is not media of its own.
            tracks[tracks.count - 1].isChapterText = st.pointee.discard == AVDISCARD_ALL && !chapters.isEmpty
        }
        let stated = ctx.duration != FFmpeg.noPTS ? MediaTime(ts: ctx.duration, timeBase: avTimeBase) : .invalid
        duration = Self.length(start: startTime, stated: stated > .zero ? stated : .invalid, tracks: tracks)
        statedEnd = ctx.duration_estimation_method == AVFMT_DURATION_FROM_STREAM && stated > .zero && duration.isNumeric
            && !formatName.hasPrefix("mov,") ? startTime + duration : nil
        // A track that states no length lasts to the file's end.
        let (length, end) = (duration, startTime + duration)
        self.tracks = tracks.map { t in
            guard !t.duration.isNumeric, stated.isNumeric else { return t }
            return t.lasting(length.isNumeric && end > t.startTime ? end - t.startTime : stated)
        }
        self.pictures = pictures
        self.attachments = attachments
    }

    /// The file's length from its start to the end of its media. Where the file starts at 0,
    /// the container's stated length. Elsewhere that length is ambiguous — FFmpeg's reading is
    /// start + length, but MP4's and Matroska's are counted from their timeline's 0 (a Matroska
    /// file whose timestamps start at -0.5 s states 3.5 s and ends at 3.5 s, not 3.0 s; an MP4
    /// starting at 10 s states 14 s): so the tracks' own ends where they state them (MP4, AVI, a
    /// transport stream's timestamps), else the stated length read as an end where that lies
    /// after the start. Without any, the longest track.
    static func length(start: MediaTime, stated: MediaTime, tracks: [Track]) -> MediaTime {
        guard stated.isNumeric else { return tracks.map(\.duration).filter(\.isNumeric).max() ?? .invalid }
        if start == .zero { return stated }
        let trackEnds = tracks.filter { ($0.mediaType == .video && !$0.isAttachedPicture) || $0.mediaType == .audio }
            .compactMap { t -> MediaTime? in
                guard t.startTime.isNumeric, t.duration.isNumeric, t.duration > .zero else { return nil }
                return t.startTime + t.duration
            }
        if let end = trackEnds.max(), end > start { return end - start }
        return stated > start ? stated - start : stated
    }

    /// The track a recipe means by `video` or `audio:1`: the n-th of its type, cover art not
    /// counted. The one rule for it: the recipe compiler, the planner and `inspect` agree.
    public func track(_ type: MediaType, ordinal: Int = 0) -> Track? {
        tracks.first { $0.mediaType == type && $0.ordinal == ordinal }
    }

    /// The track a recipe means by `#3`: stream index 3.
    public func track(index: Int) -> Track? { tracks.first { $0.index == index } }

    /// Video tracks, without cover art.
    public var videoTracks: [Track] { tracks.filter { $0.mediaType == .video && !$0.isAttachedPicture } }
    public var audioTracks: [Track] { tracks.filter { $0.mediaType == .audio } }
}

func describe(_ st: UnsafeMutablePointer<AVStream>) -> FormatDescription {
    let par = st.pointee.codecpar.pointee
    let type: MediaType
    switch par.codec_type {
    case AVMEDIA_TYPE_VIDEO: type = .video
    case AVMEDIA_TYPE_AUDIO: type = .audio
    case AVMEDIA_TYPE_SUBTITLE: type = .subtitle
    case AVMEDIA_TYPE_DATA: type = .data
    case AVMEDIA_TYPE_ATTACHMENT: type = .attachment
    default: type = .unknown
    }
    var f = FormatDescription(mediaType: type, codec: String(cString: avcodec_get_name(par.codec_id)))
    if let p = avcodec_profile_name(par.codec_id, par.profile) { f.profile = String(cString: p) }
    f.bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : nil
    let tag = (0..<4).map { UInt8(truncatingIfNeeded: par.codec_tag >> (8 * $0)) }
    if tag.allSatisfy({ (0x20...0x7e).contains($0) }) { f.codecTag = String(decoding: tag, as: UTF8.self) }
    switch type {
    case .video:
        f.width = Int(par.width)
        f.height = Int(par.height)
        let sar = par.sample_aspect_ratio.num > 0 ? par.sample_aspect_ratio : st.pointee.sample_aspect_ratio
        if sar.num > 0 && sar.den > 0 {
            let g = Int(av_gcd(Int64(sar.num), Int64(sar.den)))
            f.pixelAspect = Ratio(Int(sar.num) / g, Int(sar.den) / g)
        }
        if let m = rx_stream_display_matrix(st) {
            let ccw = av_display_rotation_get(m)
            if ccw.isFinite {
                // FFmpeg reports counter-clockwise degrees; people (and players) speak clockwise.
                let cw = Int((-ccw).rounded())
                f.rotation = ((cw % 360) + 360) % 360
            }
        }
        let pix = AVPixelFormat(rawValue: par.format)
        if pix != AV_PIX_FMT_NONE, let desc = av_pix_fmt_desc_get(pix) {
            f.pixelFormat = pixelFormatName(pix)
            f.bitDepth = Int(desc.pointee.comp.0.depth)
        }
        f.colorPrimaries = colorName(av_color_primaries_name(par.color_primaries), unspecified: par.color_primaries == AVCOL_PRI_UNSPECIFIED)
        f.colorTransfer = colorName(av_color_transfer_name(par.color_trc), unspecified: par.color_trc == AVCOL_TRC_UNSPECIFIED)
        f.colorMatrix = colorName(av_color_space_name(par.color_space), unspecified: par.color_space == AVCOL_SPC_UNSPECIFIED)
        f.colorRange = colorName(av_color_range_name(par.color_range), unspecified: par.color_range == AVCOL_RANGE_UNSPECIFIED)
        f.chromaLocation = colorName(av_chroma_location_name(par.chroma_location), unspecified: par.chroma_location == AVCHROMA_LOC_UNSPECIFIED)
        f.fieldOrder = fieldOrder(par.field_order)
        let avg = st.pointee.avg_frame_rate
        if avg.num > 0 && avg.den > 0 && avg.num <= Int32.max && avg.den <= Int32.max {
            f.averageFrameRate = standardRate(near: FrameRate(frames: avg.num, seconds: avg.den))
        }
        let r = st.pointee.r_frame_rate
        if r.num > 0 && r.den > 0 { f.minFrameDuration = MediaTime(value: Int64(r.den), timescale: r.num) }
        if let a = f.averageFrameRate {
            let base = r.num > 0 && r.den > 0 ? standardRate(near: FrameRate(frames: r.num, seconds: r.den)) : a
            f.isVariableFrameRate = !a.isStandardLooking || base != a
        }
        if st.pointee.nb_frames > 0 { f.frameCount = Int(st.pointee.nb_frames) }
    case .audio:
        f.sampleRate = Int(par.sample_rate)
        f.channels = Int(par.ch_layout.nb_channels)
        var layout = par.ch_layout
        if layout.order != AV_CHANNEL_ORDER_UNSPEC {
            var buf = [CChar](repeating: 0, count: 64)
            if rx_channel_layout_describe(&layout, &buf, Int32(buf.count)) > 0 { f.channelLayout = String(cChars: buf) }
        }
        let sf = AVSampleFormat(rawValue: par.format)
        if let n = av_get_sample_fmt_name(sf) { f.sampleFormat = String(cString: n) }
        if st.pointee.nb_frames > 0 { f.frameCount = Int(st.pointee.nb_frames) }
    default:
        break
    }
    return f
}

/// The field order a stream states (its parser's or decoder's reading of the first pictures).
private func fieldOrder(_ o: AVFieldOrder) -> FieldOrder? {
    switch o {
    case AV_FIELD_PROGRESSIVE: return .progressive
    case AV_FIELD_TT: return .tt
    case AV_FIELD_BB: return .bb
    case AV_FIELD_TB: return .tb
    case AV_FIELD_BT: return .bt
    default: return nil
    }
}

private func colorName(_ p: UnsafePointer<CChar>?, unspecified: Bool) -> String? {
    guard !unspecified, let p else { return nil }
    return String(cString: p)
}

func dictionary(_ d: OpaquePointer?) -> [String: String] {
    var out: [String: String] = [:]
    var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
    while let e = av_dict_get(d, "", entry, AV_DICT_IGNORE_SUFFIX) {
        out[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
        entry = e
    }
    return out
}

extension FrameRate {
    /// A whole or 1001-family rate, as cameras write them (`standardRate(near:)` gives these).
    var isStandardLooking: Bool { seconds == 1 || seconds == 1001 }
}

/// Averages measured over a file's timestamps are often a hair off (a last frame of odd length):
/// within 0.05 % of a whole or 1001-family rate, the standard rate is what the camera meant.
func standardRate(near r: FrameRate) -> FrameRate {
    let fps = r.framesPerSecond
    let whole = fps.rounded()
    if whole >= 1, abs(fps - whole) / whole < 0.0005 { return FrameRate(frames: Int32(whole)) }
    let ntsc = (fps * 1.001).rounded()
    if ntsc >= 1, abs(fps - ntsc / 1.001) / fps < 0.0005 { return FrameRate(frames: Int32(ntsc) * 1000, seconds: 1001) }
    return r
}
