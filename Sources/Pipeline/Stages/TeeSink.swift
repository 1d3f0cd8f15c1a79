/// One decoded stream into the sinks of several outputs (a tee): each frame goes to every sink
/// in turn, on the lane's queue. So the slowest output sets the pace of the read — nothing
/// queues between outputs, and memory does not grow however far one would run ahead — and the
/// source is decoded once for all of them. Sinks only read the frames they are given (they
/// scale, tone-map or fade into pictures of their own), so every sink can be handed the same one.
/// A sink may write one encode into several outputs (`EncodedOutputs`).
final class TeeSink: SinkStage {
    /// Per sink, the file its errors name and the outputs it writes (positions in the tee's
    /// list of outputs, in the sink's own order; none for a sink that writes no output track:
    /// stills).
    struct Entry {
        let sink: any SinkStage
        let file: String
        let outputs: [Int]
    }

    private let entries: [Entry]

    init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// Each output's counters, in the tee's order of outputs.
    var perDestination: [(unitsOut: Int, packetsWritten: Int)] {
        var counts: [Int: (unitsOut: Int, packetsWritten: Int)] = [:]
        for e in entries {
            for (output, c) in zip(e.outputs, e.sink.perDestination) { counts[output] = c }
        }
        return counts.keys.sorted().compactMap { counts[$0] }
    }

    var encoders: Int { entries.reduce(0) { $0 + $1.sink.encoders } }

    // The first output's, as a lane's own counters (`perDestination` has every output's).
    var unitsOut: Int { perDestination.first?.unitsOut ?? 0 }
    var packetsWritten: Int { perDestination.first?.packetsWritten ?? 0 }

    func consume(_ frame: TimedFrame) throws(MediaError) {
        for e in entries {
            do throws(MediaError) { try e.sink.consume(frame) } catch { throw error.at(file: e.file) }
        }
    }

    func finish() throws(MediaError) {
        for e in entries {
            do throws(MediaError) { try e.sink.finish() } catch { throw error.at(file: e.file) }
        }
    }
}
