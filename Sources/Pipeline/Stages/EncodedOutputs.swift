/// One output track a sink writes: the output's environment (its writer) and the track.
struct SinkDestination {
    let env: LaneEnvironment
    /// The output track's number in its plan (progress is reported under it).
    let output: Int
    let track: Track
}

/// The files one encoder's packets go to: one output's, or several outputs' that share the
/// encode (`OutputSet`: the same frames and settings). Each file gets its own reference to
/// every packet, since a writer restamps the packet it is given and takes its data.
struct EncodedOutputs {
    struct File {
        let env: LaneEnvironment
        let output: Int
        /// The encoder's input in this file's writer.
        let input: Int
        fileprivate(set) var packetsWritten = 0
    }

    private(set) var files: [File] = []

    /// Adds the encoder to each destination's writer; `addInput` says how (rotation, metadata).
    init(_ destinations: [SinkDestination], addInput: (SinkDestination) throws(MediaError) -> Int) throws(MediaError) {
        for d in destinations { files.append(File(env: d.env, output: d.output, input: try addInput(d))) }
    }

    /// Writes `packet` (stamped in `timeBase`) into every file `into` takes; `frames` is the
    /// progress count, nil for each file's own count of packets. `placing` may restamp each
    /// file's own reference for that file's container.
    mutating func deliver(_ packet: Packet, timeBase: TimeBase, frames: Int?, into: (File) -> Bool = { _ in true },
                          placing: (Packet, File) -> Void = { _, _ in }) throws(MediaError) {
        let chosen = files.indices.filter { into(files[$0]) }
        for (n, f) in chosen.enumerated() {
            // The last file takes the encoder's packet itself; the others a new reference each.
            let own = n == chosen.count - 1 ? packet : try packet.reference()
            placing(own, files[f])
            files[f].packetsWritten += 1
            try files[f].env.deliver(own, timeBase: timeBase, input: files[f].input, lane: files[f].output,
                                     frames: frames ?? files[f].packetsWritten)
        }
    }

    /// Per file, the units the sink gave its encoder and the packets written there.
    func counts(unitsOut: Int) -> [(unitsOut: Int, packetsWritten: Int)] {
        files.map { (unitsOut, $0.packetsWritten) }
    }
}
