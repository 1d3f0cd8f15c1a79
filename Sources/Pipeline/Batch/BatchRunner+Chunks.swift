import Foundation
import Recipe

/// Some chunks of the file are being encoded by other runs (live claims): the run that
/// finishes the last one joins. Nothing is recorded.
struct ChunksElsewhere: Error {}

/// One long file on many machines (docs/batch.md): a recipe with `parallel:` has each file's
/// chunks claimed and encoded by whichever runs reach it — on any host, every slice — and the
/// run that finds every chunk in place joins them under the file's claim, as it converts a file.
extension BatchRunner {
    /// A chunked recipe's files are shared by every slice (`--shard`, a Slurm array, an
    /// Indexed Job): each run claims their chunks, so one file spreads over all of them.
    var sharesChunks: Bool { options.recipe.parallel != nil }

    enum ChunkStep {
        /// Every chunk is in place (or the file is not chunked, or cannot be planned: the
        /// conversion says why): join under the file's claim. A chunk that failed here is
        /// the file's failure, recorded there.
        case join(failure: MediaError?)
        case outcome(Outcome)
    }

    /// Before the file's claim: the chunks this run can claim, encoded. Nothing is recorded
    /// here but each chunk's `chunk` line; a file that is done, given up or tried elsewhere
    /// meanwhile is left as the claim would leave it.
    func encodeChunks(_ item: Item, index: Int, of total: Int, events: @escaping @Sendable (BatchEvent) -> Void) -> ChunkStep {
        ledger.refresh()
        if (try? isDone(item, record: false)) == true { return .outcome(.doneElsewhere) }
        let failures = ledger.history(of: item.rel).filter { $0.status == .failed && sameVersion($0, item) }.count
        if failures >= options.maxAttempts { return .outcome(.givenUp) }
        if failures > item.failuresAtScan { return .outcome(.triedElsewhere) }
        // A refused source, one that cannot be planned or whose chunks cannot be set up goes
        // straight to its claim: the conversion there meets the same error and records it.
        guard refusal(item, outputs: item.outputRels) == nil, let conversion = try? FFmpegLog.scoped({ try plan(item) }),
              conversion.files.count == 1, conversion.stills.isEmpty, Self.sharesChunks(of: conversion.files[0]),
              let shared = try? sharedChunks(item, plan: conversion.files[0], events: events) else { return .join(failure: nil) }
        if shared.isComplete { return .join(failure: nil) }
        events(.chunking(item.rel, index: index + 1, of: total, chunks: shared.plan.chunking?.chunks.count ?? 0, present: shared.present))
        do {
            try encode(shared)
        } catch let e as MediaError where e.kind == .cancelled {
            return .outcome(.cancelled)
        } catch let e as MediaError {
            return .join(failure: e)
        } catch {
            return .join(failure: MediaError(.processing, "\(error)", file: item.path))
        }
        if shared.isComplete { return .join(failure: nil) }
        if (try? isDone(item, record: false)) == true {
            // Joined by another run meanwhile, perhaps after this one made its folder again
            // (its split): that goes too.
            SharedChunks.removeAll(output: item.outputRel, source: item.rel, stateDir: stateDir)
            return .outcome(.doneElsewhere)
        }
        return .outcome(.chunksElsewhere)
    }

    /// Under the file's claim: a chunked conversion's output is joined from the shared chunks,
    /// any still missing encoded first (their runs died, or this run is the only one). True when
    /// the conversion joins chunks.
    func joinChunks(_ conversion: inout BatchConversion, _ item: Item, failure: MediaError?,
                    events: @escaping @Sendable (BatchEvent) -> Void) throws -> Bool {
        guard conversion.files.count == 1, conversion.stills.isEmpty, Self.sharesChunks(of: conversion.files[0]) else { return false }
        // A chunk that failed because its source changed under it is the change's doing.
        try checkUnchanged(item, fingerprint: nil)
        if let failure { throw failure }
        let shared = try sharedChunks(item, plan: conversion.files[0], events: events)
        if !shared.isComplete { try encode(shared) }
        // Another run holds a chunk's live claim: it finishes it, and then joins.
        guard shared.isComplete else { throw ChunksElsewhere() }
        // Every chunk was read from the file they are keyed by (its content, not only its stat).
        try checkUnchanged(item, fingerprint: shared.fingerprint)
        conversion.files[0] = ChunkedRun.joinPlan(shared.plan, folder: shared.folder)
        return true
    }

