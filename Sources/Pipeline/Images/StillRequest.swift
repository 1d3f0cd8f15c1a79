import Foundation
import Recipe

/// What still images to make of a source's video (AVAssetImageGenerator's settings): at which
/// instants, how near the frame shown must be, how large, in which file format, named how.
public struct StillRequest: Sendable {
    public var source: String
    public var times: StillTimes
    public var tolerance: StillTolerance = .exact
    /// The box each still fits inside (display aspect kept, never upscaled); nil: the display size.
    public var box: (width: Int, height: Int)?
    /// The file names (`StillNames`); nil: `StillNames.defaultPattern`, beside the source.
    public var pattern: String?
    /// 1…100 (JPEG and WebP; PNG is lossless); nil: `StillRequest.defaultQuality`.
    public var quality: Int?
    /// One picture of all the stills in a grid (a contact sheet), in order from the top left,
    /// row by row (rows nil: as many as the stills fill); nil: a file per still.
    public var tiles: (columns: Int, rows: Int?)?
    /// With `tiles`: also a WebVTT file beside the sheet whose cues point at its tiles
    /// (`#xywh=`), the thumbnail track web players read for scrubbing previews.
    public var storyboard = false
    public var overwrite = false
    /// The video track (its stream index); nil: the first that plays (not cover art).
    public var track: Int?
    /// The part of the source the instants count in, from the source's start (a recipe's time
    /// range); nil: all of it.
    public var range: TimeRange?
    /// Files no still may be (besides the source): a recipe.
    public var protected: [ProtectedFile] = []

    public static let defaultQuality = 85

    public init(source: String, times: StillTimes) {
        self.source = source
        self.times = times
    }
}

extension StillFormat {
    /// FFmpeg's encoder for it.
    var encoderName: String {
        switch self {
        case .jpeg: return "mjpeg"
        case .png: return "png"
        case .webp: return "libwebp"
        }
    }
}
