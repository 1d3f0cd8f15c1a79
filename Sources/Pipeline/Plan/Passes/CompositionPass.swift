import Recipe

/// The planner's pass for a composition: its segments resolved into one timeline over all its
/// files (`resolve`, before the plan exists), then what the plan's lanes read from each segment,
/// its layers, cross-fades, fades and audio mix (`apply`).
enum CompositionPass {
    struct Resolved {
        let composed: CompositionTimeline.Result
        /// Per lane, per file: the track of the lane's kind it reads there (nil: none).
        let trackMap: [[Int?]]
    }

    static func resolve(_ files: PlanFiles, lanes: [LanePlan]) throws(MediaError) -> Resolved? {
        guard let segments = files.request.timeline else { return nil }
        let src = files.source, assets = files.assets
        guard files.request.timeRange == nil else { throw MediaError(.invalidSettings, "a composition has no time range: each segment has its own", file: src) }
        // A composition decodes and mixes its sound; its pictures may be copied (`CopyJoinPass`
        // checks the cuts and the files once the timeline is known).
        for lane in lanes where (lane.isCopy && lane.track.mediaType != .video) || lane.track.mediaType == .subtitle {
            let what = lane.track.mediaType == .subtitle ? "is subtitles, which a composition does not carry"
                : "is copied, but a composition's sound is decoded and mixed: only its pictures can be copied"
            throw MediaError(.invalidSettings, "track #\(lane.track.index) \(what)", file: src, track: lane.track.index)
        }
        let trackMap = CompositionSources.tracks(of: lanes, in: assets)
        // Per segment, the lanes as they read its file: a segment's own track, where it names
        // one, for the lanes of its kind. A mix input is read by the audio lanes only: its
        // file's pictures are not shown, so they neither cut its range nor need decoding.
        let byRequest = zip(segments, files.ownTracks).map { r, own in
            lanes.enumerated().compactMap { l, lane -> LanePlan? in
                if r.isMixInput, lane.track.mediaType != .audio { return nil }
                if r.isVideoLayer, lane.track.mediaType != .video { return nil }
                let index = own.flatMap { $0.kind == lane.track.mediaType ? $0.index : nil } ?? trackMap[l][r.source]
                return index.flatMap { assets[r.source].track(index: $0) }.map { LanePlan(track: $0, kind: lane.kind) }
            }
        }
        // Every file's track a lane decodes must be decodable: one that cannot be is refused now,
        // as a single file's is, not when the run reaches its segment.
        for (r, lanes) in zip(segments, byRequest) { for lane in lanes where !lane.isCopy { try TrackPass.checkDecodable(lane.track, file: assets[r.source].path) } }
        return Resolved(composed: try CompositionTimeline.resolve(segments, assets: assets, lanes: byRequest), trackMap: trackMap)
    }

