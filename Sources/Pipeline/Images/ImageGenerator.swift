import Recipe

/// Makes the stills a `StillPlan` names (AVAssetImageGenerator's image generation). The frames
/// are decoded in groups that share a sync sample: the stream is positioned at that sample, and
/// packets go to the decoder in decode order only up to the last frame the group shows — those
/// frames and what they reference, no picture that nothing references (`Droppability`), nothing
/// after — then the decoder is drained. A keyframe still decodes its sync sample alone. Each
/// frame is made SDR where HDR, drawn upright at its display aspect into the still's size and
/// encoded (`StillEncoder`) — a file each, or a tile of one contact sheet (`StillSheets`); the
/// files appear all together, or none (`StillFiles`).
public enum ImageGenerator {
    /// What decoding took, for checks: packets handed to the decoder, and those read but not.
    public struct Statistics: Sendable, Equatable {
        public var packetsDecoded = 0
        public var packetsSkipped = 0
        /// The sync samples decoding started from, on the source's timeline, in order.
        public var decodedFrom: [MediaTime] = []
        /// How many times the source was opened to decode from (`StreamCursor`).
        public var filesOpened = 0
    }

    /// `isCancelled` is asked between packets and files: a stop removes everything written (`.cancelled`).
    @discardableResult
    public static func run(_ plan: StillPlan, isCancelled: @escaping () -> Bool = { false }) throws(MediaError) -> Statistics {
        try run([plan], isCancelled: isCancelled)[0]
    }

    /// Several plans' stills (a recipe's image outputs), each decoded on its own; all their
    /// files appear together, or none.
    @discardableResult
    public static func run(_ plans: [StillPlan], isCancelled: @escaping () -> Bool = { false }) throws(MediaError) -> [Statistics] {
        try run(plans, cancellation: Cancellation(), isCancelled: isCancelled)
    }

    /// `cancellation` also stops the drawing of a composition's stills (`ComposedStillDrawing`).
    static func run(_ plans: [StillPlan], cancellation: Cancellation, isCancelled: @escaping () -> Bool) throws(MediaError) -> [Statistics] {
        let files = StillFiles()
        var statistics: [Statistics] = []
        do throws(MediaError) {
            // A composition's stills: its video drawn once for all of them (no decode of their own).
            let drawn = try plans.filter { $0.composition != nil }.map { (plan) throws(MediaError) in try StillMaker(plan, into: files) }
            try ComposedStillDrawing.draw(drawn, cancellation: cancellation)
            for maker in drawn {
                do throws(MediaError) { try maker.finish() } catch { throw error.at(file: maker.plan.source) }
            }
            for plan in plans {
                guard plan.composition == nil else { statistics.append(Statistics()); continue }
                do throws(MediaError) { statistics.append(try make(plan, into: files, isCancelled: isCancelled)) } catch { throw error.at(file: plan.source) }
            }
            try files.commit(isCancelled: isCancelled)
            return statistics
        } catch {
            files.discard()
            throw error
        }
    }

    private static func make(_ plan: StillPlan, into files: StillFiles, isCancelled: @escaping () -> Bool) throws(MediaError) -> Statistics {
        let maker = try StillMaker(plan, into: files)
        let statistics = try decodeMissing(maker, isCancelled: isCancelled)
        try maker.finish()
        return statistics
    }

    /// Decodes the frames `maker` still lacks, group by group from their sync samples, and hands
    /// each to it (a decode beside renditions may have handed it the others already).
    static func decodeMissing(_ maker: StillMaker, isCancelled: @escaping () -> Bool) throws(MediaError) -> Statistics {
        let plan = maker.plan
        var statistics = Statistics()
        var decoder: Decoder?
        let cursor = StreamCursor(path: plan.source, stream: plan.track.index)
        let missing = maker.missing
        let groups = Dictionary(grouping: missing) { frame in plan.origin + maker.byFrame[frame]![0].decodeFrom }
        for sync in groups.keys.sorted() {
            let targets = Set(groups[sync]!)
            let packets = try positioned(at: sync, plan: plan, cursor: cursor)
            if decoder == nil { decoder = try packets.decoder() }
            guard let decoder else { break }
            decoder.flush()
            statistics.decodedFrom.append(sync - plan.origin)
            let take = { (frame: Frame) throws(MediaError) in
                let t = packets.time(of: frame)
                guard targets.contains(t) else { return }
                try maker.take(frame, at: t, isCancelled: isCancelled)
            }
            try decodeGroup(packets, decoder: decoder, sync: sync, targets: targets, statistics: &statistics, isCancelled: isCancelled, take: take)
            if let lost = targets.intersection(maker.missing).min() {
                throw MediaError(.processing, "the frame at \((lost - plan.origin).secondsDescription) did not come out of the decoder",
                                 track: plan.track.index)
            }
        }
        statistics.filesOpened = cursor.opens
        return statistics
    }

    /// Sends the group's packets from its sync sample (read last by `positioned`) up to its
    /// last target, then drains the decoder; `take` sees every picture that comes out.
    private static func decodeGroup(_ packets: StreamPackets, decoder: Decoder, sync: MediaTime, targets: Set<MediaTime>,
                                    statistics: inout Statistics, isCancelled: () -> Bool,
                                    take: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        var unsent = targets
        let judge = packets.droppability
        func send() throws(MediaError) {
            statistics.packetsDecoded += 1
            while try !decoder.send(packets.packet) {
                while let f = try decoder.receive() { try take(f) }
            }
            while let f = try decoder.receive() { try take(f) }
        }
        unsent.remove(sync)
        try send()
        while !unsent.isEmpty {
            if isCancelled() { throw MediaError.cancelled() }
            guard let timing = try packets.next() else { break }
            if unsent.remove(timing.pts) != nil || !packets.isDroppable(judge) {
                try send()
            } else {
                statistics.packetsSkipped += 1
            }
        }
        _ = try decoder.send(nil)
        while let f = try decoder.receive() { try take(f) }
    }

    /// The stream read up to the sync sample `sync` (the packet read last). A seek is only a guess
    /// where the file has no index (MPEG-TS): it goes back further (1, 2, 4 … 32 s, then the
    /// file's start) until the sample is met before anything decoding after it.
    private static func positioned(at sync: MediaTime, plan: StillPlan, cursor: StreamCursor) throws(MediaError) -> StreamPackets {
        var back = MediaTime.zero
        while true {
            let target = sync - back
            let fromStart = target <= plan.fileStart || back > MediaTime(value: 32, timescale: 1)
            let packets = try fromStart ? cursor.fromStart() : cursor.seeked(to: target, rounding: .up)
            var read = 0
            while let p = try packets.next(), read < FrameStartScan.approachLimit {
                read += 1
                if p.isSync && p.pts == sync { return packets }
                if p.dts.isNumeric ? p.dts > sync : p.pts > sync + MediaTime(value: 1, timescale: 2) { break }
            }
            if fromStart {
                throw MediaError(.notMedia, "its sync sample at \((sync - plan.origin).secondsDescription) is gone: the file has changed since it was planned",
                                 track: plan.track.index)
            }
            back = back == .zero ? MediaTime(value: 1, timescale: 1) : back * 2
        }
    }
}
