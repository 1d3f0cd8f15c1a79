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
    /// The file being read (a sequence: the current segment's), which an error names.
    var file: String? { get }
}

/// The last stage of a chain: frames on the output's timeline → encoder → writer input.
protocol SinkStage: AnyObject {
    /// Frames (video) or samples (audio) handed to the encoder.
    var unitsOut: Int { get }
    var packetsWritten: Int { get }
    /// Per output it writes (one encode may be written into several: `EncodedOutputs`), in
    /// the order the plan lists them, its `unitsOut` and `packetsWritten`.
    var perDestination: [(unitsOut: Int, packetsWritten: Int)] { get }
    /// Picture and sound encoders it holds.
    var encoders: Int { get }
    func consume(_ frame: TimedFrame) throws(MediaError)
    /// No more frames: drains the encoder.
    func finish() throws(MediaError)
}

extension SinkStage {
    var perDestination: [(unitsOut: Int, packetsWritten: Int)] { [(unitsOut, packetsWritten)] }
}

/// A lane made of stages: pulls `stage` dry into `sink` on the lane's queue. A plain conversion
/// is one source stage into one sink; a sequence is a combiner over several sources.
final class StagedLane: LaneWork {
    private let env: LaneEnvironment
    private let track: Int
    private let stage: any SourceStage
    private let sink: any SinkStage

    init(env: LaneEnvironment, track: Int, stage: any SourceStage, sink: any SinkStage) {
        self.env = env
        self.track = track
        self.stage = stage
        self.sink = sink
    }

    var statistics: LaneStatistics { outputStatistics[0] }
    var encoders: Int { sink.encoders }

    /// The reading counters with each output's own (a tee feeds several).
    var outputStatistics: [LaneStatistics] {
        let counts = sink.perDestination
        return counts.map { c in
            var s = stage.statistics
            s.track = track
            s.unitsOut = c.unitsOut
            s.packetsWritten = c.packetsWritten
            return s
        }
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while let frame = try stage.next() { try sink.consume(frame) }
            try sink.finish()
        } catch {
            // The source being read names the file and the time (a segment's own source).
            throw env.explain(error).at(file: stage.file ?? env.file, track: track, time: stage.lastTime)
        }
    }
}
