import Foundation
import Recipe

/// One output track, every setting resolved.
public struct LanePlan: Sendable {
    public enum Kind: Sendable {
        case video(ResolvedVideoSettings)
        case audio(ResolvedAudioSettings)
        case passthrough
        /// Text subtitles decoded and encoded again in the container's own text format.
        case subtitle(SubtitleConversion)
    }
    public let track: Track
    public internal(set) var kind: Kind
    /// Which of the plan's sources `track` is of (a composition may find a kind of track only in
    /// a later file; 0 otherwise).
    var source = 0

    /// The video settings, for a video lane.
    var videoSettings: ResolvedVideoSettings? { if case .video(let s) = kind { return s } else { return nil } }
    /// 2: a video track coded in two passes; 1 otherwise.
    public var passes: Int { videoSettings?.passes ?? 1 }
    /// The track's samples are copied as they are.
    var isCopy: Bool { if case .passthrough = kind { return true } else { return false } }
}

/// A conversion compiled against its real source: nothing is left open, and everything that can
/// be checked before decoding has been checked.
public struct ConversionPlan: Sendable {
    public let source: Asset
    public let outputPath: String
    public let format: ContainerFormat
    public let optimizeForNetwork: Bool
    /// A fragmented MP4 cut at this grid's instants (`FragmentCutter`); nil: one progressive file.
    public internal(set) var fragments: KeyframeGrid?
    /// Replace a file at `outputPath` (a batch decides per output, after the plan: `BatchRunner`).
    public internal(set) var overwrite: Bool
    /// The request it was planned from (the size pass plans spans of it again); nil: a plan made
    /// without the planner.
    var request: ConversionRequest?
    /// The most bytes the file may have (the run cuts it there); nil: no limit.
    public internal(set) var fileLengthLimit: FileLengthLimit?
    /// How the video bitrate was derived from the output's `target-size`; nil: none asked.
    public internal(set) var targetSize: TargetSizeDerivation?
    /// Absolute, on the file's own timeline; a trim's ends are at frame boundaries (TrimSnap).
    public let timeRange: TimeRange
    /// Where the source's material goes on the output's timeline: the time range as one segment
    /// at 0, scale 1. Lanes do every time computation through it.
    var timeline: TimeMapping
    public internal(set) var lanes: [LanePlan]
    /// What the recipe asked for (within the file), when the planned range differs from it.
    public internal(set) var requestedTimeRange: TimeRange?
    public let selectiveDecode: Bool
    public let metadata: [String: String]
    /// The metadata, chapters and cover art the output keeps, as its container holds them.
    public let kept: KeptItems
    /// What the output will not keep, settings without effect: printed as warnings.
    public internal(set) var notices: [PlanNotice] = []
    /// Per output track (in `lanes` order), the stages that make it: sources → sink.
    var chains: [StageChain] = []
    /// The stages as a graph, each edge with the format both ends agreed on; nil until the
    /// planner's last pass (`Negotiation`) made it.
    public internal(set) var graph: PlanGraph?
    /// The encoders the negotiation's rehearsal opened, for the run to take (nil: not negotiated).
    var openedEncoders: OpenedEncoders?
    /// The timeline is a composition's (`composed`), not the time range alone.
    public internal(set) var isComposed = false
    /// Timeline segments (indices) played at another speed, with the `audio-stretch:` method
    /// their sound is stretched by (`mute`: silence of their target length).
    var audioStretches: [Int: AudioStretch] = [:]
    /// Timeline segments (indices) that read a track other than their file's first of its kind
    /// (a segment's `track:`), with its stream index: `plan` shows it.
    var namedTracks: [Int: Int] = [:]
    /// A composition's audio mix (its inputs are the chain inputs' `layer`s); nil: no mixing.
    public internal(set) var audioMix: AudioMix?
    /// Where the pictures fade towards a colour and the sound towards silence: the output's fades
    /// and each dip transition, in order.
    public internal(set) var pictureFades: [PictureFade] = []
    /// All of `pictureFades` as one factor on the sound (nil: none).
    public var outputFade: Keyframes? { pictureFades.isEmpty ? nil : Keyframes(ramps: pictureFades.map(\.ramp)) }
    /// Per timeline segment, its composition track: 0 the video or audio list, j ≥ 1 mix input j
    /// (whether or not its file has a track any lane reads).
    var segmentLayers: [Int] = []
    /// Per timeline segment, the list it came from (a layer and a mix input share numbers).
    var segmentLists: [SegmentRequest.List] = []

    /// A composition's pictures drawn as layers, bottom first (`VideoCompositor`); empty: its one
    /// video track fitted in the whole frame.
    public internal(set) var videoLayers: [VideoLayer] = []
    /// Per timeline segment, its video layer (an index of `videoLayers`; 0 for sound).
    var segmentVideoLayers: [Int] = []
    /// What the layers are drawn over.
    public internal(set) var background: RecipeColor = .black
    /// The video track's cross-fades, in order.
    public internal(set) var crossFades: [CrossFade] = []

    /// Video lanes (indices) rendered smart: their kept groups of pictures copied, the pictures
    /// around the cuts encoded (`SmartPass`).
    public internal(set) var smart: [Int: SmartRender] = [:]
    /// Sound lanes of a smart-rendered output whose whole frames are copied (`SmartSoundPass`),
    /// and why the others are encoded whole.
    public internal(set) var smartSound: [Int: SmartSound] = [:]
    public internal(set) var soundObstacles: [Int: String] = [:]
    /// The video track encoded in chunks and joined (`ChunkPass`); nil: in one piece.
    public internal(set) var chunking: ChunkedEncode?

    /// A composition's other source files (`TimeSegment.source` 1, 2, …).
    var extraSources: [Asset] = []
    /// What the output may never replace (`ConversionRequest.protectedFiles`): checked again when
    /// the conversion starts.
    var protectedFiles: [ProtectedFile] = []
    /// The files the run reads: the source, then a composition's others.
    public var sources: [Asset] { [source] + extraSources }

    /// The time range starts after the file's start: lanes cut there.
    var cutsStart: Bool { timeRange.start > source.startTime }
    /// The time range ends before the file's stated end; none stated (a raw elementary stream),
    /// wherever the range has an end: a copy would otherwise run on to the file's end.
    var cutsEnd: Bool {
        let d = source.duration
        guard d.isNumeric && d > .zero else { return timeRange.end.isNumeric }
        return timeRange.end < source.startTime + d
    }

    /// How the file is laid out, as `plan` says it (nil: nothing to say).
    public var layout: String? {
        if let fragments { return "fragmented \(fragments.description)" }
        return optimizeForNetwork && format.isISOMedia ? "index first" : nil
    }

    /// The output's expected length: the end of its timeline.
    public var duration: MediaTime { timeline.targetDuration }
}
