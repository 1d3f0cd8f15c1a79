import Recipe

public enum MediaType: String, Sendable, Hashable {
    case video, audio, subtitle, data, attachment, unknown
}

/// A ratio of two whole numbers (pixel aspect ratio).
public struct Ratio: Sendable, Hashable, CustomStringConvertible {
    public let num: Int
    public let den: Int
    public init(_ num: Int, _ den: Int) { self.num = num; self.den = den }
    public static let square = Ratio(1, 1)
    public var isSquare: Bool { num == den }
    public var description: String { "\(num):\(den)" }
}

/// What the samples of one track are (CMFormatDescription in our words): a plain value, so the
/// settings assistant can be tested on tables of made-up sources.
public struct FormatDescription: Sendable, Hashable {
    public var mediaType: MediaType
    /// FFmpeg's short codec name: h264, hevc, aac, …
    public var codec: String
    public var profile: String?
    public var bitRate: Int?
    /// The container's four-character code (`tmcd`, `gpmd`), where it is printable: what names
    /// a data track whose codec FFmpeg does not know.
    public var codecTag: String?

    // Video
    public var width: Int = 0
    public var height: Int = 0
    public var pixelAspect: Ratio = .square
    /// Degrees the picture is turned clockwise for display (0, 90, 180, 270), from the display matrix.
    public var rotation: Int = 0
    public var pixelFormat: String?
    /// Bits per sample: a picture's luma, or integer sound samples' (nil for float sound).
    public var bitDepth: Int?
    /// The pictures carry an alpha (transparency) plane beside their colour (`yuva444p12le`, `rgba`).
    public var hasAlpha = false
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    public var colorRange: String?
    /// Where the chroma samples of a 4:2:0 or 4:2:2 picture sit against the luma samples
    /// (FFmpeg's names: `left` as MPEG-2 and H.264 assume, `topleft` as BT.2020 wants, `center`
    /// as JPEG); nil: not stated.
    public var chromaLocation: String?
    /// Progressive or interlaced (and which field first), as the stream says; nil: not stated.
    public var fieldOrder: FieldOrder?
    /// Mastering display, content light level, HDR10+, Dolby Vision.
    public var hdr = HDRItems()
    public var averageFrameRate: FrameRate?
    /// Frames do not come at one steady rate: the average rate is not a whole or 1001-family
    /// rate, or the stream's base rate (FFmpeg's r_frame_rate) disagrees with it. Phones in
    /// low light, slow-motion clips, motion photos, screen recordings.
    public var isVariableFrameRate = false
    /// The rate a variable-rate source's frames mostly come at (from its median frame duration;
    /// set by the planner, which reads the packets); nil: not measured.
    public var nominalFrameRate: FrameRate?
    /// The shortest frame duration (1 / the highest rate timestamps need).
    public var minFrameDuration: MediaTime?
    public var frameCount: Int?

    // Audio
    public var sampleRate: Int = 0
    public var channels: Int = 0
    public var channelLayout: String?
    public var sampleFormat: String?

    public init(mediaType: MediaType, codec: String) {
        self.mediaType = mediaType
        self.codec = codec
    }

    public var averageFrameDuration: MediaTime? { averageFrameRate?.frameDuration }

    /// The stream's base rate (1 / `minFrameDuration`) when it is one a camera could record at
    /// (at most 240 fps); a container's timescale often stands there instead.
    public var baseFrameRate: FrameRate? {
        guard let d = minFrameDuration, let r = FrameRate(frameDuration: d), r.framesPerSecond <= 240 else { return nil }
        return r
    }

    /// The size people see: pixel aspect applied, then rotation.
    public var displaySize: (width: Int, height: Int) {
        var w = width
        if !pixelAspect.isSquare && pixelAspect.den > 0 && pixelAspect.num > 0 {
            w = Int((Int64(width) * Int64(pixelAspect.num) + Int64(pixelAspect.den) / 2) / Int64(pixelAspect.den))
        }
        return rotation % 180 == 90 ? (height, w) : (w, height)
    }

    public var dynamicRange: DynamicRange { DynamicRange(transfer: colorTransfer) }

    /// "10-bit" matters for HEVC archives.
    public var isHighBitDepth: Bool { (bitDepth ?? 8) > 8 }
}

/// One track of an asset.
public struct Track: Sendable, Hashable {
    /// The stream index in the file (`#3` in recipes).
    public let index: Int
    /// The position among tracks of the same media type (`video:1`); nil for cover art, which
    /// only its stream index names.
    public let ordinal: Int?
    public let format: FormatDescription
    public let timeBase: MediaTime
    public let startTime: MediaTime
    public let duration: MediaTime
    public let language: String?
    public let metadata: [String: String]
    /// Attached pictures (cover art) are video streams that are not video tracks to convert.
    public let isAttachedPicture: Bool
    /// The text track an MP4/MOV keeps its chapters in: kept as chapters, not as a track.
    public internal(set) var isChapterText = false

    public var mediaType: MediaType { format.mediaType }

    /// The track tags an output track keeps (the rest describe the source's muxer, not the media),
    /// under their usual names: Matroska states tags in capitals (`HANDLER_NAME`).
    var outputMetadata: [String: String] {
        var out: [String: String] = [:]
        for key in ["language", "title", "handler_name", "creation_time"] { out[key] = tag(key) }
        return out
    }

    /// The tag `name` (lower case), however the source's container spells it.
    func tag(_ name: String) -> String? {
        metadata[name] ?? metadata.first { $0.key.lowercased() == name }?.value
    }
    public var timeRange: TimeRange { TimeRange(start: startTime, duration: duration) }

    /// The same track with its length known.
    func lasting(_ length: MediaTime) -> Track {
        var t = Track(index: index, ordinal: ordinal, format: format, timeBase: timeBase, startTime: startTime, duration: length,
                      language: language, metadata: metadata, isAttachedPicture: isAttachedPicture)
        t.isChapterText = isChapterText
        return t
    }
}
