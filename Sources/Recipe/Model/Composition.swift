/// A source file of a composition, by the name segments use.
public struct SourceSpec: Sendable {
    public enum Path: Sendable, Hashable {
        /// The input: the file `-i` (or batch) names, else the recipe's top-level `source:`.
        case input
        /// A path; it may hold the input's tokens {dir} {stem} {ext} {name} (`"{dir}/intro.mp4"`).
        case file(String)
    }

    public let name: String
    public let path: Path
    /// Where the name was written (for an implicit source, the composition's `video:`/`audio:`).
    public let mark: Mark
    /// Where the path was written.
    public let pathMark: Mark
    /// Not written: a recipe without `sources:` has one source, the input, named `input`.
    public let isImplicit: Bool

    public init(name: String, path: Path, mark: Mark, pathMark: Mark, isImplicit: Bool = false) {
        self.name = name; self.path = path; self.mark = mark; self.pathMark = pathMark; self.isImplicit = isImplicit
    }

    /// The name a recipe without `sources:` gives its one source.
    public static let implicitName = "input"
}

/// A speed as an exact positive rational, reduced: `1/8` plays a range eight times slower (every
/// source frame kept, each shown eight times as long), `2` twice as fast. Never a float.
public struct SegmentSpeed: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    /// nil unless both terms are positive.
    public init?(numerator: Int64, denominator: Int64) {
        guard numerator > 0, denominator > 0 else { return nil }
        let g = gcd(numerator, denominator)
        self.numerator = numerator / g
        self.denominator = denominator / g
    }

    public static let normal = SegmentSpeed(numerator: 1, denominator: 1)!
    /// The slowest and fastest speeds a recipe may ask (AVFoundation's spectral and varispeed
    /// time-pitch range; 1/32 is 960 fps capture played at 30 fps).
    public static let slowest = SegmentSpeed(numerator: 1, denominator: 32)!
    public static let fastest = SegmentSpeed(numerator: 32, denominator: 1)!
    /// The largest numerator or denominator (reduced) a recipe may write: `0.999999`, `1000/1001`.
    public static let maxTerm: Int64 = 1_000_000

    public var isNormal: Bool { numerator == denominator }

    /// How long a source span lasts on the target timeline at this speed: `source / speed`,
    /// exact when the timescale it needs fits, else rounded to the nearest tick of the finer one.
    public func targetDuration(of source: MediaTime) -> MediaTime {
        guard source.isNumeric else { return source }
        let timescale = Int128(source.timescale) * Int128(numerator)
        let value = Int128(source.value) * Int128(denominator)
        if let ts = Int32(exactly: timescale), let v = Int64(exactly: value) { return MediaTime(value: v, timescale: ts) }
        let rounded = Wide.divide(value, by: Int128(numerator), rounding: .nearest)
        guard let v = Int64(exactly: rounded) else { return rounded < 0 ? .negativeInfinity : .positiveInfinity }
        return MediaTime(value: v, timescale: source.timescale)
    }

    /// The speed that plays `source` in `target` (`source / target`), when both are positive
    /// numeric times and the ratio's terms fit.
    public static func playing(_ source: MediaTime, in target: MediaTime) -> SegmentSpeed? {
        guard source.isNumeric, target.isNumeric else { return nil }
        let n = Int128(source.value) * Int128(target.timescale), d = Int128(target.value) * Int128(source.timescale)
        guard n > 0, d > 0 else { return nil }
        let g = gcd128(n, d)
        guard let num = Int64(exactly: n / g), let den = Int64(exactly: d / g) else { return nil }
        return SegmentSpeed(numerator: num, denominator: den)
    }

    public static func < (a: SegmentSpeed, b: SegmentSpeed) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// `1/8`, `2`, `1000/1001`.
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}

private func gcd128(_ a: Int128, _ b: Int128) -> Int128 {
    var (x, y) = (a.magnitude, b.magnitude)
    while y != 0 { (x, y) = (y, x % y) }
    return Int128(x)
}

/// How a segment's source range is scaled onto the timeline (AVFoundation's scaleTimeRange).
public enum SegmentTiming: Sendable, Hashable {
    /// `speed: 1/8`: the target lasts source / speed.
    case speed(SegmentSpeed)
    /// `target-duration: 8s`: the speed is derived (source duration / target duration).
    case targetDuration(MediaTime)
}

/// `slow-motion:` — whether the phone's own slow-motion segments (Samsung SEF, `smta`) are played.
public enum SlowMotion: String, Sendable, Hashable, CaseIterable {
    /// The slowed segments the source file stores play slowed, the rest at normal speed.
    case fromSource = "from-source"
    /// The file's frames at their own times.
    case none
}

/// `audio-stretch:` — what becomes of the sound of a range played at another speed.
public enum AudioStretch: String, Sendable, Hashable, CaseIterable {
    /// Pitch kept, best quality (rubberband).
    case spectral
    /// Pitch kept, cheaper; suits voice (WSOLA).
    case timeDomain = "time-domain"
    /// Resampled: the pitch follows the speed.
    case varispeed
    /// Silence for the range's target length.
    case mute

