import Recipe

/// One segment of a composition, as the engine takes it: a range of one of its files,
/// placed on the output's timeline and played at a speed. Times are on the file's own timeline
/// with 0 at its start, as a time range's are.
public struct SegmentRequest: Sendable, Hashable {
    /// Which list of the composition it is in: the video list (whose sound the audio lanes take
    /// when there is no audio list), or the audio list.
    public enum List: String, Sendable, Hashable {
        case video, audio
    }
    public var list: List = .video
    /// 0: the list itself; j ≥ 1: input j of the composition's `mix:` (audio list), mixed with
    /// it, or layer j of its `layers:` (video list), drawn over it.
    public var layer = 0

    /// A `mix:` input's segment.
    var isMixInput: Bool { list == .audio && layer > 0 }
    /// A `layers:` segment.
    var isVideoLayer: Bool { list == .video && layer > 0 }
    /// Which file: 0 the request's `source`, k its `sources[k - 1]`.
    public var source: Int
    public var start: MediaTime
    /// nil: to the end of the file.
    public var end: MediaTime?
    /// The target start; nil: right where the previous segment ends (0 for the first).
    public var at: MediaTime?
    /// nil: speed 1.
    public var timing: SegmentTiming?
    /// What becomes of the sound of the segment when it plays at another speed.
    public var audioStretch: AudioStretch
    /// `from-source`: the range plays as the phone stored its slow motion (`SlowMotionExpansion`),
    /// never with a `timing`.
    public var slowMotion: SlowMotion
    /// How it joins the segment before it in the video list (`dip`); nil: a cut.
    public var transition: Transition?
    /// The segment's own track of its file (the recipe's `track:`); nil: the lanes of each kind
    /// read their usual track of the file (see `SegmentTracks`).
    public var track: OwnTrack?

    /// A track a segment names: `selector` in its file, read by the lanes of `kind` (its list's
    /// kind: a `#N` must be a track of that kind). Lanes of the other kind read as if it named none.
    public struct OwnTrack: Sendable, Hashable {
        public var kind: MediaType
        public var selector: TrackSelector
        public init(_ kind: MediaType, _ selector: TrackSelector) { self.kind = kind; self.selector = selector }
    }

    public init(source: Int = 0, start: MediaTime = .zero, end: MediaTime? = nil, at: MediaTime? = nil,
                timing: SegmentTiming? = nil, audioStretch: AudioStretch = .default, slowMotion: SlowMotion = .none) {
        self.source = source
        self.start = start; self.end = end; self.at = at; self.timing = timing; self.audioStretch = audioStretch
        self.slowMotion = slowMotion
    }

    /// How settings and notice keys name a segment's list: `segment`, `audio-segment`,
    /// `mix-J-segment`, `layer-J-segment`.
    static func trackKey(list: List, layer: Int) -> String {
        layer > 0 ? (list == .audio ? "mix-\(layer)-segment" : "layer-\(layer)-segment") : list == .video ? "segment" : "audio-segment"
    }

    /// How messages name segment `number` of its list: `segment 2`, `segment 2 of the audio
    /// track`, `segment 2 of mix input 1`.
    static func name(_ number: Int, list: List, layer: Int) -> String {
        layer > 0 ? "segment \(number) of \(list == .audio ? "mix input" : "layer") \(layer)" : list == .audio ? "segment \(number) of the audio track" : "segment \(number)"
    }
}

/// The field of one segment a refusal is about (`MediaError.segment`), so a recipe can point at
/// the line that wrote it: the list and layer it is in, its number in them (1-based), the field.
public struct SegmentField: Sendable, Hashable {
    public enum Name: Sendable, Hashable { case start, end, at, speed, track, transition, slowMotion, audioStretch }
    public var list: SegmentRequest.List
    /// 0: the list itself; j ≥ 1: mix input or layer j (`SegmentRequest.layer`).
    public var layer: Int
    public var number: Int
    public var name: Name

    public init(_ number: Int, _ name: Name, list: SegmentRequest.List = .video, layer: Int = 0) {
        self.number = number; self.name = name; self.list = list; self.layer = layer
    }
}
