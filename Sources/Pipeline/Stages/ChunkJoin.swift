import Recipe

/// The chunks of a chunked encode (`ChunkedEncode`) joined into one track, nothing encoded
/// again: each chunk file's samples copied as they are and put at the chunk's place on the
/// output's timeline, through one `CopiedTimestamps`, so decode times run on from chunk to
/// chunk. As it goes it checks what makes the join one stream, failing closed and naming the
/// chunk: each chunk begins with a picture that restarts decoding (an IDR; a keyframe where the
/// codec has no such type), at exactly its planned time, holds exactly its planned pictures,
/// and has the first chunk's stream set-up — or, for H.264/HEVC, carries its own parameter sets
/// in band before its first picture, where a decoder takes them.
final class ChunkJoin: PacketSourceStage {
    private let env: LaneEnvironment
    private let plan: ChunkedEncode
    private let files: [String]
    private var index = 0
    private var current: CopiedSource
    private var timestamps: CopiedTimestamps
    /// The first chunk's set-up: what every chunk's must be, or carry in band.
    private let setup: [UInt8]
    private let pictures: Droppability?
    /// Carried before the current chunk's first picture; nil: its set-up is the first chunk's.
    private var inBand: NALStream?
    private var shownInChunk = 0
    private var finished: LaneStatistics
    /// The stream of the first chunk, whose format the writer input takes.
    let stream: SourceStream

    init(env: LaneEnvironment, plan: ChunkedEncode, files: [String]) throws(MediaError) {
        guard files.count == plan.chunks.count, !files.isEmpty else {
            throw MediaError(.processing, "the join has \(files.count) chunk files for \(plan.chunks.count) chunks")
        }
        self.env = env
        self.plan = plan
        self.files = files
        let (first, tap) = try Self.open(0, plan: plan, files: files, env: env, continuing: nil)
        current = first
        stream = tap.stream
        setup = tap.stream.codecSetup
        pictures = Droppability(codecName: tap.stream.codecName, extradata: setup)
        timestamps = first.timestampsSoFar
        finished = LaneStatistics(track: 0)
    }

    var statistics: LaneStatistics {
        var s = finished
        s.addReading(of: current.statistics)
        return s
    }

    var lastTime: MediaTime { current.lastTime }
    var file: String? { files[index] }

    func next() throws(MediaError) -> TimedPacket? {
        while true {
            if let unit = try current.next() {
                defer { shownInChunk += 1 }
                guard shownInChunk == 0 else { return unit }
                try checkStart(unit)
                guard let inBand else { return unit }
                let carried = try unit.packet.withData(inBand.withParameterSets(Array(unit.packet.bytes)))
                return TimedPacket(packet: carried, timeBase: unit.timeBase)
            }
            try checkCount()
            timestamps = current.timestampsSoFar
            guard index + 1 < files.count else { return nil }
            finished.addReading(of: current.statistics)
            index += 1
            shownInChunk = 0
            let (made, tap) = try Self.open(index, plan: plan, files: files, env: env, continuing: timestamps)
            current = made
            inBand = try carried(tap.stream)
        }
    }

    /// Chunk `k`'s copy, read from its file's start and put at its place on the output.
    private static func open(_ k: Int, plan: ChunkedEncode, files: [String], env: LaneEnvironment,
                             continuing: CopiedTimestamps?) throws(MediaError) -> (CopiedSource, PacketTap) {
        let chunk = plan.chunks[k]
        do throws(MediaError) {
            let asset = try Asset.load(files[k])
            guard let track = asset.tracks.first(where: { $0.mediaType == .video }) else {
                throw MediaError(.processing, "chunk \(chunk.number) holds no pictures")
            }
            let reader = try AssetReader(asset: asset, streams: [track.index])
            let tap = PacketTap(reader: reader, output: 0)
            let length = chunk.outputRange.end - chunk.outputRange.start
            // A chunk's pictures are on its own timeline from 0, moved to its place on the output's.
            let own = TimeSegment(source: k, track: track.index, sourceRange: TimeRange(start: .zero, end: length),
                                  targetStart: chunk.outputRange.start, scale: .identity)
            return (try CopiedSource(env: env, tap: tap, track: track, segment: own, joined: true, continuing: continuing), tap)
        } catch { throw error.at(file: files[k]) }
    }

    /// A chunk's first picture restarts decoding, at its planned time.
    private func checkStart(_ unit: TimedPacket) throws(MediaError) {
        let chunk = plan.chunks[index]
        let restarts = pictures.map { $0.restartsDecoding(unit.packet.bytes) } ?? unit.packet.isKeyframe
        guard restarts else {
            throw MediaError(.processing, "chunk \(chunk.number) does not begin with a picture that restarts decoding (an IDR): it cannot be joined", file: files[index])
        }
        let planned = try chunk.outputRange.start.ts(in: unit.timeBase, rounding: .nearest)
        let shown = MediaTime(ts: unit.packet.pts, timeBase: unit.timeBase)
        guard index == 0 || abs(unit.packet.pts - planned) <= 1 else {
            throw MediaError(.processing, "chunk \(chunk.number) begins at \(shown.secondsDescription), not at \(chunk.outputRange.start.secondsDescription) where the plan puts it", file: files[index])
        }
    }

    /// A chunk holds exactly the pictures the plan gave it.
    private func checkCount() throws(MediaError) {
        let chunk = plan.chunks[index]
        guard shownInChunk == chunk.frames else {
            throw MediaError(.processing, "chunk \(chunk.number) holds \(shownInChunk) pictures, the plan \(chunk.frames)", file: files[index])
        }
    }

    /// How a chunk whose set-up differs from the first's is carried: its parameter sets in band
    /// (H.264/HEVC); any other codec's cannot be, and the join is refused.
    private func carried(_ next: SourceStream) throws(MediaError) -> NALStream? {
        let own = next.codecSetup
        guard own != setup else { return nil }
        guard let family = VideoFamily.of(streamCodec: next.codecName)?.frames, let form = NALStream(family: family, record: own) else {
            throw MediaError(.processing, "chunk \(plan.chunks[index].number)'s stream set-up differs from chunk 1's, and \(next.codecName) cannot carry its own in band", file: files[index])
        }
        return form
    }
}