    /// What a scaled range gets when the recipe does not say.
    public static let `default` = AudioStretch.spectral
}

/// One piece of a composition track: a range of a source track, placed on the timeline and
/// optionally scaled. Order: trim (the source range), then place (`at`), then scale.
public struct Segment: Sendable {
    /// 1-based position in its composition track, as messages count.
    public let number: Int
    /// The source's name; when the recipe left it out (one source), its mark is the segment's.
    public internal(set) var source: Located<String>
    /// The source track; nil: the first track of the composition track's kind (`video`, `audio`).
    public let track: Located<TrackReference>?
    /// The source range, on the source's own timeline (0 = its first timestamp). No start: 0.
    public let start: Located<MediaTime>?
    /// At most one of `end` and `duration`; neither: to the end of the source.
    public let end: Located<MediaTime>?
    public let duration: Located<MediaTime>?
    /// The target start; nil: right after the previous segment of its track (0 for the first).
    public let at: Located<MediaTime>?
    /// nil: speed 1, unless slow motion from the source applies.
    public let timing: Located<SegmentTiming>?
    /// The segment's own `slow-motion:`; see `Composition.slowMotion(for:)` for what applies.
    public let slowMotion: Located<SlowMotion>?
    /// The segment's own `audio-stretch:`; see `Composition.audioStretch(for:)`.
    public let audioStretch: Located<AudioStretch>?
    /// How it is joined to the segment before it (video list only); nil: a cut.
    public var transition: Transition?
    /// Where the segment starts in the recipe (its `-`).
    public let mark: Mark

    public init(number: Int, source: Located<String>, track: Located<TrackReference>? = nil,
                start: Located<MediaTime>? = nil, end: Located<MediaTime>? = nil, duration: Located<MediaTime>? = nil,
                at: Located<MediaTime>? = nil, timing: Located<SegmentTiming>? = nil,
                slowMotion: Located<SlowMotion>? = nil, audioStretch: Located<AudioStretch>? = nil, mark: Mark) {
        self.number = number; self.source = source; self.track = track
        self.start = start; self.end = end; self.duration = duration; self.at = at; self.timing = timing
        self.slowMotion = slowMotion; self.audioStretch = audioStretch; self.mark = mark
    }

    /// The source range `[start, end)`; duration +infinity when open-ended (to the source's end).
    public var sourceRange: TimeRange {
        let s = start?.value ?? .zero
        if let duration { return TimeRange(start: s, duration: duration.value) }
        if let end { return TimeRange(start: s, end: end.value) }
        return TimeRange(start: s, duration: .positiveInfinity)
    }

    /// The length on the timeline when the recipe alone says it (a closed range, or a
    /// `target-duration`), with slow motion from the source not in play; else nil.
    func staticTargetDuration(slowMotion: SlowMotion) -> MediaTime? {
        switch timing?.value {
        case .targetDuration(let d)?: return d
        case .speed(let s)?:
            let r = sourceRange
            return r.duration.isNumeric ? s.targetDuration(of: r.duration) : nil
        case nil:
            guard slowMotion == .none else { return nil }
            let r = sourceRange
            return r.duration.isNumeric ? r.duration : nil
        }
    }

    /// The same segment for the audio track that follows the video track: the source's first
    /// audio track, over the same range, placement and scale.
    func followingAudio() -> Segment {
        Segment(number: number, source: source, track: nil, start: start, end: end, duration: duration, at: at,
                timing: timing, slowMotion: slowMotion, audioStretch: audioStretch, mark: mark)
    }
}

/// A composition track: segments of one kind (video or audio), laid on one timeline. Segments
/// never overlap; the time no segment covers is black (video) or silence (audio).
public struct CompositionTrack: Sendable {
    public let kind: TrackReference.Kind
    public let segments: [Segment]
    /// Where the list was written (for audio that follows the video, the video list's).
    public let mark: Mark
    /// An audio track not written: the video segments' sound (a source without sound gives
    /// silence for its segments).
    public let followsVideo: Bool
    /// 0: the composition's `video:` or `audio:`; j ≥ 1: input j of `mix:` (audio), or layer j
    /// of `layers:` (video).
    public let layer: Int
    /// A video track's place in the output frame (`rect`, `fit`, `crop`, `opacity`); nil: the
    /// whole frame, opaque.
    public var style: VideoLayerStyle?
    /// An audio track's volume (AVAudioMix's input parameters); nil: 1 throughout.
    public let volume: Keyframes?
    /// An audio track's fades: from silence over its first `fadeIn` on the timeline, to silence
    /// over its last `fadeOut` (linear in amplitude, on top of the volume).
    public let fadeIn: Located<MediaTime>?
    public let fadeOut: Located<MediaTime>?

