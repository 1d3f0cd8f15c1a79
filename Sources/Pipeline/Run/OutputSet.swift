import Recipe

/// Several outputs written from one read (a rendition ladder, a proxy beside an archive copy):
/// which output tracks share a reading and a decode, and the reading they share. An output
/// track shares its lane with an earlier one whose decoded frames are the same — the same source
/// track decoded for the same frame rate and deinterlacing, or the same track's sound on the same
/// sample clock; every other track (a copied one, one conformed to another rate) reads its own
/// output of the same reader. Outputs of a composition take every track from the first output's
/// lanes, which play the timeline once (`compositionRefusal` says when they cannot).
public enum OutputSet {
    /// Output tracks made from one reading and decode, and the source stream they read.
    struct Feed {
        /// (output, output track), the first of which makes the source stage.
        var members: [(plan: Int, lane: Int)]
        let stream: Int
        /// Members (positions in `members`) whose tracks are one encode written into each of
        /// their files, in order of their first member: see `encodes(_:_:)`.
        var encodes: [[Int]] = [[0]]
    }

    /// Refuses outputs that cannot share one read: they must read one file over one time range,
    /// or all play one composition whose tracks the first output makes for them all.
    static func check(_ plans: [ConversionPlan]) throws(MediaError) {
        guard let first = plans.first, plans.count > 1 else { return }
        for p in plans where p.isComposed != first.isComposed {
            throw MediaError(.processing, "outputs of one read either all play the composition or none does", file: p.outputPath)
        }
        if let refusal = compositionRefusal(plans) {
            let p = plans[refusal.output]
            throw MediaError(.processing, refusal.reason, file: p.outputPath, track: p.lanes[refusal.track].track.index)
        }
        for p in plans.dropFirst() where p.source.path != first.source.path || p.timeRange != first.timeRange || p.selectiveDecode != first.selectiveDecode {
            throw MediaError(.processing, "it reads \(p.source.path) over \(p.timeRange), not what \(first.outputPath) reads (\(first.source.path) over \(first.timeRange)): outputs of one read read alike",
                             file: p.outputPath)
        }
        var seen: Set<String> = []
        for p in plans where !seen.insert(p.outputPath).inserted {
            throw MediaError(.usage, "two outputs of one read are the same file", file: p.outputPath)
        }
    }

    /// Why a later output cannot take a track from the first output's composition (nil: every
    /// one can). The first output's lanes play the timeline — read, drawn and mixed once — and
    /// the others' sinks take what they make: so each later track must be one the first output
    /// writes, at its frame or sample rate; with layers, no larger than the first output's canvas
    /// and in its colours (the layers are drawn and tone-mapped once, on that canvas). 0-based.
    public static func compositionRefusal(_ plans: [ConversionPlan]) -> (output: Int, track: Int, reason: String)? {
        guard plans.count > 1, let lead = plans.first, lead.isComposed else { return nil }
        for (k, plan) in plans.enumerated().dropFirst() {
            for (j, lane) in plan.lanes.enumerated() {
                let kind = lane.track.mediaType.rawValue
                guard let first = lead.lanes.first(where: { $0.track.mediaType == lane.track.mediaType && $0.track.index == lane.track.index }) else {
                    return (k, j, "output \(k + 1) writes the composition's \(kind), which output 1 does not: output 1 plays the composition for every output, so it writes every track another output writes")
                }
                if let why = unlike(lane, first, layered: !lead.videoLayers.isEmpty) {
                    return (k, j, "output \(k + 1)'s \(kind) \(why)")
                }
            }
        }
        return nil
    }

    /// How `lane` differs from `first`, the first output's like track, in what it would have to
    /// make for itself (nil: it takes `first`'s pictures or sound as they are).
    private static func unlike(_ lane: LanePlan, _ first: LanePlan, layered: Bool) -> String? {
        switch (lane.kind, first.kind) {
        case (.video(let s), .video(let f)):
            if s.frameRate != f.frameRate || s.deinterlace != f.deinterlace {
                return "is at \(s.frameRate.map { "\($0) fps" } ?? "the sources' rate"), output 1's at \(f.frameRate.map { "\($0) fps" } ?? "the sources' rate"): the outputs of a composition show its pictures at one frame rate"
            }
            guard layered else { return nil }
            if s.width > f.width || s.height > f.height {
                return "is \(s.width)x\(s.height), larger than output 1's \(f.width)x\(f.height), the canvas the composition's layers are drawn on once for every output: list the largest output first"
            }
            if s.toneMapping != f.toneMapping || s.colorMatrix != f.colorMatrix || s.colorPrimaries != f.colorPrimaries
                || s.colorTransfer != f.colorTransfer || s.colorRange != f.colorRange {
                return "is in other colours than output 1's (\(colours(s)), not \(colours(f))), whose canvas the composition's layers are drawn and tone-mapped on once for every output: give the outputs the same 'hdr' and colour settings"
            }
            return nil
        case (.audio(let s), .audio(let f)):
            guard s.sampleRate != f.sampleRate else { return nil }
            return "is at \(s.sampleRate) Hz, output 1's at \(f.sampleRate) Hz: the outputs of a composition mix its sound at one sample rate"
        case (.passthrough, _) where lane.track.mediaType == .video, (_, .passthrough) where first.track.mediaType == .video:
            return "is \(lane.isCopy ? "copied" : "encoded") and output 1's \(first.isCopy ? "copied" : "encoded"): the composition's copied pictures are joined for one output only, and drawn pictures for outputs that all encode them; encode the video in every output, or copy it in a recipe of its own"
        default:
            return "is copied or a subtitle track, which a composition does not play"
        }
    }

