import Recipe

/// A smart render's runs joined into one stream (`SmartRender`): copied runs hand out the
/// source's samples as they are (`CopiedSource` in a join), encoded runs the pictures encoded
/// again (`EncodedRun`), all on the output's timeline through one `CopiedTimestamps`. A run
/// after another begins with an IDR picture and carries its parameter sets in band (a copied
/// run the source's, put before its first sample), so a decoder takes each run's as it reaches
/// it. Each run has a reader of its own, made when the run is reached.
final class SmartSequence: PacketSourceStage {
    private enum Current {
        case copied(CopiedSource)
        case encoded(EncodedRun, origin: Int64)
    }

    private let env: LaneEnvironment
    private let render: SmartRender
    private let sources: [Asset]
    private var index = 0
    private var current: Current
    /// The stamps as the runs so far left them.
    private var timestamps: CopiedTimestamps
    /// The next copied sample is a run's first after another run: it carries its file's parameter sets.
    private var needsParameterSets = false
    /// The next copied sample is a copied run's first (a random access point).
    private var opensCopiedRun: Bool
    /// The copied run's file's stream form (its own parameter sets).
    private var copiedForm: NALStream
    private var finished: LaneStatistics
    private var previousTime: MediaTime = .invalid
    /// The first run's stream, whose format the writer input takes (every run's is put in its form).
    let stream: SourceStream

    init(env: LaneEnvironment, render: SmartRender, sources: [Asset]) throws(MediaError) {
        guard let first = render.runs.first else { throw MediaError(.processing, "the plan reads no source for this track") }
        self.env = env
        self.render = render
        self.sources = sources
        let (made, tap) = try Self.make(first, render: render, sources: sources, env: env, continuing: nil)
        current = made
        opensCopiedRun = first.kind == .copied
        stream = tap.stream
        copiedForm = render.stream
        timestamps = CopiedTimestamps(origin: 0, timeBase: tap.stream.timeBase, strictlyIncreasing: env.writer.needsStrictlyIncreasingDTS)
        finished = LaneStatistics(track: first.track)
    }

    var statistics: LaneStatistics {
        var s = finished
        s.addReading(of: currentStatistics)
        return s
    }

    private var currentStatistics: LaneStatistics {
        switch current {
        case .copied(let c): return c.statistics
        case .encoded(let e, _): return e.statistics
        }
    }

    var lastTime: MediaTime {
        let t: MediaTime
        switch current {
        case .copied(let c): t = c.lastTime
        case .encoded(let e, _): t = e.lastTime
        }
        return t.isNumeric ? t : previousTime
    }

    var file: String? { sources[render.runs[index].sourceFile].path }

    func next() throws(MediaError) -> TimedPacket? {
        while true {
            switch current {
            case .copied(let copied):
                if let unit = try copied.next() {
                    guard opensCopiedRun else { return unit }
                    opensCopiedRun = false
                    return try entry(unit)
                }
                timestamps = copied.timestampsSoFar
            case .encoded(let run, let origin):
                if let packet = try run.next() {
                    timestamps.origin = origin
                    try timestamps.restamp(packet)
                    return TimedPacket(packet: packet, timeBase: run.timeBase)
                }
            }
            guard index + 1 < render.runs.count else { return nil }
            finished.addReading(of: currentStatistics)
            if lastTime.isNumeric { previousTime = lastTime }
            index += 1
            let (made, tap) = try Self.make(render.runs[index], render: render, sources: sources, env: env, continuing: timestamps)
            current = made
            if case .copied = made {
                needsParameterSets = true
                opensCopiedRun = true
                copiedForm = NALStream(family: render.stream.family, record: tap.stream.codecSetup) ?? render.stream
            }
        }
    }

    /// A copied run's first sample: an HEVC CRA made a BLA (the run leaves out its leading
    /// pictures, which the run before shows, or which precede the output), and after another run
    /// its file's parameter sets put before it. Its bytes are otherwise the source's.
    private func entry(_ unit: TimedPacket) throws(MediaError) -> TimedPacket {
        let broken = copiedForm.brokenLink(unit.packet.bytes)
        guard needsParameterSets || broken != nil else { return unit }
        var bytes = broken ?? Array(unit.packet.bytes)
        if needsParameterSets { bytes = copiedForm.withParameterSets(bytes) }
        needsParameterSets = false
        return TimedPacket(packet: try unit.packet.withData(bytes), timeBase: unit.timeBase)
    }

    /// Run `run`'s stage, reading with a reader of its own positioned at the run's start.
    private static func make(_ run: SmartRender.Run, render: SmartRender, sources: [Asset], env: LaneEnvironment,
                             continuing: CopiedTimestamps?) throws(MediaError) -> (Current, PacketTap) {
        let asset = sources[run.sourceFile]
        do throws(MediaError) {
            guard let track = asset.track(index: run.track) else { throw MediaError(.processing, "\(asset.path) has no track #\(run.track)") }
            let reader = try AssetReader(asset: asset, streams: [run.track], takingProbe: false)
            try reader.seek(to: run.sourceRange.start, fileStart: asset.startTime)
            let tap = PacketTap(reader: reader, output: 0)
            switch run.kind {
            case .copied:
                let copied = try CopiedSource(env: env, tap: tap, track: track, segment: run.segment, joined: true,
                                              continuing: continuing, learning: true)
                return (.copied(copied), tap)
            case .encoded:
                // Pictures at their source times; the stamps move them to the run's place.
                let own = TimeSegment(source: run.segment.source, track: run.segment.track, sourceRange: run.sourceRange,
                                      targetStart: run.sourceRange.start, scale: .identity)
                let encoded = try EncodedRun(env: env, tap: tap, track: track, segment: own, settings: render.settings, stream: render.stream)
                guard encoded.timeBase == tap.stream.timeBase else {
                    throw MediaError(.processing, "the \(render.settings.encoderName) encoder changed the time base: its pictures cannot be joined to the copied ones")
                }
                return (.encoded(encoded, origin: try run.segment.sourceOrigin(in: encoded.timeBase)), tap)
            }
        } catch { throw error.at(file: asset.path, track: run.track) }
    }
}
