import Recipe

/// A copied track's samples as they are, chosen for the output and put on its timeline. Every
/// sample keeps its presentation time relative to every other sample of every track: all are
/// moved by the session's start, and decode times are made valid for the muxer
/// (`CopiedTimestamps`). A video track starts at its first sync sample (nothing is decoded, so it
/// cannot start between sync samples).
///
/// Without a trim every sample is copied, as `ffmpeg -c copy` does, including pre-roll before the
/// start (an edit list's lead-in, audio priming), which MP4/MOV hide again with an edit list. A
/// trim starts video at the sync sample at or before the start (the edit list hides the
/// lead-in) and audio at the first sample that reaches the start; it stops at the first sample
/// decoded at or after the end.
final class CopiedSource: PacketSourceStage {
    private let env: LaneEnvironment
    /// Where its packets come from.
    private let tap: PacketTap
    private let track: Track
    /// What its samples are stamped in: the stream's time base, or for sound its container
    /// counts coarser than samples, one tick per sample (`clock`).
    let timeBase: TimeBase
    /// Puts a sound track's packets on its sample clock (nil: the stream's own stamps serve).
    private var clock: SampleClock?
    /// What of the source is copied (copied samples are never retimed: scale 1).
    private let segment: TimeSegment
    private var timestamps: CopiedTimestamps
    private var started = false
    /// The first samples, held until `timestamps` has learnt from them; then the samples
    /// restamped and not yet handed out.
    private var held: [Packet] = []
    private var learnt = false
    private var ended = false
    /// The reader has no more samples for it.
    private var exhausted = false
    private(set) var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics

    /// A segment of a join (`CopiedSequence`): exactly the samples shown in its range.
    private let joined: Bool
    /// The join's first segment from its file's start keeps what a plain copy keeps before it
    /// (an edit list's lead-in, which the output's edit list hides again).
    private let keepsLeadIn: Bool

    /// `tap`: the reader output it reads. `continuing`: in a join, the timestamps as the segment
    /// before left them (nil: the first, or the only, segment). `learning`: continuing, it still
    /// learns how much earlier its decode times must go from its own first samples (a run after
    /// encoded pictures, whose stamps taught nothing of the source's).
    init(env: LaneEnvironment, tap: PacketTap, track: Track, segment: TimeSegment, joined: Bool = false,
         continuing: CopiedTimestamps? = nil, learning: Bool = false) throws(MediaError) {
        self.env = env
        self.tap = tap
        self.track = track
        self.joined = joined
        keepsLeadIn = joined && continuing == nil && segment.sourceRange.start <= track.startTime
        statistics = LaneStatistics(track: track.index)
        self.segment = segment
        guard segment.scale.isIdentity else {
            throw MediaError(.invalidSettings, "a copied track cannot be played at another speed: reencode it instead")
        }
        // A copy from the track's start: its first packet where the container meant it.
        let fromStart = segment.sourceRange.start <= track.startTime
        clock = SampleClock(stream: tap.stream, first: fromStart ? Self.firstPacket(track: track, stream: tap.stream) : nil,
                            trimsByDuration: !env.writer.format.isMatroska)
        timeBase = clock?.samples ?? tap.stream.timeBase
        let origin = try segment.sourceOrigin(in: timeBase)
        if var carried = continuing {
            carried.origin = origin
            timestamps = carried
            learnt = !learning
        } else {
            timestamps = CopiedTimestamps(origin: origin, timeBase: timeBase, strictlyIncreasing: env.writer.needsStrictlyIncreasingDTS)
        }
    }

    /// The timestamps as this segment leaves them, for the next segment of a join.
    var timestampsSoFar: CopiedTimestamps { timestamps }

    /// The stream it copies, whose format the writer input takes.
    var stream: SourceStream { tap.stream }
    var file: String? { tap.file }

    func next() throws(MediaError) -> TimedPacket? {
        while !ended {
            if learnt, !held.isEmpty {
                if let unit = try out(held.removeFirst()) { return unit }
                continue
            }
            guard !exhausted, let packet = try tap.next() else {
                exhausted = true
                // A track shorter than the look-ahead: learn from what there is, then hand it out.
                if !learnt { learn(); continue }
                break
            }
            try env.checkCancelled()
            statistics.packetsRead += 1
            clock?.place(packet)
            let pts = MediaTime(ts: packet.pts, timeBase: timeBase)
            if pts.isNumeric { lastTime = pts }
            if !started {
                guard starts(packet, at: pts) else { continue }
                started = true
            }
            if joined {
                switch inJoin(packet, at: pts) {
                case .keep: break
                case .skip: continue
                case .end: exhausted = true; continue
                }
            }
            if learnt {
                if let unit = try out(packet) { return unit }
                continue
            }
            held.append(packet)
            if held.count >= CopiedTimestamps.lookahead { learn() }
        }
        tap.detach()
        return nil
    }

    /// Whether the track's copy begins with this sample.
    private func starts(_ packet: Packet, at pts: MediaTime) -> Bool {
        if joined { return packet.isKeyframe && (keepsLeadIn || packet.shownTime(in: timeBase) >= segment.sourceRange.start) }
        if track.mediaType == .video { return packet.isKeyframe }
        guard env.cutsStart, pts.isNumeric else { return true }
        return pts + MediaTime(ts: max(packet.duration, 0), timeBase: timeBase) > segment.sourceRange.start
    }

    private enum JoinVerdict { case keep, skip, end }

    /// In a join, exactly the samples shown in the segment's range: not an open GOP's leading
    /// pictures before its start, nor anything at or past its end — where the plan put a sync
    /// sample of a closed GOP (or the file ends first), so nothing decoded from that sample on
    /// is shown before it.
    private func inJoin(_ packet: Packet, at pts: MediaTime) -> JoinVerdict {
        let range = segment.sourceRange, time = packet.shownTime(in: timeBase)
        if packet.isKeyframe && time >= range.end { return .end }
        guard time.isNumeric, time < range.end, keepsLeadIn || time >= range.start else { return .skip }
        return .keep
    }

    /// Where a sound track's first packet starts: where its sound starts less the samples its
    /// decoder drops (nil where the track's start is not known).
    private static func firstPacket(track: Track, stream: SourceStream) -> MediaTime? {
        guard track.mediaType == .audio, track.startTime.isNumeric, stream.sampleRate > 0 else { return nil }
        return track.startTime - MediaTime(value: stream.primingSamples, timescale: stream.sampleRate)
    }

    private func learn() {
        timestamps.learn(from: held)
        learnt = true
    }

    /// The sample restamped; nil once a sample is decoded at or after the end (every later one
    /// is shown after it).
    private func out(_ packet: Packet) throws(MediaError) -> TimedPacket? {
        let pts = MediaTime(ts: packet.pts, timeBase: timeBase)
        if pts.isNumeric { lastTime = pts }
        try timestamps.restamp(packet)
        if !joined && env.cutsEnd && MediaTime(ts: packet.dts, timeBase: timeBase) >= segment.targetRange.end {
            ended = true
            held = []
            return nil
        }
        return TimedPacket(packet: packet, timeBase: timeBase)
    }
}