    /// `bt709/bt709/bt709 tv, tone-mapped` for a message.
    private static func colours(_ s: ResolvedVideoSettings) -> String {
        let tags = [s.colorPrimaries, s.colorTransfer, s.colorMatrix].map { $0 ?? "unknown" }.joined(separator: "/") + " " + (s.colorRange ?? "tv")
        return s.toneMapping == nil ? tags : tags + ", tone-mapped"
    }

    /// Per lane of the run, the (output, output track) pairs it feeds, 0-based: what `plan` shows.
    public static func lanes(_ plans: [ConversionPlan]) -> [[(output: Int, track: Int)]] {
        feeds(plans).map { $0.members.map { ($0.plan, $0.lane) } }
    }

    /// Per lane of the run, its encodes: the (output, output track) pairs each writes, 0-based.
    public static func encodes(_ plans: [ConversionPlan]) -> [[[(output: Int, track: Int)]]] {
        feeds(plans).map { feed in feed.encodes.map { group in group.map { (feed.members[$0].plan, feed.members[$0].lane) } } }
    }

    /// The run's lanes: one plan's lanes as they are; several plans' grouped where they share.
    static func feeds(_ plans: [ConversionPlan]) -> [Feed] {
        var feeds: [Feed] = []
        var shared: [ShareKey: Int] = [:]
        for (k, plan) in plans.enumerated() {
            let streams = plan.readerGroups.first?.streams ?? []
            for (i, lane) in plan.lanes.enumerated() {
                let key = plans.count > 1 ? ShareKey(lane) : nil
                if let key, let f = shared[key] {
                    feeds[f].members.append((k, i))
                    continue
                }
                if let key { shared[key] = feeds.count }
                feeds.append(Feed(members: [(k, i)], stream: streams.indices.contains(i) ? streams[i] : lane.track.index))
            }
        }
        for f in feeds.indices { feeds[f].encodes = encodes(feeds[f], plans) }
        return feeds
    }

    /// A feed's members grouped by encode: tracks given the same frames with the same settings
    /// into containers that want the codec's headers alike are encoded once, and each packet is
    /// written into every one of their files (an audio track three renditions share, one
    /// rendition in MP4 and MKV). The others encode on their own.
    private static func encodes(_ feed: Feed, _ plans: [ConversionPlan]) -> [[Int]] {
        var groups: [[Int]] = []
        var byKey: [EncodeKey: Int] = [:]
        for (m, member) in feed.members.enumerated() {
            let plan = plans[member.plan]
            if let key = EncodeKey(plan.lanes[member.lane], plan), let g = byKey[key] {
                groups[g].append(m)
                continue
            }
            if let key = EncodeKey(plan.lanes[member.lane], plan) { byKey[key] = groups.count }
            groups.append([m])
        }
        return groups
    }

    /// What makes two output tracks of one feed one encode (nil: a track that is not encoded).
    /// A composition's pictures and fades are the same for every output (the first output plays
    /// it), and a source track's pictures are handed over as decoded: so the settings decide,
    /// with the container's wish for the codec's headers out of band (`globalHeader`).
    private struct EncodeKey: Hashable {
        let video: ResolvedVideoSettings?
        let audio: ResolvedAudioSettings?
        let globalHeader: Bool

        init?(_ lane: LanePlan, _ plan: ConversionPlan) {
            switch lane.kind {
            case .video(let s): (video, audio) = (s, nil)
            case .audio(let s): (video, audio) = (nil, s)
            case .passthrough, .subtitle: return nil
            }
            globalHeader = plan.format.needsGlobalHeader
        }
    }

    /// The readers of the run: one plan's own; several plans' one reading of the source, one
    /// reader output per feed.
    static func readers(_ plans: [ConversionPlan], feeds: [Feed]) -> ReaderPool {
        // A composition's reading is the first output's: it plays the timeline for every output.
        guard plans.count > 1, !plans[0].isComposed, let g = plans[0].readerGroups.first else { return plans[0].makeReaders() }
        return ReaderPool(groups: [ReaderPool.Group(source: g.source, streams: feeds.map(\.stream), lanes: Array(feeds.indices), start: g.start)])
    }

    /// Per still-image output, the feed whose decode it takes its frames from (nil: decoded on
    /// its own): the first that decodes its video track and hands over every picture at the
    /// source's own times — no frame-rate conversion, deinterlacing or layers in between; for
    /// stills of a composition, the feed of the video track that plays it.
    public static func stillFeeds(_ plans: [ConversionPlan], stills: [StillPlan]) -> [Int?] {
        let feeds = feeds(plans)
        return stills.map { still in
            // A composition's stills: the feed its video track leads (it draws the pictures).
            if let c = still.composition {
                // Drawn for the stills alone: no output's track draws them.
                guard c.alone == nil else { return nil }
                return feeds.firstIndex { $0.members[0].plan == c.output && $0.members[0].lane == c.lane }
            }
            return feeds.firstIndex { feed in
                let (k, i) = feed.members[0]
                let plan = plans[k], lane = plan.lanes[i]
                guard case .video(let s) = lane.kind, !plan.isComposed, plan.videoLayers.isEmpty else { return false }
                return plan.source.path == still.source && lane.track.index == still.track.index && s.frameRate == nil && s.deinterlace == nil
            }
        }
    }

    /// What makes two output tracks' decoded frames the same (nil: a track nothing shares).
    private enum ShareKey: Hashable {
        case video(track: Int, rate: FrameRate?, deinterlace: DeinterlaceRate?)
        case audio(track: Int, rate: Int)

        init?(_ lane: LanePlan) {
            switch lane.kind {
            case .video(let s): self = .video(track: lane.track.index, rate: s.frameRate, deinterlace: s.deinterlace)
            case .audio(let s): self = .audio(track: lane.track.index, rate: s.sampleRate)
            case .passthrough, .subtitle: return nil
            }
        }
    }
}
