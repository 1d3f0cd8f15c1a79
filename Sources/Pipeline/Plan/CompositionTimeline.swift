import Recipe

/// Resolves a composition's segments, each against its own file: a range's open end (or an end
/// past the file's, with a warning) is the file's end; its ends are snapped to frame starts as a
/// trim's are (TrimSnap: the output's frames for a segment at speed 1, the source's own frames
/// for a scaled one, whose every source frame is shown, or one playing the source's slow motion);
/// segments are laid end to end unless one says `at`, the video list and an audio list each on
/// their own. A `slow-motion: from-source` segment becomes the pieces of the phone's timeline
/// (`SlowMotionExpansion`).
enum CompositionTimeline {
    struct Result {
        let timeline: TimeMapping
        let notices: [PlanNotice]
        /// The scaled segments (indices) and the `audio-stretch:` method their sound takes.
        let audioStretches: [Int: AudioStretch]
        /// Per timeline segment, the list it came from: a video lane plays the video list's, an
        /// audio lane the audio list's, or the video list's when there is none.
        let lists: [SegmentRequest.List]
        /// Per timeline segment, the request it came from (a phone's slow motion makes several of one).
        let requests: [Int]
        /// Per timeline segment, its mix input (audio list) or layer (video list); 0: the list itself.
        let layers: [Int]
    }

    /// One composition track: its list, and its mix input.
    private struct TrackKey: Hashable {
        let list: SegmentRequest.List
        let layer: Int
    }

