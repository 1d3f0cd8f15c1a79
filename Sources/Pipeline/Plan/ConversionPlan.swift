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
}

/// A conversion compiled against its real source: nothing is left open, and everything that can
/// be checked before decoding has been checked.
public struct ConversionPlan: Sendable {
    public let source: Asset
    public let outputPath: String
    public let format: ContainerFormat
    public let optimizeForNetwork: Bool
    public let overwrite: Bool
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
    /// The timeline is a composition's (`composed`), not the time range alone.
    var isComposed = false
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

    /// The output's expected length: the end of its timeline.
    public var duration: MediaTime { timeline.targetDuration }
}

public enum Planner {
    /// Why a time range that starts at `start` (0: the file's start) has nothing of `asset`: it
    /// starts at or after the file's stated end. nil: it starts within the file, or the file
    /// states no length (none, or 0), so it is read to its end. The compiler says it at the
    /// recipe's `time-range:`.
    static func timeRangeRefusal(start: MediaTime, in asset: Asset) -> String? {
        guard asset.duration.isNumeric, asset.duration > .zero, start >= asset.duration else { return nil }
        return "the time range starts at \(start.secondsDescription), at or after the end of \(asset.path) (\(asset.duration.secondsDescription))"
    }

    /// `sources`: the composition's other files already loaded (`request.sources`, in order).
    public static func plan(_ request: ConversionRequest, asset preloaded: Asset? = nil, sources loaded: [Asset]? = nil,
                            assistant: SettingsAssistant = .system) throws(MediaError) -> ConversionPlan {
        let asset: Asset
        if let preloaded { asset = preloaded } else { asset = try Asset.load(request.source) }
        let src = request.source
        let out = request.output

        // Output file and format.
        let format = try OutputLocation.format(for: out, requested: request.format)
        // A composition's other files are as precious as its first, and the recipe as they.
        try OutputLocation.check(out, protecting: request.protectedFiles, overwrite: request.overwrite, format: format)

        // A composition's other files; the settings are decided from all the files it shows.
        var extras: [Asset] = []
        if request.timeline != nil {
            if let loaded, loaded.count == request.sources.count { extras = loaded } else {
                for path in request.sources { extras.append(try Asset.load(path)) }
            }
        }
        let assets = [asset] + extras
        let reconciles = !extras.isEmpty
        let usedSources = Set(request.timeline?.map(\.source) ?? [0]).filter { assets.indices.contains($0) }.sorted()
        // The files each kind of lane shows: pictures come from the video list; sound from the
        // audio list (else the video list) and every mix input. Each kind is reconciled over its own.
        let requested = request.timeline ?? []
        let ownSound = requested.contains { $0.list == .audio && $0.layer == 0 }
        // Every video track's files are reconciled (rate, dynamic range); the render size is the
        // video list's alone: a layer's pictures go in a rectangle of it.
        let pictureSources = Set(requested.filter { $0.list == .video }.map(\.source))
        let renderFiles = Set(requested.filter { $0.list == .video && $0.layer == 0 }.map { assets.indices.contains($0.source) ? assets[$0.source].path : "" })
        let soundSources = Set(requested.filter { $0.isMixInput || ($0.layer == 0 && $0.list == (ownSound ? .audio : .video)) }.map(\.source))
        /// The render frame the recipe's layer rectangles are in (a composition's video lane).
        var renderFrame: (width: Int, height: Int)?
        // The tracks segments name (`track:`), each found in its own file before anything else.
        let ownTracks = try request.timeline.map { t throws(MediaError) in try SegmentTracks.resolve(t, assets: assets) } ?? []
        /// The tracks of `type` a lane whose own is `track` of file `home` shows: its own, the other
        /// files' first, and those segments name; each once.
        func shownTracks(_ type: MediaType, home: Int, track: Track) -> [(file: String, track: Track)] {
            let files = type == .video ? pictureSources : soundSources
            var pairs: [(source: Int, track: Track)] = [(home, track)]
            for k in usedSources where k != home && files.contains(k) { if let t = assets[k].track(type, ordinal: 0) { pairs.append((k, t)) } }
            for (r, own) in zip(request.timeline ?? [], ownTracks) where files.contains(r.source) {
                if let own, own.kind == type, let t = assets[r.source].track(index: own.index) { pairs.append((r.source, t)) }
            }
            var seen: Set<[Int]> = []
            return pairs.filter { seen.insert([$0.source, $0.track.index]).inserted }.map { (assets[$0.source].path, $0.track) }
        }

        // Time range.
        let whole = asset.wholeRange
        var range = whole
        var wantedRange: TimeRange?
        if let r = request.timeRange {
            guard r.isValid, r.start >= .zero else {
                throw MediaError(.invalidSettings, "time range \(r) is not valid", file: src)
            }
            // Recipe times are range-checked, but a file's start time can be anything.
            let wantedStart: MediaTime
            do throws(MediaTimeOverflow) { wantedStart = try asset.startTime.adding(r.start) } catch { throw MediaError(error, file: src) }
            let wanted = TimeRange(start: wantedStart, duration: r.duration)
            if let why = timeRangeRefusal(start: r.start, in: asset) { throw MediaError(.invalidSettings, why, file: src) }
            range = wanted.intersection(whole)
            wantedRange = wanted
        }

        // Tracks.
        var lanes: [LanePlan] = []
        var used: Set<[Int]> = []
        for t in request.tracks {
            var track: Track?
            var home = 0
            switch t.selector {
            case .type(let type, let n):
                track = asset.track(type, ordinal: n)
                // A composition's track of a kind: the first of its files (in the order they are
                // shown) that has one.
                if track == nil, request.timeline != nil {
                    for k in usedSources where k > 0 {
                        if let found = assets[k].track(type, ordinal: n) { track = found; home = k; break }
                    }
                }
            case .index(let i): track = asset.track(index: i)
            }
            guard let track else {
                if t.optional { continue }
                throw MediaError(.notMedia, "has no \(t.selector) track", file: src)
            }
            let trackFile = assets[home].path
            guard used.insert([home, track.index]).inserted else {
                throw MediaError(.invalidSettings, "track #\(track.index) (\(t.selector)) is used twice", file: src)
            }
            if !isCopy(t.mode) { try checkDecodable(track, file: trackFile) }
            switch (t.mode, track.mediaType) {
            case _ where isCopy(t.mode):
                if track.mediaType == .subtitle { try SubtitleConversion.checkCopy(track, format: format, source: src) }
                try checkPassthrough(track, format: format, source: src)
                lanes.append(LanePlan(track: track, kind: .passthrough))
            case (.video(let s), .video):
                if format == .m4a { throw MediaError(.invalidSettings, "an m4a file holds audio only; track #\(track.index) of \(src) is video", file: out) }
                do throws(MediaError) {
                    var source = VariableRate.measured(track, path: trackFile, settings: s)
                    var settings = s, reconciled: [Decision] = []
                    let shown = shownTracks(.video, home: home, track: track)
                    if reconciles || shown.count > 1 || request.videoComposition != nil {
                        var formats = [(file: trackFile, format: source)]
                        for (file, t) in shown.dropFirst() { formats.append((file, VariableRate.measured(t, path: file, settings: s))) }
                        (source, settings, reconciled) = try CompositionSources.video(formats, settings: s, renderFiles: renderFiles,
                                                                                      renderSize: request.videoComposition?.renderSize)
                        renderFrame = renderFrame ?? (source.width, source.height)
                    }
                    var resolved = try assistant.video(source: source, settings: settings)
                    if !reconciled.isEmpty {
                        let replaced = Set(reconciled.map(\.setting))
                        resolved.decisions = reconciled + resolved.decisions.filter { !replaced.contains($0.setting) }
                    }
                    lanes.append(LanePlan(track: track, kind: .video(resolved), source: home))
                } catch { throw error.at(file: trackFile, track: track.index) }
            case (.audio(let s), .audio):
                do throws(MediaError) {
                    var source = track.format, reconciled: [Decision] = []
                    let shown = shownTracks(.audio, home: home, track: track)
                    if reconciles || shown.count > 1 {
                        let formats = shown.map { (file: $0.file, format: $0.track.format) }
                        (source, reconciled) = CompositionSources.audio(formats)
                    }
                    var resolved = try assistant.audio(source: source, settings: s)
                    resolved.decisions = reconciled + resolved.decisions
                    lanes.append(LanePlan(track: track, kind: .audio(resolved), source: home))
                } catch { throw error.at(file: trackFile, track: track.index) }
            case (.subtitle, .subtitle):
                let trimmed = range.start > whole.start || range.end < whole.end
                lanes.append(LanePlan(track: track, kind: try SubtitleConversion.plan(track, format: format, trimmed: trimmed, source: src)))
            case (.video, let type), (.audio, let type), (.passthrough, let type), (.subtitle, let type):
                throw MediaError(.invalidSettings, "track #\(track.index) (\(t.selector)) is \(type.rawValue), not what its settings are for", file: src)
            }
        }
        guard !lanes.isEmpty else { throw MediaError(.notMedia, "none of the requested tracks exist", file: src) }
        var timeNotice: PlanNotice?
        if let wantedRange {
            let snapped = try TrimSnap.snap(wantedRange, whole: whole, asset: asset, lanes: lanes)
            range = snapped.range
            timeNotice = snapped.notice
        }

        var composed: CompositionTimeline.Result?
        var trackMap: [[Int?]] = []
        if let segments = request.timeline {
            guard request.timeRange == nil else { throw MediaError(.invalidSettings, "a composition has no time range: each segment has its own", file: src) }
            // A composition re-encodes what it shows; a copy keeps the file's samples and times.
            if let copied = lanes.first(where: { if case .video = $0.kind { return false }; if case .audio = $0.kind { return false }; return true }) {
                throw MediaError(.invalidSettings, "track #\(copied.track.index) is copied (or is subtitles), but a composition's tracks are decoded: copied tracks are not supported in a composition yet", file: src, track: copied.track.index)
            }
            trackMap = CompositionSources.tracks(of: lanes, in: assets)
            // Per segment, the lanes as they read its file: a segment's own track, where it names
            // one, for the lanes of its kind. A mix input is read by the audio lanes only: its
            // file's pictures are not shown, so they neither cut its range nor need decoding.
            let byRequest = zip(segments, ownTracks).map { r, own in
                lanes.enumerated().compactMap { l, lane -> LanePlan? in
                    if r.isMixInput, lane.track.mediaType != .audio { return nil }
                    if r.isVideoLayer, lane.track.mediaType != .video { return nil }
                    let index = own.flatMap { $0.kind == lane.track.mediaType ? $0.index : nil } ?? trackMap[l][r.source]
                    return index.flatMap { assets[r.source].track(index: $0) }.map { LanePlan(track: $0, kind: lane.kind) }
                }
            }
            // Every file's track a lane reads is decoded: one that cannot be is refused now, as a
            // single file's is, not when the run reaches its segment.
            for (r, lanes) in zip(segments, byRequest) { for lane in lanes { try checkDecodable(lane.track, file: assets[r.source].path) } }
            composed = try CompositionTimeline.resolve(segments, assets: assets, lanes: byRequest)
        }

        var (kept, keptNotices) = Keeping.plan(asset, format: format, range: range, lanes: lanes, extra: request.metadata)
        if let composed {
            // Chapters go where the segments play them, from every file the composition shows.
            let (chapters, notices) = CompositionChapters.map(composed.timeline, sources: assets)
            kept.chapters = chapters
            keptNotices = keptNotices.filter { $0.item != "chapters" && $0.item != "track" } + notices
            // Tracks no lane reads, file by file: the lanes' track numbers are each file's own
            // (and the tracks its segments name are read too).
            for k in usedSources {
                let named = zip(request.timeline ?? [], ownTracks).compactMap { r, own in r.source == k ? own?.index : nil }
                let read = Set(trackMap.compactMap { $0[k] } + named)
                for t in Keeping.unwritten(assets[k], reading: read) {
                    let what = "\(Keeping.describe(t)) is not written: no writer input takes it"
                    keptNotices.append(PlanNotice(.dropped, "track", track: t.index, file: k == 0 ? nil : assets[k].path, what))
                }
            }
        }
        var plan = ConversionPlan(source: asset, outputPath: out, format: format, optimizeForNetwork: request.optimizeForNetwork,
                                  overwrite: request.overwrite, timeRange: range, timeline: .trim(range), lanes: lanes,
                                  selectiveDecode: request.selectiveDecode, metadata: kept.metadata, kept: kept)
        plan.protectedFiles = request.protectedFiles
        plan.chains = lanes.map { StageChain.single(track: $0.track.index, timeline: plan.timeline) }
        if let composed {
            // Per lane, per segment: the track its file gives (none: black or silence there).
            // A lane takes only the segments of its list: video lanes the video list's, audio
            // lanes the audio list's, or the video list's when there is no audio list.
            // An audio lane also takes every `mix:` input's segments (layer ≥ 1); video lanes never.
            let ownAudio = zip(composed.lists, composed.layers).contains { $0 == .audio && $1 == 0 }
            let perSegment = zip(trackMap, lanes).map { bySource, lane in
                composed.timeline.segments.enumerated().map { k, segment -> Int? in
                    let audioLane = lane.track.mediaType == .audio
                    if composed.layers[k] > 0 {
                        // A mix input is sound only, a layer pictures only.
                        guard composed.lists[k] == .audio ? audioLane : lane.track.mediaType == .video else { return nil }
                        if let own = ownTracks[composed.requests[k]], own.kind == .audio { return own.index }
                        return bySource[segment.source]
                    }
                    let list: SegmentRequest.List = audioLane && ownAudio ? .audio : .video
                    guard composed.lists[k] == list else { return nil }
                    if let own = ownTracks[composed.requests[k]], own.kind == lane.track.mediaType { return own.index }
                    return bySource[segment.source]
                }
            }
            // A layer's segment whose file has no pictures draws nothing: said, not silent.
            let requests = request.timeline ?? []
            for k in composed.timeline.segments.indices where composed.lists[k] == .video && composed.layers[k] > 0 {
                let videoLanes = zip(perSegment, lanes).filter { $0.1.track.mediaType == .video }
                guard !videoLanes.isEmpty, videoLanes.allSatisfy({ $0.0[k] == nil }) else { continue }
                let i = composed.requests[k], r = requests[i], file = assets[r.source].path
                let n = requests[...i].filter { $0.list == r.list && $0.layer == r.layer }.count
                plan.notices.append(PlanNotice(.dropped, "composition.\(SegmentRequest.trackKey(list: r.list, layer: r.layer)).\(n)", file: r.source == 0 ? nil : file,
                                               "\(SegmentRequest.name(n, list: r.list, layer: r.layer)): \(file) has no pictures, so the layer shows nothing there"))
            }
            plan = plan.composed(composed.timeline, sources: extras, tracks: perSegment, layers: composed.layers)
            plan.audioStretches = composed.audioStretches
            plan.segmentLists = composed.lists
            /// The mix the sound gets when it cross-fades with the pictures.
            var crossFadeMix: AudioMix?
            if let drawn = request.videoComposition, let settings = lanes.lazy.compactMap(\.videoSettings).first {
                let render = renderFrame ?? (settings.width, settings.height)
                try LayerBound.check(composed, requests: request.timeline ?? [], limit: drawn.layerLimit)
                let layered = try VideoLayerPlan.plan(drawn, composed: composed, requests: request.timeline ?? [], render: render,
                                                      output: (settings.width, settings.height), file: src)
                plan.videoLayers = layered.layers
                plan.crossFades = layered.crossFades
                plan.segmentVideoLayers = layered.segmentLayers
                plan.background = drawn.background
                // The video lanes read the segments a cross-fade lengthens as lengthened.
                for lane in plan.chains.indices where lanes[lane].videoSettings != nil {
                    for i in plan.chains[lane].inputs.indices {
                        let input = plan.chains[lane].inputs[i]
                        guard let longer = layered.lengthened[input.segment] else { continue }
                        plan.chains[lane].inputs[i].timeline = TimeMapping([longer.withTrack(input.track)])
                        plan.chains[lane].inputs[i].holdsEdges = true
                    }
                }
                // The sound that follows the pictures cross-fades with them: its segments on the
                // upper roll are one more mix input, both rolls lengthened as the pictures are
                // (silence where a file has no sound there), with equal-power ramps.
                if !ownAudio, !layered.crossFades.isEmpty, lanes.contains(where: { $0.track.mediaType == .audio }) {
                    var mix = request.audioMix ?? AudioMix(volumes: [nil])
                    let upper = mix.volumes.count
                    let (lowerVolume, upperVolume) = CrossFade.soundVolumes(layered.crossFades)
                    mix.volumes[0] = lowerVolume
                    mix.volumes.append(upperVolume)
                    while mix.fades.count < upper { mix.fades.append(AudioMix.InputFade(in: nil, out: nil)) }
                    mix.fades.append(AudioMix.InputFade(in: nil, out: nil))
                    mix.crossFadeInput = upper
                    crossFadeMix = mix
                    for lane in plan.chains.indices where lanes[lane].track.mediaType == .audio {
                        for i in plan.chains[lane].inputs.indices {
                            let input = plan.chains[lane].inputs[i]
                            guard composed.lists[input.segment] == .video, composed.layers[input.segment] == 0 else { continue }
                            if layered.segmentLayers[input.segment] == 1 { plan.chains[lane].inputs[i].mixInput = upper }
                            if let longer = layered.lengthened[input.segment] {
                                plan.chains[lane].inputs[i].timeline = TimeMapping([longer.withTrack(input.track)])
                            }
                        }
                    }
                }
            }
            for (k, segment) in composed.timeline.segments.enumerated() {
                guard let own = ownTracks[composed.requests[k]], assets[segment.source].track(own.kind, ordinal: 0)?.index != own.index else { continue }
                plan.namedTracks[k] = own.index
            }
            // Dips at the cuts that ask for one: the cut is where the segment's first piece starts.
            // (`plan` numbers a dip's segment by its place on the timeline, the recipe by the list.)
            var cuts: [(segment: Int, at: MediaTime, transition: Transition)] = []
            var places: [Int: Int] = [:]
            var videoNumber = 0
            for (i, r) in (request.timeline ?? []).enumerated() where r.list == .video && r.layer == 0 {
                videoNumber += 1
                guard let t = r.transition, let k = composed.requests.firstIndex(of: i) else { continue }
                cuts.append((videoNumber, composed.timeline.segments[k].targetStart, t))
                places[videoNumber] = k + 1
            }
            plan.pictureFades = try PictureFade.plan(fadeIn: request.fade?.in, fadeOut: request.fade?.out, end: plan.duration, cuts: cuts, file: src)
            for f in plan.pictureFades.indices { plan.pictureFades[f].timelineSegment = plan.pictureFades[f].segment.flatMap { places[$0] } }
            if var mix = crossFadeMix ?? request.audioMix ?? (plan.outputFade != nil ? AudioMix(volumes: [nil]) : nil) {
                // Each input's fades where it plays, from its first segment's start to its last
                // one's end: the composition's sound where its audio list (else the video list)
                // places it — an audio list shorter than the pictures fades out where it ends —
                // a mix input where its segments are.
                var spans: [Int: (start: MediaTime, end: MediaTime)] = [:]
                let soundList: SegmentRequest.List = ownAudio ? .audio : .video
                for (k, segment) in composed.timeline.segments.enumerated()
                where composed.lists[k] == .audio && composed.layers[k] > 0 || composed.lists[k] == soundList && composed.layers[k] == 0 {
                    let j = composed.layers[k], range = segment.targetRange
                    let old = spans[j] ?? (range.start, range.end)
                    spans[j] = (MediaTime.min(old.start, range.start), MediaTime.max(old.end, range.end))
                }
                mix.resolveFades(spans)
                mix.master = plan.outputFade
                plan.audioMix = mix
            }
            plan.notices += composed.notices
        }
        if let timeNotice {
            plan.requestedTimeRange = wantedRange.map { $0.intersection(whole) }
            plan.notices.append(timeNotice)
        }
        plan.notices += keptNotices
        plan.notices += lanes.flatMap { HDRNotices.notices(for: $0, format: format) }
        plan.notices += IgnoredSettings.notices(request.tracks, lanes: lanes)
        // Everything the run opens is opened now, so what it would refuse is refused before
        // any decoding; what the encoders really make replaces what was only asked of them.
        let rehearsal = try Rehearsal.run(plan)
        plan.lanes = zip(plan.lanes, rehearsal.profiles).map { lane, real in lane.withEncoderProfile(real) }
        return plan
    }

    private static func isCopy(_ m: TrackMode) -> Bool {
        switch m {
        case .passthrough: return true
        case .subtitle: return false
        case .video(let s): return s.codec == .copy
        case .audio(let s): return s.codec == .copy
        }
    }

    private static func checkDecodable(_ track: Track, file: String) throws(MediaError) {
        if !CodecSupport.canDecode(track.format.codec) {
            throw MediaError(.unsupported, "the \(track.mediaType.rawValue) codec '\(track.format.codec)' cannot be decoded by this FFmpeg build", file: file, track: track.index)
        }
    }

    private static func checkPassthrough(_ track: Track, format: ContainerFormat, source: String) throws(MediaError) {
        if !CodecSupport.canCopy(track.format.codec, into: format) {
            throw MediaError(.unsupported, "\(track.format.codec) cannot be copied into \(format.rawValue) as it is: reencode it instead", file: source, track: track.index)
        }
    }
}
