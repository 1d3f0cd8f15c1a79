import Dispatch
import Foundation
import Recipe

/// A chunked encode's first part (`ChunkedEncode`): every chunk encoded into a file of its own,
/// several at once, each one a run of its own plan — the output's video track alone over the
/// chunk's source range, with the output's settings as they were resolved for the whole (so
/// every chunk's encoder makes the same stream). The chunk files live in a private folder
/// beside the output, under the output's temp name (`TempFile`): a killed run's folder is
/// removed by the next run for that output, as its temp file is. The run then writes the
/// output with the chunks joined (`ChunkJoin`) and every other track made as usual.
enum ChunkedRun {
    /// Some output is chunked and its chunks are not encoded yet.
    static func isNeeded(_ plans: [ConversionPlan]) -> Bool {
        plans.contains { $0.chunking != nil && $0.chunking?.files == nil }
    }

    /// The chunks' folder beside `plan`'s output (mode 0700).
    static func makeFolder(for plan: ConversionPlan) throws(MediaError) -> String {
        let folder = TempFile.path(for: plan.outputPath)
        guard mkdir(folder, 0o700) == 0 else {
            throw MediaError(.io, "cannot make a folder for the chunks: \(String(cString: strerror(errno)))", file: folder)
        }
        return folder
    }

    static func removeFolder(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Chunk `number`'s file: MOV for ProRes, else MP4 — containers that keep the encoder's
    /// time base exactly, so the join puts every picture at its exact time.
    static func file(_ folder: String, number: Int, settings: ResolvedVideoSettings) -> String {
        FilePaths.join(folder, String(format: "chunk-%05d", number) + (settings.codec == .prores ? ".mov" : ".mp4"))
    }

    /// The plan of chunk `k`: the output's video track alone over the chunk's source range,
    /// encoded with the whole output's settings (and its share of the cores) into its file.
    static func chunkPlan(_ plan: ConversionPlan, chunk k: Int, folder: String) throws(MediaError) -> ConversionPlan {
        guard let chunking = plan.chunking, var r = plan.request, case .video(var settings) = plan.lanes[chunking.lane].kind else {
            throw MediaError(.processing, "a chunked encode needs the plan's request and its video settings", file: plan.outputPath)
        }
        let video = r.tracks.filter { if case .video = $0.mode { return true } else { return false } }
        guard video.count == 1 else {
            throw MediaError(.processing, "a chunked encode's request has \(video.count) encoded video tracks, not one", file: plan.outputPath)
        }
        let chunk = chunking.chunks[k]
        r.tracks = video
        r.audioMix = nil
        r.fade = nil
        r.metadataSpec = nil
        r.metadata = [:]
        r.optimizeForNetwork = false
        r = r.scratch(into: file(folder, number: chunk.number, settings: settings), format: settings.codec == .prores ? .mov : .mp4)
        let start = chunk.sourceRange.start - plan.source.startTime
        r.timeRange = TimeRange(start: start, duration: chunk.sourceRange.end.isNumeric ? chunk.sourceRange.end - chunk.sourceRange.start : .positiveInfinity)
        var made = try Planner.plan(r, asset: plan.source, sources: plan.extraSources)
        guard made.lanes.count == 1, case .video = made.lanes[0].kind else {
            throw MediaError(.processing, "chunk \(chunk.number)'s plan has \(made.lanes.count) tracks, not its video alone", file: plan.outputPath)
        }
        settings.encoderThreads = chunking.threadsPerWorker
        // A budgeted chunk spends its share of the whole's bits, in two passes (`ChunkBudgets`).
        if let budget = chunk.bitrate { (settings.bitrate, settings.quality, settings.passes) = (budget, nil, 2) }
        made.lanes[0].kind = .video(settings)
        return made.droppingOpenedEncoders()
    }

    /// The plan the output is then written by: the chunks joined from `folder`.
    static func joinPlan(_ plan: ConversionPlan, folder: String) -> ConversionPlan {
        var joined = plan
        guard var chunking = plan.chunking, case .video(var s) = plan.lanes[chunking.lane].kind else { return plan }
        chunking.files = chunking.chunks.map { file(folder, number: $0.number, settings: s) }
        joined.chunking = chunking
        // The joined track copies the chunks' pictures: it runs no statistics pass (`TwoPassRun`).
        s.passes = 1
        joined.lanes[chunking.lane].kind = .video(s)
        return joined
    }
}

/// Who hands a chunked run its chunks: this run alone (`OwnChunks`), or claims shared with the
/// other batch runs on one output folder (`SharedChunks`, many machines). Called from the
/// workers' threads.
protocol ChunkDealer: Sendable {
    /// The next chunk to encode (its index), or nil when none is left for this run.
    func next() -> Int?
    /// Chunk `k`'s file is in place; its encode took `seconds`.
    func finished(_ k: Int, seconds: Double)
    /// Chunk `k` was not finished (a failure, a cancel): it is free to be encoded again. False
    /// when it was no longer this run's (taken over while the run stalled): its failure is not
    /// the chunk's.
    func abandoned(_ k: Int) -> Bool
}

/// Every chunk for this run, longest first: the last to start is short, so all end near together.
final class OwnChunks: ChunkDealer {
    private let order: [Int]
    private let taken = Locked(0)

