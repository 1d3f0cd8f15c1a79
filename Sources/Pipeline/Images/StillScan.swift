import Recipe

/// Which source frame a still shows, found from the stream's packets alone (no decode), before
/// anything is decoded: the plan states it, and the run decodes exactly that.
enum StillScan {
    /// A frame of the source as a still shows it.
    struct Shown: Sendable, Equatable {
        /// Its presentation time, on the file's timeline.
        let time: MediaTime
        /// The sync sample decoding starts from (the frame itself when it is one).
        let decodeFrom: MediaTime
        /// A sync sample within the tolerance (nothing decoded past it) that is not the frame
        /// on display at the instant.
        let isKeyframe: Bool
    }

    /// What reading from one position found around an instant.
    private struct Around {
        /// Packets read, in decode order: presentation time and whether a sync sample.
        var read: [(pts: MediaTime, isSync: Bool)] = []
        /// The frame on display at the instant (the latest start at or before it), and the first after it.
        var atOrBefore: MediaTime?
        var after: MediaTime?
        /// The sync samples nearest the instant on either side.
        var syncAtOrBefore: MediaTime?
        var syncAfter: MediaTime?
    }

    /// The frame a still at `t` (on the file's timeline) shows; nil where the stream has no frame
    /// with a time near it. A seek can land after `t` where the file has no index (MPEG-TS): the
    /// reading goes back until a sync sample at or before it is seen; near the start, from the
    /// start, unseeked (a cut file may not seek at all).
    static func shown(at t: MediaTime, tolerance: StillTolerance, in cursor: StreamCursor, fileStart: MediaTime) throws(MediaError) -> Shown? {
        var back = MediaTime(value: 1, timescale: 1)
        while true {
            let target = t - back
            let fromStart = target <= fileStart || back > MediaTime(value: 32, timescale: 1)
            let packets = try fromStart ? cursor.fromStart() : cursor.seeked(to: target)
            guard let around = try read(packets, around: t, tolerance: tolerance) else { return nil }
            if let found = choose(around, t: t, tolerance: tolerance, fromStart: fromStart) { return found }
            if fromStart { return nil }
            back = back * 2
        }
    }

    /// The frames around `t` (on the file's timeline): the one on display at it (nil before the
    /// first) and the first after it (nil past the last); nil where the stream has no frame near
    /// it. Read back from further as `shown` is, until a frame at or before `t` is seen.
    static func frames(around t: MediaTime, in cursor: StreamCursor, fileStart: MediaTime) throws(MediaError) -> (atOrBefore: MediaTime?, after: MediaTime?)? {
        var back = MediaTime(value: 1, timescale: 1)
        while true {
            let target = t - back
            let fromStart = target <= fileStart || back > MediaTime(value: 32, timescale: 1)
            let packets = try fromStart ? cursor.fromStart() : cursor.seeked(to: target)
            guard let around = try read(packets, around: t, tolerance: .exact) else { return nil }
            if around.atOrBefore != nil || fromStart {
                return around.atOrBefore == nil && around.after == nil ? nil : (around.atOrBefore, around.after)
            }
            back = back * 2
        }
    }

    /// The keyframe within the tolerance nearest `t` (ties to the earlier), else the frame on
    /// display at `t` (before the first frame: the first) with the sync sample it decodes from;
    /// nil where what was read does not reach back to a sync sample before it (read from further
    /// back, unless `fromStart`).
    private static func choose(_ a: Around, t: MediaTime, tolerance: StillTolerance, fromStart: Bool) -> Shown? {
        if !fromStart && (a.syncAtOrBefore == nil || a.atOrBefore == nil) { return nil }
        let before = a.syncAtOrBefore.flatMap { t - $0 <= tolerance.before ? $0 : nil }
        let after = a.syncAfter.flatMap { $0 - t <= tolerance.after ? $0 : nil }
        let frame = a.atOrBefore ?? a.after
        let keyframe: MediaTime?
        switch (before, after) {
        case let (b?, f?): keyframe = t - b <= f - t ? b : f
        case let (k?, nil), let (nil, k?): keyframe = k
        case (nil, nil): keyframe = nil
        }
        // The frame on display at the instant is what it is, sync sample or not.
        if let keyframe { return Shown(time: keyframe, decodeFrom: keyframe, isKeyframe: keyframe != frame) }
        guard let frame, let at = a.read.firstIndex(where: { $0.pts == frame }) else { return nil }
        guard let sync = a.read[...at].last(where: { $0.isSync && $0.pts <= frame }) else {
            // A stream that starts between sync samples (a cut transport stream): nothing before
            // its first sync sample can be decoded whole, so that is the first frame it shows.
            guard fromStart, let first = a.read.first(where: { $0.isSync })?.pts ?? a.syncAfter else { return nil }
            return Shown(time: first, decodeFrom: first, isKeyframe: true)
        }
        return Shown(time: frame, decodeFrom: sync.pts, isKeyframe: false)
    }

    /// Reads from the current position until the frames around `t` and the sync samples within
    /// the tolerance are settled: packets come in decode order, and none presents before it
    /// decodes. nil: `t` is more than `FrameStartScan.approachLimit` packets away.
    private static func read(_ packets: StreamPackets, around t: MediaTime, tolerance: StillTolerance) throws(MediaError) -> Around? {
        var a = Around()
        var pastT = 0
        let half = MediaTime(value: 1, timescale: 2)
        while let p = try packets.next() {
            a.read.append((p.pts, p.isSync))
            if a.after != nil { pastT += 1 }
            if pastT >= FrameStartScan.packetLimit { break }
            if a.after == nil && a.read.count > FrameStartScan.approachLimit { return nil }
            guard p.pts.isNumeric else { continue }
            if p.pts <= t {
                if a.atOrBefore.map({ p.pts > $0 }) ?? true { a.atOrBefore = p.pts }
                if p.isSync, a.syncAtOrBefore.map({ p.pts > $0 }) ?? true { a.syncAtOrBefore = p.pts }
            } else {
                if a.after.map({ p.pts < $0 }) ?? true { a.after = p.pts }
                if p.isSync, a.syncAfter.map({ p.pts < $0 }) ?? true { a.syncAfter = p.pts }
            }
            // Without decode times (some Matroska files), half a second past is taken as settled.
            func settled(_ x: MediaTime) -> Bool { p.dts.isNumeric ? p.dts >= x : p.pts > x + half }
            let framesSettled = a.after.map(settled) ?? false
            let syncSettled = a.syncAfter.map(settled) ?? false || tolerance.after == .zero || settled(t + tolerance.after)
            // And a sync sample met: a stream that starts between two has its first one later.
            if framesSettled && syncSettled && (a.syncAtOrBefore != nil || a.syncAfter != nil) { break }
        }
        return a
    }
}
