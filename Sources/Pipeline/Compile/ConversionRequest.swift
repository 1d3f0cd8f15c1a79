import Recipe

/// Which source track a reader output takes: `video`, `audio:1`, `#3`.
public enum TrackSelector: Sendable, Hashable, CustomStringConvertible {
    case type(MediaType, Int)
    case index(Int)

    public var description: String {
        switch self {
        case .type(let t, 0): return t.rawValue
        case .type(let t, let n): return "\(t.rawValue):\(n)"
        case .index(let i): return "#\(i)"
        }
    }
}

/// What to do with one source track.
public enum TrackMode: Sendable, Hashable {
    case video(VideoSettings)
    case audio(AudioSettings)
    /// Compressed samples copied as they are.
    case passthrough
    /// Subtitles in the form the output container holds (text converted where it must be).
    case subtitle
}

public struct TrackRequest: Sendable, Hashable {
    public var selector: TrackSelector
    public var mode: TrackMode
    /// An absent optional track is left out instead of failing the conversion.
    public var optional: Bool

    public init(_ selector: TrackSelector, _ mode: TrackMode, optional: Bool = false) {
        self.selector = selector; self.mode = mode; self.optional = optional
    }
}

/// A conversion as the engine takes it: what a recipe compiles to.
public struct ConversionRequest: Sendable {
    public var source: String
    public var output: String
    /// nil: from the output's extension.
    public var format: ContainerFormat?
    /// The index before the media data (moov first), for progressive playback.
    public var optimizeForNetwork = true
    public var overwrite = false
    /// The most bytes the file may have; nil: no limit.
    public var fileLengthLimit: FileLengthLimit?
    /// The size the whole file is aimed at: the video bitrate is derived from it (`TargetSizePass`); nil: none.
    public var targetSize: TargetSize?
    /// On the source's timeline, where 0 is the asset's start; nil: the whole asset.
    public var timeRange: TimeRange?
    /// Output tracks, in output order.
    public var tracks: [TrackRequest]
    /// Every video track starts a closed GOP with an IDR at each instant of this grid (its
    /// fragments' starts; `KeyframeGrid`); nil: where its encoder chooses.
    public var keyframeGrid: KeyframeGrid?
    /// A fragmented MP4 (moov first, then a moof and an mdat per fragment) cut at each instant of
    /// `keyframeGrid`; false: one progressive file.
    public var fragmented = false
    /// A rendition of a streaming package, written into its folder; nil: a file of its own.
    public var package: PackageMember?
    /// Never decode pictures the frame-rate converter will not show and nothing references. Output is the same
    /// either way; this only exists to prove it and to measure the gain.
    public var selectiveDecode = true
    /// Extra container metadata (wins over the source's).
    public var metadata: [String: String] = [:]
    /// The recipe's `metadata:`: what is kept of the source's (its items are in `metadata`).
    public var metadataSpec: MetadataSpec?
    /// A composition: its segments, in order (never with `timeRange`); nil: the source (or its
    /// time range) as it is.
    public var timeline: [SegmentRequest]?
    /// A composition's other files (segment source 1, 2, …); `source` is its first segment's.
    public var sources: [String] = []
    /// Files besides `source` and `sources` the output may never replace: the recipe.
    public var protected: [ProtectedFile] = []
    /// A composition's audio mix: the volumes of its sound and its `mix:` inputs (their segments
    /// are in `timeline` with `layer` ≥ 1); nil: its sound as it is.
    public var audioMix: AudioMix?
    /// A composition's fades of the whole output: from black and silence over its first `in`, to
    /// them over its last `out`.
    public var fade: (in: MediaTime?, out: MediaTime?)?
    /// A composition's video tracks drawn as layers (their segments are in `timeline`, list video,
    /// `layer` ≥ 1 for `layers:`); nil: its one video track fitted in the whole frame.
    public var videoComposition: VideoCompositionRequest?
    /// The video encoded in chunks and joined (`parallel:`, `run --chunks`); nil: in one piece.
    public var parallel: ParallelSpec?
    /// Per output track (in the plan's `lanes` order), why it cannot be rendered smart though its
    /// settings ask (`SmartPass`), or its sound copied (`SmartSoundPass`): what the other outputs
    /// of its read make of it, which the
    /// compiler knows only once every output is planned (`RecipeCompiler.smartSharingObstacles`).
    public var smartObstacles: [Int: String] = [:]

    public init(source: String, output: String, tracks: [TrackRequest]) {
        self.source = source; self.output = output; self.tracks = tracks
    }
}

extension ConversionRequest {
    /// The same conversion into a scratch file of a side run (the size estimate's sample encode,
    /// two passes' statistics pass): `path` in `format`, overwritten, without the output's
    /// length limit, target size or package, and nothing protected (it is the run's own file).
    func scratch(into path: String, format: ContainerFormat) -> ConversionRequest {
        var r = self
        r.output = path
        r.format = format
        r.overwrite = true
        r.fileLengthLimit = nil
        r.targetSize = nil
        r.protected = []
        r.package = nil
        r.parallel = nil
        return r
    }
}
