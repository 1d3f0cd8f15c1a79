import Recipe

/// The plan as a graph: source stages (one per source track, decoded once) → a combiner where a
/// track is made of several (a composition's sequence, mix or layers) → one sink per output
/// track → the output file's writer. Every edge carries the format both ends agreed on at plan
/// time (`Negotiation`); the run builds the stages from it. A plain conversion is one source
/// into one sink per track. (A tee appears where one source feeds several sinks: several
/// outputs from one read.) A video track encoded in chunks (`parallel:`) runs through its chunk
/// encoders and the join before its sink, which copies the joined stream.
public struct PlanGraph: Sendable {
    public enum Node: Sendable, Hashable {
        /// A track of one of the plan's files (`ConversionPlan.sources`), read once.
        case source(file: Int, track: Int)
        /// Several inputs made into output track `output`'s one stream of pictures or sound.
        case combiner(Combiner, output: Int)
        /// Output track `output` (a plan lane): encoded, or copied.
        case sink(output: Int)
        /// Output track `output`'s pictures encoded in `chunks` chunks apart, `workers` at once
        /// (`ChunkedEncode`).
        case chunkEncoders(output: Int, chunks: Int, workers: Int)
        /// The chunk encoders' streams joined into output track `output`'s one stream, without
        /// encoding again (`ChunkJoin`).
        case join(output: Int)
        /// The output file: its writer, with one input per sink.
        case file(String)
    }

    public enum Combiner: String, Sendable, Hashable {
        /// Segments played one after another.
        case sequence
        /// Sequences summed (a composition's audio mix).
        case mix
        /// Sequences drawn as layers on a canvas.
        case layers
    }

    public struct Edge: Sendable, Hashable {
        public let from: Int
        public let to: Int
        public let format: EdgeFormat
        /// The timeline segment the edge carries (a composition's source edges); nil: all of it.
        public let segment: Int?
    }

    public private(set) var nodes: [Node] = []
    public private(set) var edges: [Edge] = []

    /// Node `n`'s index, added once.
    mutating func node(_ n: Node) -> Int {
        if let i = nodes.firstIndex(of: n) { return i }
        nodes.append(n)
        return nodes.count - 1
    }

    mutating func connect(_ from: Int, _ to: Int, _ format: EdgeFormat, segment: Int? = nil) {
        edges.append(Edge(from: from, to: to, format: format, segment: segment))
    }

    /// The format output track `output`'s sink takes; where the track is encoded in chunks, what
    /// its chunk encoders take (the pictures every encoder of the track is opened for).
    public func sinkInput(_ output: Int) -> EdgeFormat? {
        guard let sink = nodes.firstIndex(of: .sink(output: output)) else { return nil }
        if let encoders = nodes.firstIndex(where: { if case .chunkEncoders(output, _, _) = $0 { return true } else { return false } }) {
            return edges.first { $0.to == encoders }?.format
        }
        return edges.first { $0.to == sink }?.format
    }

    /// The stream output track `output`'s sink hands the writer.
    public func sinkOutput(_ output: Int) -> EdgeFormat? {
        guard let sink = nodes.firstIndex(of: .sink(output: output)) else { return nil }
        return edges.first { $0.from == sink }?.format
    }
}