    public init(kind: TrackReference.Kind, segments: [Segment], mark: Mark, followsVideo: Bool = false,
                layer: Int = 0, volume: Keyframes? = nil, fadeIn: Located<MediaTime>? = nil, fadeOut: Located<MediaTime>? = nil) {
        self.kind = kind; self.segments = segments; self.mark = mark; self.followsVideo = followsVideo
        self.layer = layer; self.volume = volume; self.fadeIn = fadeIn; self.fadeOut = fadeOut
    }

    /// The same track with other segments.
    func with(segments: [Segment]) -> CompositionTrack {
        var t = CompositionTrack(kind: kind, segments: segments, mark: mark, followsVideo: followsVideo, layer: layer,
                                 volume: volume, fadeIn: fadeIn, fadeOut: fadeOut)
        t.style = style
        return t
    }

    /// `video track` / `audio track` / `mix input 2` / `layer 1`, for messages.
    public var title: String { layer == 0 ? "\(kind.rawValue) track" : kind == .video ? "layer \(layer)" : "mix input \(layer)" }
    /// `the video track` / `mix input 2`, for messages.
    public var named: String { layer == 0 ? "the \(title)" : title }
}

/// Several sources on one timeline (AVMutableComposition): a video track and an audio track of
/// segments. Reader outputs then read the composition's tracks (`track: video`, `track: audio`)
/// instead of the input file's.
public struct Composition: Sendable {
    /// The video track, when the recipe lists `video:` segments.
    public let video: CompositionTrack?
    /// The audio track as written; nil: the audio follows the video (see `audio`).
    public let explicitAudio: CompositionTrack?
    /// The composition-wide `slow-motion:` and `audio-stretch:` (defaults for every segment).
    public let slowMotion: Located<SlowMotion>?
    public let audioStretch: Located<AudioStretch>?
    /// More audio tracks mixed with the audio track (`mix:`), input 1 first.
    public let mix: [CompositionTrack]
    /// More video tracks drawn over the video track (`layers:`), layer 1 lowest.
    public var layers: [CompositionTrack] = []
    /// The frame the video tracks are drawn in (nil: the largest picture of the video track's
    /// files) and its colour where no picture covers it (nil: black).
    public var renderSize: Located<RenderSize>?
    public var background: Located<RecipeColor>?
    /// The most of `layers:` that may show at once (`layer-limit:`; nil: the default, which the
    /// plan checks: each layer showing holds a decoder and its pictures).
    public var layerLimit: Located<Int>?
    /// What the mix does with a sum beyond full scale; nil: `clip`.
    public let limit: Located<MixLimit>?
    /// The whole output's fades: from black and silence over its first `fadeIn`, to them over
    /// its last `fadeOut`.
    public var fadeIn: Located<MediaTime>?
    public var fadeOut: Located<MediaTime>?
    /// The `composition:` key.
    public let mark: Mark

    public init(video: CompositionTrack?, explicitAudio: CompositionTrack?, slowMotion: Located<SlowMotion>?,
                audioStretch: Located<AudioStretch>?, mix: [CompositionTrack] = [], limit: Located<MixLimit>? = nil, mark: Mark) {
        self.video = video; self.explicitAudio = explicitAudio
        self.slowMotion = slowMotion; self.audioStretch = audioStretch; self.mix = mix; self.limit = limit; self.mark = mark
    }

    /// The audio track: as written, else the video segments' sound, segment for segment.
    public var audio: CompositionTrack? {
        if let explicitAudio { return explicitAudio }
        guard let video else { return nil }
        return CompositionTrack(kind: .audio, segments: video.segments.map { $0.followingAudio() }, mark: video.mark, followsVideo: true)
    }

    public var tracks: [CompositionTrack] { [video, audio].compactMap { $0 } + layers + mix }

    /// Every list as written (not the audio that follows the video): video, audio, layers, mix.
    public var writtenTracks: [CompositionTrack] { [video, explicitAudio].compactMap { $0 } + layers + mix }

    /// Whether the pictures are drawn by layers (not one track fitted in the whole frame): more
    /// tracks, a styled video track, a coloured background or a cross-fade.
    public var drawsLayers: Bool {
        !layers.isEmpty || !(video?.style?.isDefault ?? true) || (background.map { $0.value != .black } ?? false)
            || (video?.segments.contains { $0.transition?.kind == .crossFade } ?? false)
    }


    /// Whether a segment plays the source's own slow-motion segments: its own `slow-motion:`,
    /// else none when it has a `speed`/`target-duration` (those say its timing), else the
    /// composition's, else none.
    public func slowMotion(for segment: Segment) -> SlowMotion {
        if let own = segment.slowMotion { return own.value }
        if segment.timing != nil { return .none }
        return slowMotion?.value ?? .none
    }

    /// How a segment's sound is stretched when it is scaled: its own, else the composition's,
    /// else `spectral`.
    public func audioStretch(for segment: Segment) -> AudioStretch {
        segment.audioStretch?.value ?? audioStretch?.value ?? .default
    }
}