    /// The plan made a composition's: its chains read the segments' files, and its layers,
    /// cross-fades, dips, fades and mix are placed on the timeline.
    static func apply(_ resolved: Resolved, to plan: inout ConversionPlan, files: PlanFiles,
                      renderFrame: (width: Int, height: Int)?) throws(MediaError) {
        let composed = resolved.composed, lanes = plan.lanes, assets = files.assets
        let requests = files.segments, ownTracks = files.ownTracks, src = files.source
        // Per lane, per segment: the track its file gives (none: black or silence there).
        // A lane takes only the segments of its list: video lanes the video list's, audio
        // lanes the audio list's, or the video list's when there is no audio list.
        // An audio lane also takes every `mix:` input's segments (layer ≥ 1); video lanes never.
        let ownAudio = zip(composed.lists, composed.layers).contains { $0 == .audio && $1 == 0 }
        let perSegment = zip(resolved.trackMap, lanes).map { bySource, lane in
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
        for k in composed.timeline.segments.indices where composed.lists[k] == .video && composed.layers[k] > 0 {
            let videoLanes = zip(perSegment, lanes).filter { $0.1.track.mediaType == .video }
            guard !videoLanes.isEmpty, videoLanes.allSatisfy({ $0.0[k] == nil }) else { continue }
            let i = composed.requests[k], r = requests[i], file = assets[r.source].path
            let n = requests[...i].filter { $0.list == r.list && $0.layer == r.layer }.count
            plan.notices.append(PlanNotice(.dropped, "composition.\(SegmentRequest.trackKey(list: r.list, layer: r.layer)).\(n)", file: r.source == 0 ? nil : file,
                                           "\(SegmentRequest.name(n, list: r.list, layer: r.layer)): \(file) has no pictures, so the layer shows nothing there"))
        }
        plan = plan.composed(composed.timeline, sources: files.extras, tracks: perSegment, layers: composed.layers)
        plan.audioStretches = composed.audioStretches
        plan.segmentLists = composed.lists
        let crossFadeMix = try drawLayers(composed, in: &plan, files: files, renderFrame: renderFrame, ownAudio: ownAudio)
        for (k, segment) in composed.timeline.segments.enumerated() {
            guard let own = ownTracks[composed.requests[k]], assets[segment.source].track(own.kind, ordinal: 0)?.index != own.index else { continue }
            plan.namedTracks[k] = own.index
        }
        // Dips at the cuts that ask for one: the cut is where the segment's first piece starts.
        // (`plan` numbers a dip's segment by its place on the timeline, the recipe by the list.)
        var cuts: [(segment: Int, at: MediaTime, transition: Transition)] = []
        var places: [Int: Int] = [:]
        var videoNumber = 0
        for (i, r) in requests.enumerated() where r.list == .video && r.layer == 0 {
            videoNumber += 1
            guard let t = r.transition, let k = composed.requests.firstIndex(of: i) else { continue }
            cuts.append((videoNumber, composed.timeline.segments[k].targetStart, t))
            places[videoNumber] = k + 1
        }
        let fade = files.request.fade
        plan.pictureFades = try PictureFade.plan(fadeIn: fade?.in, fadeOut: fade?.out, end: plan.duration, cuts: cuts, file: src)
        for f in plan.pictureFades.indices { plan.pictureFades[f].timelineSegment = plan.pictureFades[f].segment.flatMap { places[$0] } }
        if let mix = crossFadeMix ?? files.request.audioMix ?? (plan.outputFade != nil ? AudioMix(volumes: [nil]) : nil) {
            plan.audioMix = placed(mix, composed: composed, ownAudio: ownAudio, master: plan.outputFade)
        }
        plan.notices += composed.notices
    }

    /// A composition's pictures drawn as layers: their rectangles, cross-fades and the segments
    /// a cross-fade lengthens. Returns the mix the sound gets when it cross-fades with the pictures.
    private static func drawLayers(_ composed: CompositionTimeline.Result, in plan: inout ConversionPlan, files: PlanFiles,
                                   renderFrame: (width: Int, height: Int)?, ownAudio: Bool) throws(MediaError) -> AudioMix? {
        let lanes = plan.lanes, requests = files.segments
        guard let drawn = files.request.videoComposition, let settings = lanes.lazy.compactMap(\.videoSettings).first else { return nil }
        let render = renderFrame ?? (settings.width, settings.height)
        try LayerBound.check(composed, requests: requests, limit: drawn.layerLimit)
        let layered = try VideoLayerPlan.plan(drawn, composed: composed, requests: requests, render: render,
                                              output: (settings.width, settings.height), file: files.source)
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
        guard !ownAudio, !layered.crossFades.isEmpty, lanes.contains(where: { $0.track.mediaType == .audio }) else { return nil }
        var mix = files.request.audioMix ?? AudioMix(volumes: [nil])
        let upper = mix.volumes.count
        let (lowerVolume, upperVolume) = CrossFade.soundVolumes(layered.crossFades)
        mix.volumes[0] = lowerVolume
        mix.volumes.append(upperVolume)
        while mix.fades.count < upper { mix.fades.append(AudioMix.InputFade(in: nil, out: nil)) }
        mix.fades.append(AudioMix.InputFade(in: nil, out: nil))
        mix.crossFadeInput = upper
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
        return mix
    }

    /// Each mix input's fades where it plays, from its first segment's start to its last one's
    /// end: the composition's sound where its audio list (else the video list) places it — an
    /// audio list shorter than the pictures fades out where it ends — a mix input where its
    /// segments are.
    private static func placed(_ mix: AudioMix, composed: CompositionTimeline.Result, ownAudio: Bool, master: Keyframes?) -> AudioMix {
        var mix = mix
        var spans: [Int: (start: MediaTime, end: MediaTime)] = [:]
        let soundList: SegmentRequest.List = ownAudio ? .audio : .video
        for (k, segment) in composed.timeline.segments.enumerated()
        where composed.lists[k] == .audio && composed.layers[k] > 0 || composed.lists[k] == soundList && composed.layers[k] == 0 {
            let j = composed.layers[k], range = segment.targetRange
            let old = spans[j] ?? (range.start, range.end)
            spans[j] = (MediaTime.min(old.start, range.start), MediaTime.max(old.end, range.end))
        }
        mix.resolveFades(spans)
        mix.master = master
        return mix
    }
}
