import Foundation
import Recipe

/// The planner's pass for `parallel:` (`run --chunks`): whether the output's video can be
/// encoded in chunks and joined, and where it splits (`ChunkedEncode`). Splits lie on the
/// output's keyframe grid — every `gopFrames` pictures from its first — so the joined track
/// keeps the keyframe rhythm of one encode, preferring scene cuts (`ChunkSplits`,
/// `SceneCuts`); each chunk then starts with the IDR its encoder
/// opens with. Asked for and impossible, it is refused at `parallel` (a setting the output
/// cannot honour), never ignored.
enum ChunkPass {
    static func plan(_ plan: inout ConversionPlan, parallel: ParallelSpec?,
                     cores: Int = ProcessInfo.processInfo.activeProcessorCount,
                     memory: UInt64 = ProcessInfo.processInfo.physicalMemory) throws(MediaError) {
        guard let parallel else { return }
        do throws(ChunkObstacle) {
            plan.chunking = try chunking(plan, parallel, cores: max(1, cores), memory: memory)
        } catch {
            throw MediaError(.invalidSettings, "the output cannot be encoded in chunks: \(error.reason)", file: plan.source.path, setting: "parallel")
        }
    }

    /// Why the output cannot be chunked, in words a message ends with.
    struct ChunkObstacle: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The containers a join writes (their muxers take a copied stream's packets as they are).
    static let containers: [ContainerFormat] = [.mp4, .mov, .mkv, .webm]

    private static func chunking(_ plan: ConversionPlan, _ parallel: ParallelSpec, cores: Int, memory: UInt64) throws(ChunkObstacle) -> ChunkedEncode {
        let (l, s) = try videoLane(plan)
        try checkShape(plan, settings: s)
        let range = plan.timeRange
        let times = try frameTimes(plan, lane: l, settings: s)
        guard !times.isEmpty else { throw ChunkObstacle("its video has no pictures in the time range") }
        let duration = plan.duration.isNumeric ? plan.duration : times[times.count - 1] + (s.frameRate?.frameDuration ?? .zero)
        let gop = max(1, s.gopFrames)
        let workers = min(cores, max(1, Int(memory / 2 / workerMemory(s))))
        let cuts = SceneCuts(path: plan.source.path, stream: plan.lanes[l].track.index)
        let splits = ChunkSplits.choose(times: times, gop: gop, duration: duration, parallel: parallel, workers: workers) { k in
            cuts.change(at: range.start + times[k])
        }
        var chunks: [ChunkedEncode.Chunk] = []
        for (k, split) in splits.enumerated() {
            let first = split.first, more = k + 1 < splits.count
            let last = more ? splits[k + 1].first : times.count
            let outputEnd = more ? times[last] : duration
            let sourceEnd = more ? range.start + times[last] : range.end
            var chunk = ChunkedEncode.Chunk(number: k + 1, sourceRange: TimeRange(start: range.start + times[first], end: sourceEnd),
                                            outputRange: TimeRange(start: times[first], end: outputEnd), frames: last - first,
                                            why: why(split.reason, gop: gop, parallel: parallel))
            if case .sceneCut(let d) = split.reason { chunk.difference = d }
            chunks.append(chunk)
        }
        let running = min(workers, chunks.count)
        var made = ChunkedEncode(lane: l, chunks: chunks, workers: running, threadsPerWorker: max(1, cores / running),
                                 gopFrames: gop, frameTimes: times, files: nil)
        made.rate = try rate(plan, settings: s)
        (made.placesMeasured, made.placesUnmeasured, made.cores) = (cuts.measured, cuts.unmeasured, cores)
        return made
    }

    /// Why a chunk ends where it does, as `plan` says it.
    private static func why(_ reason: ChunkSplits.Reason, gop: Int, parallel: ParallelSpec) -> String {
        switch reason {
        case .sceneCut(let d): return "scene cut (difference \(d))"
        case .grid: return "keyframe grid (every \(gop) pictures)"
        case .lengthBound: return "length bound \(parallel.longest.secondsDescription)"
        case .end: return "the end"
        }
    }

    /// The one video track encoded (chunks split one picture stream).
    private static func videoLane(_ plan: ConversionPlan) throws(ChunkObstacle) -> (Int, ResolvedVideoSettings) {
        let encoded = plan.lanes.indices.compactMap { i in plan.lanes[i].videoSettings.map { (i, $0) } }
        guard let only = encoded.first else { throw ChunkObstacle("it encodes no video (chunks split encoded pictures)") }
        guard encoded.count == 1 else { throw ChunkObstacle("it encodes \(encoded.count) video tracks (one is split into chunks)") }
        return only
    }

    /// What the output or its video asks that chunks encoded apart cannot give.
    private static func checkShape(_ plan: ConversionPlan, settings s: ResolvedVideoSettings) throws(ChunkObstacle) {
        if plan.isComposed { throw ChunkObstacle("it is a composition (one source's conversion is split)") }
        guard containers.contains(plan.format) else {
            throw ChunkObstacle("a \(plan.format.rawValue) output is not joined so (MP4, MOV, MKV and WebM are)")
        }
        if plan.package != nil { throw ChunkObstacle("it is a streaming package (its renditions are encoded together)") }
        if plan.fragments != nil { throw ChunkObstacle("the output is fragmented on a keyframe grid") }
        if plan.fileLengthLimit != nil { throw ChunkObstacle("the output has a file-length limit") }
        if let m = s.maxBitrate {
            throw ChunkObstacle("its video has a max-bitrate (\(m / 1000) kb/s), whose buffer a join cannot keep: each chunk's encoder "
                                + "starts with its buffer filled as told (vbv-init), but at a join the buffer holds what the chunk before left, "
                                + "which no encoder option sets, so the joined stream could underrun it")
        }
        if s.smart != .off { throw ChunkObstacle("its video is rendered smart (copied where it can be)") }
        if s.keyframeGrid != nil { throw ChunkObstacle("its keyframes are on a grid of their own") }
        if s.deinterlace != nil && s.frameRate == nil { throw ChunkObstacle("its fields are made pictures at the source's timing") }
    }

    /// A video coded at a bitrate (asked, or derived from `target-size`; with `passes: 2`, or without
    /// a quality) is spent over the whole by per-chunk budgets (`ChunkBudgets`); otherwise each
    /// chunk is coded at the output's quality.
    /// Each budgeted chunk is coded in two passes: an encoder without them (SVT-AV1 under FFmpeg
    /// 5.1) cannot code a chunk to its budget.
    private static func rate(_ plan: ConversionPlan, settings s: ResolvedVideoSettings) throws(ChunkObstacle) -> ChunkRate {
        guard plan.targetSize != nil || s.passes == 2 || s.quality == nil, let b = s.bitrate else { return .quality }
        if let encoder = VideoEncoder.named(s.encoderName), !encoder.twoPass.isSupported {
            throw ChunkObstacle("its video is coded at a bitrate by \(encoder.name), which runs one pass only, and each chunk is coded to its budget in two: "
                                + "add 'passes: 2' (another encoder then codes it) or set a 'quality'")
        }
        return .budgets(bitrate: b)
    }

    /// The output's pictures, on its timeline: slots of its frame rate, else the source's pictures in the range.
    private static func frameTimes(_ plan: ConversionPlan, lane l: Int, settings s: ResolvedVideoSettings) throws(ChunkObstacle) -> [MediaTime] {
        if let rate = s.frameRate {
            let d = rate.frameDuration
            guard let n = TimeMapping.slotCount(to: plan.duration, frameDuration: d), n > 0 else { return [] }
            return (0..<n).map { d * $0 }
        }
        let track = plan.lanes[l].track
        do throws(MediaError) {
            let scan = try GroupScan.scan(path: plan.source.path, stream: track.index, from: plan.timeRange.start, to: plan.timeRange.end)
            return scan.pictures.map { $0 - plan.timeRange.start }
        } catch { throw ChunkObstacle(error.message) }
    }

    /// About what one chunk encoder holds: its decoder's and encoder's pictures (look-ahead,
    /// references), ~100 pictures of the output's size.
    private static func workerMemory(_ s: ResolvedVideoSettings) -> UInt64 {
        UInt64(max(1, s.width * s.height)) * 3 / 2 * 100
    }
}
