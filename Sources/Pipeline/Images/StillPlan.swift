import Recipe

/// Still images resolved against their source before anything is decoded: for each, the source
/// frame it will show (its presentation time, and whether as the exact frame on display or as a
/// keyframe), the sync sample decoding starts from, and its file; one size and format for all.
public struct StillPlan: Sendable {
    public let source: String
    /// The video track the stills are of (the first that plays: not cover art).
    public let track: Track
    /// The source's start on the file's timeline.
    public let fileStart: MediaTime
    /// Where times asked for and shown count from, on the file's timeline: the source's start,
    /// or a recipe's time range's.
    public let origin: MediaTime
    /// How long the source (or the time range) lasts: the times a still may be asked for are 0 to this.
    public let duration: MediaTime
    public let format: StillFormat
    public let quality: Int
    /// Every still's size: the display size (pixel aspect and rotation applied), fitted inside
    /// the box asked for without upscaling, in even numbers.
    public let width: Int, height: Int
    /// How an HDR source is made SDR; nil for SDR.
    public let toneMapping: ToneMapping?
    public internal(set) var overwrite: Bool
    public let stills: [PlannedStill]
    /// The contact sheet the stills are tiles of; nil: a file per still.
    public let sheet: StillSheet?
    /// Stills of a composition: drawn from its video track's pictures, times on its timeline
    /// (`track`, `fileStart` and `origin` are then its first segment's track and zero); nil:
    /// of the source's own video track.
    public internal(set) var composition: ComposedStills? = nil
}

/// One picture of the stills in a grid, and the storyboard's WebVTT file beside it.
public struct StillSheet: Sendable {
    public let columns: Int, rows: Int
    public let path: String
    public let webVTT: String?
}

/// One still as planned. Times count from the plan's `origin`.
public struct PlannedStill: Sendable {
    /// From 1, in the order asked.
    public let number: Int
    /// As written (`25%`, `1.500s`).
    public let asked: String
    public let requested: MediaTime
    /// The presentation time of the frame it shows.
    public let shown: MediaTime
    /// The sync sample decoding starts from.
    public let decodeFrom: MediaTime
    /// A sync sample within the tolerance that is not the frame on display at the instant.
    public let isKeyframe: Bool
    /// Its file (a contact sheet's, for a tile).
    public let path: String
    /// Its tile's place in the contact sheet (x, y, width, height); nil without one.
    public let tile: (x: Int, y: Int, width: Int, height: Int)?
}
