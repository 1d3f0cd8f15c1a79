import CFFmpeg
import Recipe

/// A decoded picture or run of samples, placed on the OUTPUT's timeline.
enum TimedFrame {
    /// Shown from `pts` for `duration` ticks of the stage's output time base (duration 0: not
    /// known). Repeated slots hand out the same `Frame` object again.
    case picture(Frame, pts: Int64, duration: Int64)
    /// Decoded samples (the source's rate, format and layout), the first of which is sample
    /// `position` of the output's sample clock (at the output's sample rate).
    case samples(Frame, position: Int64)
}

/// Something that hands out frames on the output's timeline, in output order: a source stage,
/// or a combiner pulling from several of them. nil: it has nothing more.
protocol FrameStage: AnyObject {
    func next() throws(MediaError) -> TimedFrame?
}

/// The first stage of a chain: one reader output decoded and put on the output's timeline.
protocol SourceStage: FrameStage {
    /// Reading and decoding counters (the sink keeps the output ones).
    var statistics: LaneStatistics { get }
    /// The source time of the latest packet or frame, where an error is placed.
    var lastTime: MediaTime { get }
}

/// The last stage of a chain: frames on the output's timeline → encoder → writer input.
protocol SinkStage: AnyObject {
    /// Frames (video) or samples (audio) handed to the encoder.
    var unitsOut: Int { get }
    var packetsWritten: Int { get }
    func consume(_ frame: TimedFrame) throws(MediaError)
    /// No more frames: drains the encoder.
    func finish() throws(MediaError)
}

/// A lane made of stages: pulls `stage` dry into `sink` on the lane's queue. A plain conversion
/// is one source stage into one sink; a sequence has a combiner over several sources.
final class StagedLane: LaneWork {
    private let env: LaneEnvironment
    private let track: Int
    private let sources: [any SourceStage]
    private let stage: any FrameStage
    private let sink: any SinkStage

    /// `stage` is what the sink pulls from: the one source itself, or a combiner over `sources`.
    init(env: LaneEnvironment, track: Int, sources: [any SourceStage], stage: any FrameStage, sink: any SinkStage) {
        self.env = env
        self.track = track
        self.sources = sources
        self.stage = stage
        self.sink = sink
    }

    var statistics: LaneStatistics {
        var s = LaneStatistics(track: track)
        for source in sources {
            let t = source.statistics
            s.packetsRead += t.packetsRead
            s.packetsDecoded += t.packetsDecoded
            s.packetsSkipped += t.packetsSkipped
            s.framesDecoded += t.framesDecoded
        }
        s.unitsOut = sink.unitsOut
        s.packetsWritten = sink.packetsWritten
        return s
    }

    /// Where an error is placed: the latest source time of the source being read (sources are
    /// read one after the other).
    private var lastTime: MediaTime {
        sources.last { $0.lastTime.isNumeric }?.lastTime ?? .invalid
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while let frame = try stage.next() { try sink.consume(frame) }
            try sink.finish()
        } catch {
            throw env.explain(error).at(file: env.file, track: track, time: lastTime)
        }
    }
}
