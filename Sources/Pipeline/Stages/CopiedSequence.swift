import Recipe

/// Copied segments joined into one stream: each segment's samples as they are (`CopiedSource`
/// in a join: exactly those shown in its range), one after the other on the output's timeline.
/// One `CopiedTimestamps` runs through the whole join — each segment moves its origin — so the
/// decode times stay valid across the cuts. The plan has checked that this is exact
/// (`CopyJoinPass`: streams alike, cuts on keyframes of closed groups of pictures). Only the
/// current segment's reader exists: the next is made when it is reached.
final class CopiedSequence: PacketSourceStage {
    private let env: LaneEnvironment
    private let inputs: [ExportSession.SourceInput]
    private var current: CopiedSource
    private var index = 0
    /// Counters of the segments let go.
    private var finished: LaneStatistics
    private var previousTime: MediaTime = .invalid
    /// The first segment's stream, whose format the writer input takes (all are alike).
    let stream: SourceStream
    /// What its samples are stamped in: the first segment's (all are alike).
    let timeBase: TimeBase

    init(env: LaneEnvironment, inputs: [ExportSession.SourceInput]) throws(MediaError) {
        guard let first = inputs.first else { throw MediaError(.processing, "the plan reads no source for this track") }
        self.env = env
        self.inputs = inputs
        current = try Self.make(first, env: env, continuing: nil)
        stream = current.stream
        timeBase = current.timeBase
        finished = LaneStatistics(track: first.track.index)
    }

    var statistics: LaneStatistics {
        var s = finished
        s.addReading(of: current.statistics)
        return s
    }

    var lastTime: MediaTime {
        let t = current.lastTime
        return t.isNumeric ? t : previousTime
    }

    var file: String? { inputs[index].file }

    func next() throws(MediaError) -> TimedPacket? {
        while true {
            if let unit = try current.next() { return unit }
            guard index + 1 < inputs.count else { return nil }
            finished.addReading(of: current.statistics)
            if current.lastTime.isNumeric { previousTime = current.lastTime }
            index += 1
            current = try Self.make(inputs[index], env: env, continuing: current.timestampsSoFar)
        }
    }

    private static func make(_ input: ExportSession.SourceInput, env: LaneEnvironment, continuing: CopiedTimestamps?) throws(MediaError) -> CopiedSource {
        do throws(MediaError) {
            let tap = try env.readers.tap(group: input.group, output: input.output)
            return try CopiedSource(env: env, tap: tap, track: input.track, segment: input.segment, joined: true, continuing: continuing)
        } catch { throw error.at(file: input.file, track: input.track.index) }
    }
}
