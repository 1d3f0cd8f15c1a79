import Recipe

/// The planner's first pass over the output tracks: which source track each writer input takes,
/// and whether this FFmpeg build and the container can do with it what is asked (decode it, or
/// copy it into the container). No settings are decided here.
enum TrackPass {
    /// One output track's source track.
    struct Chosen {
        let request: TrackRequest
        let track: Track
        /// Which of the plan's files the track is of (a composition may find a kind of track only
        /// in a later file; 0 otherwise).
        let home: Int
        /// The track's samples are copied, not decoded.
        var isCopy: Bool { TrackPass.isCopy(request.mode) }
    }

    static func resolve(_ files: PlanFiles) throws(MediaError) -> [Chosen] {
        let src = files.source
        var chosen: [Chosen] = []
        var used: Set<[Int]> = []
        for t in files.request.tracks {
            guard let (track, home) = find(t.selector, in: files) else {
                if t.optional { continue }
                throw MediaError(.notMedia, "has no \(t.selector) track", file: src)
            }
            guard used.insert([home, track.index]).inserted else {
                throw MediaError(.invalidSettings, "track #\(track.index) (\(t.selector)) is used twice", file: src)
            }
            let pick = Chosen(request: t, track: track, home: home)
            try check(pick, files: files)
            chosen.append(pick)
        }
        guard !chosen.isEmpty else { throw MediaError(.notMedia, "none of the requested tracks exist", file: src) }
        return chosen
    }

    /// The track a selector names. A composition's track of a kind: the first of its files (in
    /// the order they are shown) that has one.
    private static func find(_ selector: TrackSelector, in files: PlanFiles) -> (Track, Int)? {
        switch selector {
        case .type(let type, let n):
            if let track = files.asset.track(type, ordinal: n) { return (track, 0) }
            guard files.request.timeline != nil else { return nil }
            for k in files.usedSources where k > 0 {
                if let found = files.assets[k].track(type, ordinal: n) { return (found, k) }
            }
            return nil
        case .index(let i): return files.asset.track(index: i).map { ($0, 0) }
        }
    }

    /// What is asked of the track fits it: a copy the container can hold, a decoder for what is
    /// decoded, settings of the track's own kind, no pictures in an audio-only file.
    private static func check(_ pick: Chosen, files: PlanFiles) throws(MediaError) {
        let track = pick.track, src = files.source, format = files.format
        if !pick.isCopy { try checkDecodable(track, file: files.assets[pick.home].path) }
        switch (pick.request.mode, track.mediaType) {
        case _ where pick.isCopy:
            if track.mediaType == .subtitle { try SubtitleConversion.checkCopy(track, format: format, source: src) }
            if !format.holds.holdsAny(track.mediaType.rawValue) {
                throw MediaError(.unsupported, "\(format.article) \(format.rawValue) file holds \(format.holds.kindsText): the \(track.mediaType.rawValue) track cannot be copied into it", file: src, track: track.index)
            }
            if !format.holds.holds(track.format.codec, kind: track.mediaType.rawValue) || !CodecSupport.canCopy(track.format.codec, into: format) {
                throw MediaError(.unsupported, "\(track.format.codec) cannot be copied into \(format.rawValue) as it is: reencode it instead", file: src, track: track.index)
            }
        case (.video, .video), (.audio, .audio), (.subtitle, .subtitle):
            if !format.holds.holdsAny(track.mediaType.rawValue) {
                throw MediaError(.invalidSettings, "\(format.article) \(format.rawValue) file holds \(format.holds.kindsText); track #\(track.index) of \(src) is \(track.mediaType.rawValue)", file: files.output)
            }
        case (.video, let type), (.audio, let type), (.passthrough, let type), (.subtitle, let type):
            throw MediaError(.invalidSettings, "track #\(track.index) (\(pick.request.selector)) is \(type.rawValue), not what its settings are for", file: src)
        }
    }

    /// Every track a conversion decodes must have a decoder in this FFmpeg build.
    static func checkDecodable(_ track: Track, file: String) throws(MediaError) {
        if !CodecSupport.canDecode(track.format.codec) {
            throw MediaError(.unsupported, "the \(track.mediaType.rawValue) codec '\(track.format.codec)' cannot be decoded by this FFmpeg build", file: file, track: track.index)
        }
    }

    static func isCopy(_ m: TrackMode) -> Bool {
        switch m {
        case .passthrough: return true
        case .subtitle: return false
        case .video(let s): return s.codec == .copy
        case .audio(let s): return s.codec == .copy
        }
    }
}
