import Recipe

/// Several outputs written from one read (a rendition ladder, a proxy beside an archive copy):
/// which output tracks share a reading and a decode, and the reading they share. An output
/// track shares its lane with an earlier one whose decoded frames are the same — the same source
/// track decoded for the same frame rate and deinterlacing, or the same track's sound on the same
/// sample clock; every other track (a copied one, one conformed to another rate) reads its own
/// output of the same reader.
public enum OutputSet {
    /// Output tracks made from one reading and decode, and the source stream they read.
    struct Feed {
        /// (output, output track), the first of which makes the source stage.
        var members: [(plan: Int, lane: Int)]
        let stream: Int
    }

    /// Refuses outputs that cannot share one read: they must read one file over one time range,
    /// and be plain conversions (a composition writes one output).
    static func check(_ plans: [ConversionPlan]) throws(MediaError) {
        guard let first = plans.first, plans.count > 1 else { return }
        for p in plans where p.isComposed {
            throw MediaError(.processing, "a composition writes one output; this one is one of \(plans.count) from one read", file: p.outputPath)
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

    /// Per lane of the run, the (output, output track) pairs it feeds, 0-based: what `plan` shows.
    public static func lanes(_ plans: [ConversionPlan]) -> [[(output: Int, track: Int)]] {
        feeds(plans).map { $0.members.map { ($0.plan, $0.lane) } }
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
        return feeds
    }

    /// The readers of the run: one plan's own; several plans' one reading of the source, one
    /// reader output per feed.
    static func readers(_ plans: [ConversionPlan], feeds: [Feed]) -> ReaderPool {
        guard plans.count > 1, let g = plans[0].readerGroups.first else { return plans[0].makeReaders() }
        return ReaderPool(groups: [ReaderPool.Group(source: g.source, streams: feeds.map(\.stream), lanes: Array(feeds.indices), start: g.start)])
    }

    /// Per still-image output, the feed whose decode it takes its frames from (nil: decoded on
    /// its own): the first that decodes its video track and hands over every picture at the
    /// source's own times — no frame-rate conversion, deinterlacing or layers in between.
    public static func stillFeeds(_ plans: [ConversionPlan], stills: [StillPlan]) -> [Int?] {
        let feeds = feeds(plans)
        return stills.map { still in
            feeds.firstIndex { feed in
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