    init(_ chunking: ChunkedEncode) {
        order = chunking.longestFirst
    }

    func next() -> Int? {
        taken.withLock { n in
            guard n < order.count else { return nil }
            defer { n += 1 }
            return order[n]
        }
    }

    func finished(_ k: Int, seconds: Double) {}
    func abandoned(_ k: Int) -> Bool { true }
}

/// The chunk encoders of one chunked run: `workers` at a time, taking chunks from a dealer
/// (longest first); the first failure cancels the rest. Each chunk is an `ExportSession` of its
/// own plan, made when a worker takes it (planning runs in parallel too).
final class ChunkWorkers: Sendable {
    private struct State {
        var active: [Int: ExportSession] = [:]
        var failure: MediaError?
        var stopped = false
        /// Per chunk, output time encoded so far.
        var done: [MediaTime]
        var lastReport: UInt64 = 0
        /// Per chunk, when its encode started and ended (ns on the uptime clock) and its worker (`times`).
        var spans: [(worker: Int, start: UInt64, end: UInt64?)?] = []
    }

    private let plan: ConversionPlan
    private let chunking: ChunkedEncode
    private let folder: String
    private let dealer: any ChunkDealer
    private let state: Locked<State>

    init(plan: ConversionPlan, folder: String, dealer: (any ChunkDealer)? = nil) {
        let chunking = plan.chunking!
        self.plan = plan
        self.chunking = chunking
        self.folder = folder
        self.dealer = dealer ?? OwnChunks(chunking)
        state = Locked(State(done: Array(repeating: .zero, count: chunking.chunks.count),
                             spans: Array(repeating: nil, count: chunking.chunks.count)))
    }

    /// Each finished chunk's measured encode, from the first chunk's start.
    func times() -> ChunkTimes {
        let spans = state.withLock { $0.spans }
        let origin = spans.compactMap { $0?.start }.min() ?? 0
        let chunks = spans.enumerated().compactMap { k, span -> ChunkTimes.Chunk? in
            guard let span, let end = span.end else { return nil }
            return ChunkTimes.Chunk(number: chunking.chunks[k].number, worker: span.worker,
                                    start: Double(span.start - origin) / 1e9, seconds: Double(end - span.start) / 1e9)
        }
        let last = spans.compactMap { $0?.end }.max() ?? origin
        return ChunkTimes(chunks: chunks, wall: Double(last - origin) / 1e9, workers: chunking.workers)
    }

    /// Stops every chunk encoder within a sample or two; `run` then throws `.cancelled`.
    func cancel() {
        let sessions = state.withLock { s -> [ExportSession] in
            s.stopped = true
            return Array(s.active.values)
        }
        sessions.forEach { $0.cancel() }
    }

