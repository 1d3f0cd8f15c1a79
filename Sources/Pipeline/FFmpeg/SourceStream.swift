import CFFmpeg
import Recipe

/// One stream of an open input, as the reader and the probe see it: a view into the container,
/// valid while the container is open (the container owns the AVStream; nothing here frees it).
/// Two are equal when they are the same stream of the same open container.
struct SourceStream: Equatable {
    let pointer: UnsafeMutablePointer<AVStream>

    /// The stream index FFmpeg gives it.
    var index: Int { Int(pointer.pointee.index) }
    var timeBase: TimeBase { TimeBase(pointer.pointee.time_base) }
    var mediaType: MediaType { MediaType(pointer.pointee.codecpar.pointee.codec_type) }
    /// FFmpeg's name of its codec (`h264`, `flac`).
    var codecName: String { String(cString: avcodec_get_name(pointer.pointee.codecpar.pointee.codec_id)) }
    /// Cover art: one picture, stored as the stream's one packet.
    var isAttachedPicture: Bool { pointer.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 }
    /// A moving picture or sound, not cover art.
    var isPictureOrSound: Bool { (mediaType == .video || mediaType == .audio) && !isAttachedPicture }

    /// Whether the demuxer drops its packets (AVDISCARD_ALL) instead of handing them out.
    var isSkipped: Bool {
        get { pointer.pointee.discard == AVDISCARD_ALL }
        nonmutating set { pointer.pointee.discard = newValue ? AVDISCARD_ALL : AVDISCARD_DEFAULT }
    }

    /// Where the stream starts; zero where the file states nothing.
    var startTime: MediaTime {
        pointer.pointee.start_time == FFmpeg.noPTS ? .zero : MediaTime(ts: pointer.pointee.start_time, timeBase: timeBase)
    }
    /// The length the file states; invalid where it states none (Matroska, FLV).
    var statedDuration: MediaTime {
        pointer.pointee.duration == FFmpeg.noPTS ? .invalid : MediaTime(ts: pointer.pointee.duration, timeBase: timeBase)
    }
    var metadata: [String: String] { FFmpeg.dictionary(pointer.pointee.metadata) }

    /// An MPEG-1 or MPEG-2 video stream (a program stream's pictures show where it ends).
    var isMPEGVideo: Bool { [AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO].contains(pointer.pointee.codecpar.pointee.codec_id) }
    /// The picture height the stream states.
    var height: Int { Int(pointer.pointee.codecpar.pointee.height) }

    /// The stream's HDR items (its own side data, else the first picture's), for a video stream.
    func hdrItems(path: String, range: DynamicRange) -> HDRItems { HDRProbe.items(pointer, path: path, range: range) }
    /// The field order read from the first pictures, where the stream states none.
    func probedFieldOrder(path: String) -> FieldOrder? { FieldOrderProbe.order(pointer, path: path) }
}

extension MediaType {
    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }
}

extension InputContainer {
    /// The demuxer reads `stream` only: every other stream's packets are dropped.
    func readOnly(stream: Int) {
        for i in 0..<streamCount where i != stream { self.stream(i).isSkipped = true }
    }

    /// FFmpeg's demuxer name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, …).
    var formatName: String { String(cString: context.pointee.iformat.pointee.name) }
    var formatLongName: String { context.pointee.iformat.pointee.long_name.map { String(cString: $0) } ?? formatName }
    /// Where the file starts, exact in the time base of the stream that starts it (`exactStart`);
    /// zero where it states nothing. Where FFmpeg's start is a Matroska sound track's first
    /// block, the sound's start (`soundStartLead`).
    var startTime: MediaTime {
        exactStart.map { $0 + soundStartLead } ?? .zero
    }
    /// The length the container states (or FFmpeg estimated); invalid where there is none.
    var statedDuration: MediaTime {
        context.pointee.duration != FFmpeg.noPTS ? MediaTime(ts: context.pointee.duration, timeBase: .microseconds) : .invalid
    }
    /// Whether that length was read from the streams' own stated lengths (not estimated from
    /// timestamps or the bit rate).
    var durationFromStreams: Bool { context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_STREAM }
    var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }
    var metadata: [String: String] { FFmpeg.dictionary(context.pointee.metadata) }
}

extension FFmpeg {
    /// Every entry of an FFmpeg dictionary.
    static func dictionary(_ d: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(d, "", entry, AV_DICT_IGNORE_SUFFIX) {
            out[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
            entry = e
        }
        return out
    }
}
