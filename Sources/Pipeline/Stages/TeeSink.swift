/// One decoded stream into the sinks of several outputs (a tee): each frame goes to every sink
/// in turn, on the lane's queue. So the slowest output sets the pace of the read — nothing
/// queues between outputs, and memory does not grow however far one would run ahead — and the
/// source is decoded once for all of them. Sinks only read the frames they are given (they
/// scale, tone-map or fade into pictures of their own), so every sink can be handed the same one.
final class TeeSink: SinkStage {
    /// Per output, its sink and the file it writes, which the sink's errors name.
    private let outputs: [(sink: any SinkStage, file: String)]

    init(_ outputs: [(sink: any SinkStage, file: String)]) {
        self.outputs = outputs
    }

    /// Each output's counters, in order.
    var perOutput: [(unitsOut: Int, packetsWritten: Int)] { outputs.map { ($0.sink.unitsOut, $0.sink.packetsWritten) } }

    // The first output's, as a lane's own counters (`perOutput` has every output's).
    var unitsOut: Int { outputs.first?.sink.unitsOut ?? 0 }
    var packetsWritten: Int { outputs.first?.sink.packetsWritten ?? 0 }

    func consume(_ frame: TimedFrame) throws(MediaError) {
        for o in outputs {
            do throws(MediaError) { try o.sink.consume(frame) } catch { throw error.at(file: o.file) }
        }
    }

    func finish() throws(MediaError) {
        for o in outputs {
            do throws(MediaError) { try o.sink.finish() } catch { throw error.at(file: o.file) }
        }
    }
}