    /// `assets[k]` is source k (`SegmentRequest.source`), `lanes[i]` the plan's lanes as request i
    /// reads its file (the tracks its frame starts are found in).
    static func resolve(_ requests: [SegmentRequest], assets: [Asset], lanes lanesByRequest: [[LanePlan]]) throws(MediaError) -> Result {
        guard let first = assets.first else { throw MediaError(.invalidSettings, "the composition has no sources") }
        guard !requests.isEmpty else { throw MediaError(.invalidSettings, "the composition has no segments", file: first.path) }
        let lanes = lanesByRequest.flatMap { $0 }
        let hasAudio = lanes.contains { if case .audio = $0.kind { return true } else { return false } }
        var segments: [TimeSegment] = []
        var notices: [PlanNotice] = []
        var ends: [TrackKey: MediaTime] = [:]
        var audioStretches: [Int: AudioStretch] = [:]
        var lists: [SegmentRequest.List] = []
        var from: [Int] = []
        var layers: [Int] = []
        var numbers: [TrackKey: Int] = [:]
        // With an audio list, the audio lanes play it and the video list is pictures only.
        let ownAudio = requests.contains { $0.list == .audio && $0.layer == 0 }
        for (i, r) in requests.enumerated() {
            let key = TrackKey(list: r.list, layer: r.layer)
            let n = (numbers[key] ?? 0) + 1
            numbers[key] = n
            let previousEnd = ends[key] ?? .zero
            let name = SegmentRequest.name(n, list: r.list, layer: r.layer)
            // A layer's sound is not played (the video list's is, without an audio list).
            let soundFollows = r.list == .audio || (!ownAudio && r.layer == 0)
            guard assets.indices.contains(r.source), lanesByRequest.indices.contains(i) else {
                throw MediaError(.invalidSettings, "\(name) names no source of the plan", file: first.path)
            }
            let asset = assets[r.source]
            let src = asset.path
            // A segment to the file's end ends where its last picture stops being shown.
            var whole = asset.mediaRange
            if r.end.map({ e in (try? asset.startTime.adding(e)).map { $0 >= whole.end } ?? false }) ?? true,
               let video = LastPictureEnd.encodedVideo(lanesByRequest[i]) {
                whole = LastPictureEnd.extending(whole, fileEnd: whole.end, asset: asset, track: video)
            }
            // A notice about this segment's range names its own file (nil: the plan's source) and
            // its list: `composition.segment.N`, `composition.audio-segment.N`, `composition.mix-J-segment.N`.
            let about = r.source == 0 ? nil : src
            let noticeKey = "composition.\(SegmentRequest.trackKey(list: r.list, layer: r.layer)).\(n)"
            func refuse(_ field: SegmentField.Name, _ message: String) -> MediaError {
                MediaError(.invalidSettings, "\(name): \(message)", file: src, segment: SegmentField(n, field, list: r.list, layer: r.layer))
            }
            guard r.start.isNumeric, r.start >= .zero, r.end.map({ $0.isNumeric && $0 > r.start }) ?? true else {
                throw refuse(.start, "its range is not valid")
            }
            let start: MediaTime, askedEnd: MediaTime?
            do throws(MediaTimeOverflow) {
                start = try asset.startTime.adding(r.start)
                askedEnd = try r.end.map { e throws(MediaTimeOverflow) in try asset.startTime.adding(e) }
            } catch { throw MediaError(error, file: src) }
            if whole.end.isNumeric, start >= whole.end {
                throw refuse(.start, "it starts at \(r.start.secondsDescription), at or after the end of \(src) (\(asset.duration.secondsDescription))")
            }
            if let e = askedEnd, e.isNumeric, whole.end.isNumeric, e > whole.end, let asked = r.end {
                // Said, not silently shortened: the timeline after it moves up.
                notices.append(PlanNotice(.changed, noticeKey, file: about,
                                          "\(name) asks for \(src) up to \(asked.secondsDescription), but the file ends at \(asset.duration.secondsDescription): it plays to the file's end"))
            }
            let scale: TimeScale
            var speed = SegmentSpeed.normal
            if case .speed(let s)? = r.timing { speed = s }
            let wanted = TimeRange(start: start, end: askedEnd.map { MediaTime.min($0, whole.end) } ?? whole.end)
            let isScaled: Bool
            switch r.timing {
            case .speed(let s)?: isScaled = !s.isNormal
            case .targetDuration?: isScaled = true  // decided below, from the snapped range
            case nil: isScaled = false
            }
            let snapped = try TrimSnap.snap(wanted, whole: whole, asset: asset, lanes: lanesByRequest[i], onSourceFrames: isScaled || r.slowMotion == .fromSource,
                                            subject: "\(name)'s range", key: noticeKey)
            let range = snapped.range
            if let n = snapped.notice { notices.append(PlanNotice(n.kind, n.item, track: n.sourceTrack, file: about, n.message)) }
            if case .targetDuration(let d)? = r.timing {
                guard let s = SegmentSpeed.playing(range.duration, in: d) else {
                    throw refuse(.speed, "'target-duration' needs a range whose length is known: give the segment an 'end'")
                }
                speed = s
            }
            guard let sc = TimeScale(speed.denominator, speed.numerator) else { throw refuse(.speed, "its speed \(speed) is not valid") }
            scale = sc
            // Never the sound played unscaled under scaled pictures: it is stretched (or muted).
            // (Recipes keep speeds within 1/32…32, inside the stretcher's 1/100…100.)
            if !scale.isIdentity && hasAudio && soundFollows { audioStretches[segments.count] = r.audioStretch }
            guard previousEnd.isNumeric else {
                throw refuse(.at, "segment \(n - 1) reads to the end of its file, whose length the file does not state, so nothing can follow it: give segment \(n - 1) an 'end'")
            }
            let targetStart = r.at ?? previousEnd
            if targetStart < previousEnd {
                throw refuse(.at, "it starts at \(targetStart.secondsDescription) on the timeline, before segment \(n - 1) ends (\(previousEnd.secondsDescription)): segments cannot overlap")
            }
            if r.slowMotion == .fromSource {
                let pieces = try SlowMotionExpansion.expand(range, at: targetStart, segment: n, asset: asset, sourceIndex: r.source, source: src,
                                                            hasAudio: hasAudio && soundFollows, audioStretch: r.audioStretch)
                for (j, method) in pieces.audioStretches { audioStretches[segments.count + j] = method }
                notices += pieces.notices
                segments += pieces.segments
                lists += Array(repeating: r.list, count: pieces.segments.count)
                from += Array(repeating: i, count: pieces.segments.count)
                layers += Array(repeating: r.layer, count: pieces.segments.count)
                ends[key] = pieces.end
                continue
            }
            let segment = TimeSegment(source: r.source, track: nil, sourceRange: range, targetStart: targetStart, scale: scale)
            ends[key] = try segment.targetEnd()
            segments.append(segment)
            lists.append(r.list)
            from.append(i)
            layers.append(r.layer)
        }
        // A mix input (music under a clip) or a layer (a picture in the picture) never makes the
        // timeline longer: it is cut where the video and audio lists end, and a segment of it
        // placed after that is not played.
        if layers.contains(where: { $0 > 0 }), let mainEnd = ends.filter({ $0.key.layer == 0 }).values.max(), mainEnd.isNumeric {
            var keep: [Int] = []
            for k in segments.indices {
                let s = segments[k]
                guard layers[k] > 0 else { keep.append(k); continue }
                guard s.targetStart < mainEnd else {
                    // Said, not dropped silently: a later video segment would have made room for it.
                    let r = requests[from[k]]
                    let n = requests[...from[k]].filter { $0.list == r.list && $0.layer == r.layer }.count
                    notices.append(PlanNotice(.dropped, "composition.\(SegmentRequest.trackKey(list: r.list, layer: r.layer)).\(n)", file: r.source == 0 ? nil : assets[r.source].path,
                                              "\(SegmentRequest.name(n, list: r.list, layer: r.layer)) starts at \(s.targetStart.secondsDescription) on the timeline, at or after its end (\(mainEnd.secondsDescription)): it is not played"))
                    continue
                }
                if try s.targetEnd() > mainEnd {
                    let sourceEnd = s.sourceRange.start + s.scale.inverse.apply(mainEnd - s.targetStart)
                    segments[k] = TimeSegment(source: s.source, track: s.track, sourceRange: TimeRange(start: s.sourceRange.start, end: sourceEnd),
                                              targetStart: s.targetStart, scale: s.scale)
                }
                keep.append(k)
            }
            var stretches: [Int: AudioStretch] = [:]
            for (new, old) in keep.enumerated() { stretches[new] = audioStretches[old] }
            audioStretches = stretches
            segments = keep.map { segments[$0] }
            lists = keep.map { lists[$0] }
            from = keep.map { from[$0] }
            layers = keep.map { layers[$0] }
        }
        guard ownAudio || layers.contains(where: { $0 > 0 }) else {
            return Result(timeline: TimeMapping(segments), notices: notices, audioStretches: audioStretches, lists: lists, requests: from, layers: layers)
        }
        // Two lists: their segments in the order they play (stably), so that readers are opened,
        // and let go, in time order across both lanes (`ReaderPool` lets a lane open only a few
        // segments beyond the oldest one not done).
        let order = segments.indices.sorted { a, b in
            segments[a].targetStart != segments[b].targetStart ? segments[a].targetStart < segments[b].targetStart : a < b
        }
        var stretches: [Int: AudioStretch] = [:]
        for (k, old) in order.enumerated() { stretches[k] = audioStretches[old] }
        return Result(timeline: TimeMapping(order.map { segments[$0] }), notices: notices, audioStretches: stretches,
                      lists: order.map { lists[$0] }, requests: order.map { from[$0] }, layers: order.map { layers[$0] })
    }
}

extension Asset {
    /// The file's whole time range: from its start for its stated length; a container that
    /// states no length (or 0) does not mean an empty file: to the end, however long.
    var wholeRange: TimeRange {
        let stated = duration.isNumeric && duration > .zero
        return TimeRange(start: startTime, duration: stated ? duration : .positiveInfinity)
    }

    /// The file's range as a composition plays it: to the latest end of its pictures and sound,
    /// each exact in its track's own time base. The container's stated length is rounded (MP4's
    /// up, to the millisecond): ten 30 fps frames state 0.334 s, and a slot at 0.3333 s would
    /// show the last frame twice at the cut. Without track lengths, the stated one.
    var mediaRange: TimeRange {
        let ends = tracks.filter { ($0.mediaType == .video && !$0.isAttachedPicture) || $0.mediaType == .audio }
            .compactMap { t -> MediaTime? in
                guard t.startTime.isNumeric, t.duration.isNumeric, t.duration > .zero else { return nil }
                return t.startTime + t.duration
            }
        guard let end = ends.max(), end > startTime else { return wholeRange }
        return TimeRange(start: startTime, end: end)
    }
}
