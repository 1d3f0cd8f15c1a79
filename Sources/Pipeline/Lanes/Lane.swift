import Dispatch
import Recipe

/// What every lane of one conversion shares.
final class LaneEnvironment: Sendable {
    /// The run's readers (one per reading of a source).
    let readers: ReaderPool
    /// The source file an error names when no segment's own file is known.
    let file: String
    let writer: AssetWriter
    /// Whether a recipe's time-range cuts the source's start, its end. Where it does not, copied
    /// tracks keep every sample on that side: a container's stated start and length are not a
    /// cut (pre-roll before an edit list's start, samples past a rounded-down duration).
    let cutsStart: Bool
    let cutsEnd: Bool
    let progress: ProgressTracker
    let cancellation: Cancellation
    let selectiveDecode: Bool
    /// The threads the video decoders open at once share.
    let decoderThreads: DecoderThreads
    /// Where the sinks get their encoders (the rehearsal's kept ones first).
    let encoders: EncoderSupply

    init(readers: ReaderPool, file: String, writer: AssetWriter, cutsStart: Bool, cutsEnd: Bool,
         progress: ProgressTracker, cancellation: Cancellation, selectiveDecode: Bool,
         decoderThreads: DecoderThreads = DecoderThreads(), encoders: EncoderSupply = EncoderSupply()) {
        self.readers = readers; self.file = file; self.writer = writer
        self.cutsStart = cutsStart; self.cutsEnd = cutsEnd
        self.progress = progress; self.cancellation = cancellation; self.selectiveDecode = selectiveDecode
        self.decoderThreads = decoderThreads
        self.encoders = encoders
    }

    /// The same reading, decoders and cancellation, writing another output file: the sinks of
    /// one read's other outputs.
    func writing(to writer: AssetWriter, progress: ProgressTracker) -> LaneEnvironment {
        LaneEnvironment(readers: readers, file: file, writer: writer, cutsStart: cutsStart, cutsEnd: cutsEnd,
                        progress: progress, cancellation: cancellation, selectiveDecode: selectiveDecode, decoderThreads: decoderThreads,
                        encoders: encoders)
    }

    /// Hands an output packet (stamped in `timeBase`) to the writer and reports how far the lane
    /// has got. The end is read first: the writer takes the packet's data and rescales it.
    func deliver(_ packet: Packet, timeBase: TimeBase, input: Int, lane: Int, frames: Int) throws(MediaError) {
        // Saturating MediaTime sums: a file's stamps near Int64.max cannot trap here.
        let end = MediaTime(ts: packet.pts, timeBase: timeBase) + MediaTime(ts: max(packet.duration, 0), timeBase: timeBase)
        try writer.append(packet, to: input)
        progress.update(lane: lane, outputTime: end.isNumeric ? end : .zero, frames: frames)
    }

    /// A decode error on a file whose data is cut short says so: that is what the user can act on.
    func explain(_ error: MediaError) -> MediaError {
        guard error.kind == .processing, readers.isDamaged, !error.message.hasPrefix(Self.truncated) else { return error }
        var e = error
        e.message = "\(Self.truncated) (\(error.message))"
        return e
    }

    static let truncated = "the file is truncated or damaged"

    func checkCancelled() throws(MediaError) {
        if cancellation.isCancelled { throw MediaError.cancelled(file: file) }
    }
}

/// Counters a lane keeps, for results and tests.
public struct LaneStatistics: Sendable, Hashable {
    public var track: Int
    public var packetsRead = 0
    /// Packets the decoder was given (selective decode skips the rest).
    public var packetsDecoded = 0
    public var packetsSkipped = 0
    public var framesDecoded = 0
    /// Frames (video) or samples (audio) handed to the encoder, or packets passed through.
    public var unitsOut = 0
    public var packetsWritten = 0

    /// Adds another source's reading and decoding counters (a sequence counts all its segments).
    mutating func addReading(of other: LaneStatistics) {
        packetsRead += other.packetsRead
        packetsDecoded += other.packetsDecoded
        packetsSkipped += other.packetsSkipped
        framesDecoded += other.framesDecoded
    }
}

/// The work of one output track: pull source packets, turn them into output packets, drain.
protocol LaneWork: AnyObject {
    var statistics: LaneStatistics { get }
    /// Per output track it feeds (several: a tee into several outputs), its counters.
    var outputStatistics: [LaneStatistics] { get }
    /// Picture and sound encoders it opened (one encode written into several outputs is one).
    var encoders: Int { get }
    func run() throws(MediaError)
}

extension LaneWork {
    var outputStatistics: [LaneStatistics] { [statistics] }
    var encoders: Int { 0 }
}

/// One output track's serial queue and its work.
final class Lane: Sendable {
    let queue: DispatchQueue
    /// nil once the lane has drained or failed: what it held goes then, before the trailer.
    private let work: QueueBound<(any LaneWork)?>
    private let statisticsBox: QueueBound<[LaneStatistics]>

    init(name: String, work: any LaneWork) {
        queue = DispatchQueue(label: "reencode.lane.\(name)")
        self.work = QueueBound(work, queue: queue)
        self.statisticsBox = QueueBound(work.outputStatistics, queue: queue)
    }

    /// Enters `group` now and leaves it when the lane has drained or failed.
    func start(in group: DispatchGroup, onError: @escaping @Sendable (MediaError) -> Void) {
        group.enter()
        queue.async {
            defer { group.leave() }
            FFmpegLog.forgetThread()
            do throws(MediaError) {
                try self.work.value?.run()
            } catch {
                onError(error)
            }
            if let work = self.work.value { self.statisticsBox.value = work.outputStatistics }
            // Its codecs, pictures and the source's demuxer with its index (tens of bytes a
            // sample) go now, not after the trailer, whose index of the output reuses that memory.
            self.work.value = nil
        }
    }

    /// After the group completed: per output track it fed.
    var outputStatistics: [LaneStatistics] { queue.sync { statisticsBox.value } }
}
