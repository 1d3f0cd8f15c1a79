import Recipe

/// A compressed sample placed on the OUTPUT's timeline: its pts and dts are output times in
/// `timeBase` (a copied sample keeps its stream's time base; the writer rescales).
struct TimedPacket {
    let packet: Packet
    let timeBase: TimeBase
}

/// Something that hands out compressed samples on the output's timeline, in decode order (a
/// copied track's samples, subtitles cut or coded again). nil: it has nothing more. The packet
/// counterpart of `FrameStage`.
protocol PacketStage: AnyObject {
    func next() throws(MediaError) -> TimedPacket?
}

/// The first stage of a packet chain: one reader output's samples, chosen for the output.
protocol PacketSourceStage: PacketStage {
    /// Reading (and, for subtitles coded again, decoding) counters; the sink keeps the output ones.
    var statistics: LaneStatistics { get }
    /// The source time of the latest sample, where an error is placed.
    var lastTime: MediaTime { get }
    /// The file being read, which an error names.
    var file: String? { get }
}

/// The last stage of a packet chain: samples into one writer input.
final class PacketSink {
    private let env: LaneEnvironment
    /// The output track's number (its progress line).
    private let output: Int
    private let input: Int
    private(set) var packetsWritten = 0

    /// `input`: the writer input its samples go to, added by whoever knows the stream's format.
    init(env: LaneEnvironment, output: Int, input: Int) {
        self.env = env
        self.output = output
        self.input = input
    }

    func consume(_ unit: TimedPacket) throws(MediaError) {
        packetsWritten += 1
        try env.deliver(unit.packet, timeBase: unit.timeBase, input: input, lane: output, frames: packetsWritten)
    }
}

/// A lane of compressed samples: pulls `stage` dry into `sink` on the lane's queue. A copied
/// track is a `CopiedSource` into a sink; a subtitle track a `SubtitleSource` (cut, or coded again).
final class PacketLane: LaneWork {
    private let env: LaneEnvironment
    private let track: Int
    private let stage: any PacketSourceStage
    private let sink: PacketSink

    init(env: LaneEnvironment, track: Int, stage: any PacketSourceStage, sink: PacketSink) {
        self.env = env
        self.track = track
        self.stage = stage
        self.sink = sink
    }

    var statistics: LaneStatistics {
        var s = stage.statistics
        s.track = track
        s.unitsOut = sink.packetsWritten
        s.packetsWritten = sink.packetsWritten
        return s
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            // The sources check for cancelling at every sample they read.
            while let unit = try stage.next() { try sink.consume(unit) }
        } catch {
            throw error.at(file: stage.file ?? env.file, track: track, time: stage.lastTime)
        }
    }
}
