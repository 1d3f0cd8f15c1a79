import Recipe

/// Copies compressed samples as they are. Every sample keeps its presentation time relative to
/// every other sample of every track: all are moved by the session's start, and decode times are
/// made valid for the muxer (`CopiedTimestamps`). A video track starts at its first sync sample
/// (nothing is decoded, so it cannot start between sync samples).
///
/// Without a trim every sample is copied, as `ffmpeg -c copy` does, including pre-roll before the
/// start (an edit list's lead-in, audio priming), which MP4/MOV hide again with an edit list. A
/// trim starts video at the sync sample at or before the start (the edit list hides the
/// lead-in) and audio at the first sample that reaches the start; it stops at the first sample
/// decoded at or after the end.
final class PassthroughLane: LaneWork {
    private let env: LaneEnvironment
    /// The lane's number (its writer input and progress line).
    private let output: Int
    /// Where its packets come from.
    private let tap: PacketTap
    private let writerInput: Int
    private let track: Track
    private let timeBase: TimeBase
    /// What of the source is copied (copied samples are never retimed: scale 1).
    private let segment: TimeSegment
    private var timestamps: CopiedTimestamps
    private var started = false
    /// The first samples, held until `timestamps` has learnt from them.
    private var held: [Packet] = []
    private var learnt = false
    private var ended = false
    private var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics

    /// `readerOutput`: the reader output it reads, where a run of several outputs numbers them (nil: `output`).
    init(env: LaneEnvironment, output: Int, track: Track, segment: TimeSegment, readerOutput: Int? = nil) throws(MediaError) {
        self.env = env
        self.output = output
        tap = try env.readers.tap(group: 0, output: readerOutput ?? output)
        self.track = track
        statistics = LaneStatistics(track: track.index)
        self.segment = segment
        guard segment.scale.isIdentity else {
            throw MediaError(.invalidSettings, "a copied track cannot be played at another speed: reencode it instead")
        }
        let stream = tap.stream
        timeBase = stream.timeBase
        timestamps = CopiedTimestamps(origin: try segment.sourceOrigin(in: timeBase), timeBase: timeBase,
                                      strictlyIncreasing: env.writer.needsStrictlyIncreasingDTS)
        writerInput = try env.writer.addPassthroughInput(from: stream, rotation: track.format.rotation,
                                                         metadata: track.outputMetadata)
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while !ended, let packet = try tap.next() {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let pts = MediaTime(ts: packet.pts, timeBase: timeBase)
                if pts.isNumeric { lastTime = pts }
                if !started {
                    guard starts(packet, at: pts) else { continue }
                    started = true
                }
                if learnt {
                    try write(packet)
                } else {
                    held.append(packet)
                    if held.count >= CopiedTimestamps.lookahead { try writeHeld() }
                }
            }
            if !learnt { try writeHeld() }
            tap.detach()
        } catch {
            throw error.at(file: env.file, track: track.index, time: lastTime)
        }
    }

    /// Whether the track's copy begins with this sample.
    private func starts(_ packet: Packet, at pts: MediaTime) -> Bool {
        if track.mediaType == .video { return packet.isKeyframe }
        guard env.cutsStart, pts.isNumeric else { return true }
        return pts + MediaTime(ts: max(packet.duration, 0), timeBase: timeBase) > segment.sourceRange.start
    }

    private func writeHeld() throws(MediaError) {
        timestamps.learn(from: held)
        learnt = true
        let packets = held
        held = []
        for p in packets where !ended { try write(p) }
    }

    private func write(_ packet: Packet) throws(MediaError) {
        let pts = MediaTime(ts: packet.pts, timeBase: timeBase)
        if pts.isNumeric { lastTime = pts }
        try timestamps.restamp(packet)
        // Once a sample is decoded at or after the end, every later one is shown after it.
        if env.cutsEnd && MediaTime(ts: packet.dts, timeBase: timeBase) >= segment.targetRange.end {
            ended = true
            return
        }
        statistics.unitsOut += 1
        statistics.packetsWritten += 1
        try env.deliver(packet, timeBase: timeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
    }
}
