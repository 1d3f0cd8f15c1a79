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
        path = input.path
        probed = ProbedInput(input)
        formatName = input.formatName
        formatLongName = input.formatLongName
        // A Matroska video track whose first pictures are untimed starts before FFmpeg says.
        let leads = UntimedLead.starts(of: input)
        startTime = leads.values.reduce(input.startTime) { MediaTime.min($0, $1) }
        bitRate = input.bitRate
        metadata = input.metadata
        chapters = input.chapters
        var pictures: [AttachedPicture] = []
        var attachments: [Attachment] = []
        var ordinals: [MediaType: Int] = [:]
        var tracks: [Track] = []
        for i in 0..<input.streamCount {
            let st = input.stream(i)
            var format = st.formatDescription
            if format.mediaType == .video {
                format.hdr = st.hdrItems(path: input.path, range: format.dynamicRange)
                format.fieldOrder = format.fieldOrder ?? st.probedFieldOrder(path: input.path)
            }
            let isAttachedPicture = st.isAttachedPicture
            // `video:1` counts pictures that play: cover art has no ordinal (only `#N` names it).
            var ordinal: Int? = nil
            if !isAttachedPicture {
                ordinal = ordinals[format.mediaType, default: 0]
                ordinals[format.mediaType] = ordinal! + 1
            }
            // Unstated length (Matroska, FLV): the file's, once its end is known.
            let meta = st.metadata
            if let p = st.attachedPicture { pictures.append(p) }
            if let a = st.attachment { attachments.append(a) }
            tracks.append(Track(index: i, ordinal: ordinal, format: format, timeBase: st.timeBase.time,
                                startTime: leads[i] ?? input.startTime(of: st), duration: UntimedLead.length(st, from: leads[i], in: input), language: meta["language"].flatMap { $0 == "und" ? nil : Keeping.terminology($0) },
                                metadata: meta, isAttachedPicture: isAttachedPicture))
            // The MP4 demuxer hides the text track that holds a file's chapters (it reads them
            // as chapters): discarded by the demuxer itself, it is not media of its own.
            tracks[tracks.count - 1].isChapterText = st.isSkipped && !chapters.isEmpty
        }
        let stated = input.statedDuration
        duration = Self.length(start: startTime, stated: stated > .zero ? stated : .invalid, tracks: tracks)
        statedEnd = input.durationFromStreams && stated > .zero && duration.isNumeric
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