    /// A chunked plan whose chunks other runs can encode: quality-coded. A bitrate-coded one's
    /// budgets come from one first pass over the whole, so it is chunked on the machine that
    /// converts it (as a plain `run` does).
    static func sharesChunks(of plan: ConversionPlan) -> Bool {
        plan.chunking?.rate == .quality
    }

    /// Each chunk read the source by its path, perhaps at another time or on another machine: a
    /// source replaced meanwhile (a copy renamed into place keeping its mtime gets past
    /// `--settle`) would join pictures of two files. Its size and mtime must still be the ones
    /// this run found and, given the `fingerprint` its chunks are keyed by, its content that
    /// one (a chmod alone changes nothing); otherwise the chunks go and the file waits for the
    /// next run, which sees it changed and converts it again.
    private func checkUnchanged(_ item: Item, fingerprint: String?) throws {
        let now = SourceIdentity.of(item.path)
        let same = now.map { $0.size == item.identity.size && SourceIdentity.sameTime($0.mtime, item.identity.mtime) } ?? false
        guard same, try fingerprint.map({ try SourceIdentity.fingerprint(item.path, size: item.identity.size) == $0 }) ?? true else {
            SharedChunks.removeAll(output: item.outputRel, source: item.rel, stateDir: stateDir)
            throw MediaError(.processing, Self.changedMessage, file: item.path)
        }
    }

    static let changedMessage = "the source changed while its chunks were encoded: they are discarded and not joined (a later run converts it again)"

    /// The shared chunks of `item`'s chunked `plan` (its split the first run's).
    func sharedChunks(_ item: Item, plan: ConversionPlan, events: @escaping @Sendable (BatchEvent) -> Void) throws -> SharedChunks {
        // What every host sees alike: the size, the mtime to the second (sshfs clients stamp whole
        // seconds) and the content's fingerprint (a file replaced keeping both is another file).
        let fingerprint = try SourceIdentity.fingerprint(item.path, size: item.identity.size)
        let version = "\(item.rel) \(options.recipeHash) \(item.identity.size) \(Int64(item.identity.mtime.rounded(.down))) \(fingerprint)"
        return try SharedChunks(plan: plan, stateDir: stateDir, output: item.outputRel, source: item.rel, version: version, fingerprint: fingerprint,
                                host: options.host, watch: watch, claimTimeout: options.claimTimeout,
                                wanted: { [self] in
                                    guard !cancelled.load(ordering: .acquiring) else { return false }
                                    ledger.refresh()
                                    return (try? isDone(item, record: false)) != true
                                },
                                record: { [self] chunk, total, seconds in
                                    recordChunk(item, chunk: chunk, of: total, seconds: seconds)
                                    events(.chunkEncoded(item.rel, chunk: chunk.number, of: total, seconds: seconds))
                                })
    }

    /// Encodes the chunks this run can claim, on this machine's workers; stoppable by `cancel`.
    private func encode(_ shared: SharedChunks) throws {
        let workers = ChunkWorkers(plan: shared.plan, folder: shared.folder, dealer: shared)
        let key = UUID()
        sessions.withLock { $0[key] = { workers.cancel() } }
        defer { sessions.withLock { _ = $0.removeValue(forKey: key) } }
        if cancelled.load(ordering: .acquiring) { workers.cancel() }
        try FFmpegLog.scoped { try workers.run(progress: nil) }
    }

    /// A chunk in place: its ledger line (best effort: the chunk's file is what a join reads).
    private func recordChunk(_ item: Item, chunk: ChunkedEncode.Chunk, of total: Int, seconds: Double) {
        var e = LedgerEntry(time: ISO8601DateFormatter().string(from: HostClock.date()), source: item.rel, size: item.identity.size,
                            mtime: item.identity.mtime, fingerprint: "", recipe: options.recipeHash, status: .chunk, attempt: 0,
                            error: nil, exitCode: nil, output: item.outputRel, seconds: seconds, host: options.host, pid: getpid())
        e.ctime = item.ctime
        e.chunk = chunk.number
        e.chunks = total
        e.stored = clock.now()
        try? ledger.append(e)
        chunkWork.withLock { $0.append(BatchReport.ChunkWork(source: item.rel, chunk: chunk.number, chunks: total, seconds: seconds)) }
    }
}