    /// Encodes every chunk, blocking the calling thread. Progress: the chunks' output time
    /// together over the output's duration.
    func run(progress: (@Sendable (ConversionProgress) -> Void)?) throws(MediaError) {
        let group = DispatchGroup()
        let started = DispatchTime.now().uptimeNanoseconds
        for w in 0..<chunking.workers {
            DispatchQueue.global().async(group: group) { [self] in
                work(worker: w, started: started, progress: progress)
            }
        }
        group.wait()
        if let failure = state.withLock({ $0.failure }) { throw failure }
        if state.withLock({ $0.stopped }) { throw MediaError.cancelled(file: plan.source.path) }
    }

    private func work(worker: Int, started: UInt64, progress: (@Sendable (ConversionProgress) -> Void)?) {
        while let k = take() {
            let chunk = chunking.chunks[k]
            let began = DispatchTime.now().uptimeNanoseconds
            do throws(MediaError) {
                let session = ExportSession(plan: try ChunkedRun.chunkPlan(plan, chunk: k, folder: folder), decoderCores: chunking.threadsPerWorker)
                guard begin(session, chunk: k) else { _ = dealer.abandoned(k); return }
                defer { state.withLock { _ = $0.active.removeValue(forKey: k) } }
                let t0 = DispatchTime.now().uptimeNanoseconds
                try session.run { [self] p in report(chunk: k, at: ChunkBudgets.encoded(p, chunk: chunk), started: started, to: progress) }
                dealer.finished(k, seconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                report(chunk: k, at: chunk.outputRange.end - chunk.outputRange.start, started: started, to: progress)
                let ended = DispatchTime.now().uptimeNanoseconds
                state.withLock { $0.spans[k] = (worker, began, ended) }
            } catch {
                // Taken over while this run stalled (its temp file removed under it): the new
                // owner encodes the chunk; this run goes on with another.
                guard dealer.abandoned(k) || error.kind == .cancelled else { continue }
                var named = error
                if error.kind != .cancelled { named.message = "chunk \(chunk.number) (\(chunk.outputRange)): \(error.message)" }
                fail(named.at(file: plan.source.path))
                return
            }
        }
    }

    /// The next chunk to encode (the dealer's); nil once none is left or the run stopped.
    private func take() -> Int? {
        guard !state.withLock({ $0.stopped }) else { return nil }
        return dealer.next()
    }

    /// Registers a chunk's session so that a cancel reaches it; false: the run already stopped.
    private func begin(_ session: ExportSession, chunk k: Int) -> Bool {
        state.withLock { s in
            guard !s.stopped else { return false }
            s.active[k] = session
            return true
        }
    }

    private func fail(_ error: MediaError) {
        let sessions = state.withLock { s -> [ExportSession] in
            if s.failure == nil && error.kind != .cancelled { s.failure = error }
            s.stopped = true
            return Array(s.active.values)
        }
        sessions.forEach { $0.cancel() }
    }

    private func report(chunk k: Int, at time: MediaTime, started: UInt64, to handler: (@Sendable (ConversionProgress) -> Void)?) {
        guard let handler else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let total = plan.duration
        let made: ConversionProgress? = state.withLock { s in
            if time.isNumeric { s.done[k] = time }
            guard now - s.lastReport >= 250_000_000 else { return nil }
            s.lastReport = now
            let sum = s.done.reduce(MediaTime.zero, +)
            let elapsed = Double(now - started) / 1e9
            let fraction = total.isNumeric && total > .zero ? min(1, sum.seconds / total.seconds) : 0
            let frames = Int(Double(chunking.frames) * fraction)
            return ConversionProgress(fraction: fraction, outputTime: sum, duration: total, elapsed: elapsed,
                                      framesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0,
                                      speed: elapsed > 0 ? sum.seconds / elapsed : 0,
                                      lanes: [LaneProgress(track: plan.lanes[chunking.lane].track.index, mediaType: .video, outputTime: sum, frames: frames)],
                                      isFinal: false)
        }
        if let made { handler(made) }
    }
}
