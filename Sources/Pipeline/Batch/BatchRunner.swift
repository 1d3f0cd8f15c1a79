import Dispatch
import Foundation
import Recipe
import Synchronization

public struct BatchOptions: Sendable {
    public var recipe: Recipe
    /// The recipe file's text, hashed into every ledger entry: a changed recipe converts again.
    public var recipeText: String
    public var inputDir: String
    public var outputDir: String
    public var jobs = 1
    public var shard: (index: Int, count: Int)?
    /// Seconds a file must have been left alone before it is converted.
    public var settle: TimeInterval = 60
    public var maxAttempts = 3
    /// Seconds after a failure (by the storage's clock) before the file is tried again: hosts
    /// whose runs overlap spend one attempt per round between them, not one each.
    public var retryAfter: TimeInterval = 60
    public var dryRun = false
    /// A claim whose heartbeat is older than this is taken over.
    public var claimTimeout: TimeInterval = 120
    public var moveDone: String?
    /// Keep outputs made by another version of the recipe instead of converting again.
    public var ignoreRecipeChange = false
    public var extensions: Set<String> = BatchOptions.defaultExtensions
    /// This machine's name in claims and the ledger (REENCODE_HOSTNAME overrides the host name).
    public var host: String = HostIdentity.name

    public static let defaultExtensions: Set<String> = [
        "mp4", "m4v", "mov", "qt", "mkv", "webm", "avi", "ts", "mts", "m2ts", "3gp", "mxf", "wmv", "flv", "mpg", "mpeg", "vob", "dv",
        "m4a", "mp3", "wav", "aac", "flac", "ogg", "opus", "mka",
    ]

    public init(recipe: Recipe, recipeText: String, inputDir: String, outputDir: String) {
        self.recipe = recipe; self.recipeText = recipeText; self.inputDir = inputDir; self.outputDir = outputDir
    }

    var recipeHash: String { FNV1a.hex(recipeText) }
}

/// What happened to the files of one batch run.
public struct BatchReport: Sendable {
    public struct Failure: Sendable { public let source: String; public let error: String; public let exitCode: Int32 }
    /// A path left out with the reason: not a regular file, an unreadable folder, a broken link.
    public struct Skipped: Sendable {
        public let path: String
        public let reason: String
        /// `path` is already escaped text (`NameText`): the name is not UTF-8.
        public var escaped = false
    }
    /// Another run holds this folder's lock for this host and slice; nothing was done.
    public var lockedOut: FolderLock.Holder??
    /// The run stopped on Ctrl-C or SIGTERM; what it finished before is listed.
    public var cancelled = false
    /// This run's slice, "all" or "I/N".
    public var slice = "all"
    public var converted: [String] = []
    public var failed: [Failure] = []
    /// Stopped by a shortage of the system's (memory, threads, open files: exit 75), not by the
    /// file: recorded `postponed`, no attempt spent; the next run tries again.
    public var postponed: [Failure] = []
    public var alreadyDone = 0
    public var growing: [String] = []
    public var givenUp: [String] = []
    public var otherShard = 0
    public var claimedElsewhere: [String] = []
    /// Failed on another host since this run began: left for the next run (one attempt a run).
    public var triedElsewhere: [String] = []
    /// Failed less than `retryAfter` ago: tried again by a later run.
    public var retryLater: [String] = []
    public var skipped: [Skipped] = []
    /// Other names (links, hard links) of files converted under their winning name.
    public var duplicates: [String] = []
    /// Files under the input folder that are this batch's own outputs (the output folder is the
    /// input folder, or the input lies inside it): never converted.
    public var ownOutputs = 0
    /// Files that would be converted (`--dry-run`), or were started.
    public var planned: [String] = []
    /// `--dry-run`: files that a run would refuse (their output is another source's, or a file
    /// reencode batch did not make), with why; not in `planned`.
    public var refused: [Skipped] = []
    /// What converted files' outputs do not keep (a plan's notices), per source, in the order
    /// the files finished.
    public struct Warning: Sendable {
        public let source: String
        public let notice: PlanNotice
        /// The output it is about, when the recipe has several (`outputs:`).
        public var output: String?
    }
    public var warnings: [Warning] = []
    public var removedTempFiles = 0
    public var removedClaims = 0
    public var seconds = 0.0
    public var mediaSeconds = 0.0
    public var bytesIn: Int64 = 0
    /// Ledger lines decoded by this run: each line once (the whole ledger at the start, then
    /// what was appended), however many files are judged.
    public var ledgerLinesRead = 0
    /// Ledger lines that are not entries (`JOURNAL line N: …`): said on every run, never skipped in silence.
    public var ledgerUnreadable: [String] = []
    /// Chunks of chunked outputs this run encoded (docs/batch.md, "One long file on many machines").
    public struct ChunkWork: Sendable {
        public let source: String
        public let chunk: Int
        public let chunks: Int
        public let seconds: Double
    }
    public var chunks: [ChunkWork] = []
    /// Chunked files whose last chunks other runs are encoding: the run that finishes the last one joins.
    public var chunksElsewhere: [String] = []
}

public enum BatchEvent: Sendable {
    case started(String, index: Int, of: Int)
    case finished(String, seconds: Double)
    case failed(String, message: String)
    case claimedElsewhere(String, host: String)
    /// Left out for good and recorded in the ledger (said once, on the run that first sees it).
    case skipped(BatchReport.Skipped)
    /// Something went wrong that does not undo the conversion (e.g. --move-done could not move).
    case warning(String, message: String)
    /// A chunked file's chunks are being encoded: `present` of `chunks` were in place already.
    case chunking(String, index: Int, of: Int, chunks: Int, present: Int)
    case chunkEncoded(String, chunk: Int, of: Int, seconds: Double)
}

/// `reencode batch`: converts every media file of a folder tree that has no finished output yet,
/// exactly once, whatever happens (docs/batch.md).
public final class BatchRunner: Sendable {
    public let options: BatchOptions
    let cancelled = Atomic<Bool>(false)
    /// How to stop each conversion under way (an export session, a recipe's stills alone, a
    /// file's chunk encoders).
    let sessions = Locked<[UUID: @Sendable () -> Void]>([:])
    /// The chunks this run encoded, as they finish.
    let chunkWork = Locked<[BatchReport.ChunkWork]>([])
    /// Output subfolders this run made: removed at the end if still empty (a cancel, a failure).
    private let madeFolders = Locked<[String]>([])

    /// What this host saw of other runs' heartbeats (claims, temp files, clock probes).
    let watch: Heartbeats
    /// Read once per run, then only what was appended (docs/batch.md, "State").
    let ledger: Ledger

    public init(options: BatchOptions) {
        self.options = options
        watch = Heartbeats(folder: options.outputDir + "/.reencode/claims", host: options.host, timeout: options.claimTimeout)
        ledger = Ledger(folder: options.outputDir + "/.reencode")
    }

    var stateDir: String { options.outputDir + "/.reencode" }
    var claimsDir: String { stateDir + "/claims" }
    var clock: StorageClock { StorageClock(folder: claimsDir, host: options.host) }
    var slice: String { options.shard.map { "\($0.index)/\($0.count)" } ?? "all" }
    /// One lock per host, recipe and slice: shards packed onto one machine run side by side, and
    /// so do two recipes converting into one folder (their outputs are other files); an
    /// overlapping run of the same recipe and slice steps aside.
    var lockPath: String {
        stateDir + "/batch-\(HostIdentity.fileTag(options.host))-\(options.recipeHash)-" + (options.shard.map { "shard-\($0.index)-of-\($0.count)" } ?? "all") + ".lock"
    }

    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        sessions.withLock { for stop in $0.values { stop() } }
    }

    public func run(events: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws -> BatchReport {
        let started = Date()
        var report = BatchReport()
        report.slice = slice
        // A dry run reads only: no folder, lock, claim, probe or ledger line is made.
        if options.dryRun { return try plan(report, started: started) }
        do {
            try FileManager.default.createDirectory(atPath: claimsDir, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.cannotCreateOutput, "cannot create the output folder: \(error.localizedDescription)", file: options.outputDir)
        }
        let holder = FolderLock.Holder(host: options.host, pid: getpid(), since: ISO8601DateFormatter().string(from: HostClock.date()))
        let lock: FolderLock
        switch try FolderLock.acquire(path: lockPath, holder: holder) {
        case .held(let by):
            report.lockedOut = .some(by)
            return report
        case .acquired(let l): lock = l
        }
        defer { withExtendedLifetime(lock) {} }
        for warning in try StorageCheck.run(folder: claimsDir, host: options.host) { events(.warning(options.outputDir, message: warning)) }
        let clock = self.clock
        defer { removeEmptyFolders(); clock.remove(); watch.save() }

        sweep(&report)
        watch.save()
        ledger.refresh()
        let todo = classify(try scan(), now: clock.now(), report: &report, events: events)
        report.planned = todo.map(\.rel)
        if todo.isEmpty {
            report.seconds = Date().timeIntervalSince(started)
            noteLedger(&report)
            return report
        }

        let shared = Locked((next: 0, report: report))
        let group = DispatchGroup()
        for _ in 0..<max(1, min(options.jobs, todo.count)) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while !self.cancelled.load(ordering: .acquiring) {
                    let i: Int? = shared.withLock { s in
                        guard s.next < todo.count else { return nil }
                        defer { s.next += 1 }
                        return s.next
                    }
                    guard let i else { return }
                    let outcome = self.process(todo[i], index: i, of: todo.count, events: events)
                    shared.withLock { s in
                        switch outcome {
                        case .converted(let media, let bytes, let warnings):
                            s.report.converted.append(todo[i].rel); s.report.mediaSeconds += media; s.report.bytesIn += bytes
                            s.report.warnings += warnings
                        case .failed(let f): s.report.failed.append(f)
                        case .postponed(let f): s.report.postponed.append(f)
                        case .claimed: s.report.claimedElsewhere.append(todo[i].rel)
                        case .doneElsewhere: s.report.alreadyDone += 1
                        case .givenUp: s.report.givenUp.append(todo[i].rel)
                        case .triedElsewhere: s.report.triedElsewhere.append(todo[i].rel)
                        case .chunksElsewhere, .chunksMissingUnderClaim: s.report.chunksElsewhere.append(todo[i].rel)
                        case .cancelled: break
                        }
                    }
                }
            }
        }
        group.wait()
        report = shared.withLock { $0.report }
        report.chunks = chunkWork.withLock { $0 }
        report.seconds = Date().timeIntervalSince(started)
        report.cancelled = cancelled.load(ordering: .acquiring)
        noteLedger(&report)
        return report
    }

    /// What the ledger cost this run, and the lines of it that are not entries.
    private func noteLedger(_ report: inout BatchReport) {
        report.ledgerLinesRead = ledger.linesRead()
        report.ledgerUnreadable = ledger.unreadable()
    }

    /// `--dry-run`: what a run would convert now, judged by this host's clock (nothing may be
    /// written, not even the storage clock's probe).
    private func plan(_ base: BatchReport, started: Date) throws -> BatchReport {
        var report = base
        ledger.refresh()
        let todo = classify(try scan(), now: HostClock.now(), report: &report, events: { _ in }, record: false)
        for item in todo {
            if let why = refusal(item, outputs: item.outputRels) {
                report.refused.append(BatchReport.Skipped(path: item.rel, reason: why))
            } else {
                report.planned.append(item.rel)
            }
        }
        noteLedger(&report)
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    // MARK: Scan and classify

    struct Item: Sendable {
        let rel: String
        let path: String
        /// Its outputs, relative to the output folder, in the recipe's order
        /// (`outputRelativePaths`); the first names its claim.
        let outputRels: [String]
        var outputRel: String { outputRels[0] }
        var outputPath: String { outputDir + "/" + outputRel }
        let outputDir: String
        let identity: SourceIdentity
        let ctime: Double
        /// Failed attempts of this version in the ledger when this run read it.
        var failuresAtScan = 0
        /// Another source present owns the same output: refused with this message.
        var conflict: String?
    }

    struct Scan {
        var items: [Item]
        var skipped: [SourceScan.Skipped]
        var duplicates: [String]
        var ownOutputs: [String] = []
    }

    /// Media files under the input folder (SourceScan: regular files only, one name per file),
    /// less the outputs the ledger names (when the output folder is, or is inside, the input).
    func scan() throws -> Scan {
        let root = URL(fileURLWithPath: options.inputDir).standardizedFileURL.resolvingSymlinksInPath().path
        let outRoot = URL(fileURLWithPath: options.outputDir).standardizedFileURL.resolvingSymlinksInPath().path
        let known = Set(ledger.lastClaims().keys)
        let outputs = SourceScan.Outputs(root: outRoot, identity: OwnOutputs.identity(outRoot),
                                         own: OwnOutputs(root: root, outRoot: outRoot, outputs: known))
        let found = try SourceScan.walk(root: root, outputs: outputs, extensions: options.extensions)
        let items = found.found.map { f in
            Item(rel: f.rel, path: f.path, outputRels: outputRelativePaths(for: f.rel), outputDir: options.outputDir,
                 identity: f.identity, ctime: f.ctime)
        }
        return Scan(items: items, skipped: found.skipped, duplicates: found.duplicates.map(\.rel).sorted(), ownOutputs: found.ownOutputs)
    }

    func inShard(_ rel: String) -> Bool {
        guard let (index, count) = options.shard else { return true }
        return Int(FNV1a.hash(Array(rel.utf8)) % UInt64(count)) == index
    }

    /// The source that owns each output: the one the ledger last recorded `started` or `done`
    /// for it, else the first in byte order of the relative path among the sources that map onto it.
    func owners(_ items: [Item], lastClaims: [String: LedgerEntry]) -> [String: String] {
        let recorded = lastClaims.mapValues(\.source)
        var byOutput: [String: [String]] = [:]
        for i in items { for o in Set(i.outputRels) { byOutput[o, default: []].append(i.rel) } }
        var owner: [String: String] = [:]
        for (output, sources) in byOutput {
            if let r = recorded[output], sources.contains(r) { owner[output] = r; continue }
            owner[output] = sources.min { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        }
        return owner
    }

    func classify(_ scan: Scan, now: Double, report: inout BatchReport,
                  events: @Sendable (BatchEvent) -> Void, record: Bool = true) -> [Item] {
        // Left-out paths are recorded once (status "skipped") and said once; later runs count them.
        for s in scan.skipped where inShard(s.rel) {
            let skip = BatchReport.Skipped(path: s.rel, reason: s.reason, escaped: s.escaped)
            report.skipped.append(skip)
            let known = ledger.history(of: s.rel).contains { $0.status == .skipped && $0.error == s.reason }
            if record && !known {
                let entry = LedgerEntry(time: ISO8601DateFormatter().string(from: HostClock.date()), source: s.rel, size: 0, mtime: 0,
                                        fingerprint: "", recipe: options.recipeHash, status: .skipped, attempt: 0, error: s.reason,
                                        exitCode: nil, output: nil, seconds: nil, host: options.host, pid: getpid())
                do {
                    try ledger.append(entry)
                    events(.skipped(skip))
                } catch {
                    events(.warning(s.rel, message: "skipped, \(s.reason), and not recorded in the ledger: \(Self.describe(error).0)"))
                }
            }
        }
        report.duplicates = scan.duplicates.filter(inShard)
        report.ownOutputs = scan.ownOutputs.filter(inShard).count
        let lastClaims = ledger.lastClaims()
        let owner = owners(scan.items, lastClaims: lastClaims)
        var todo: [Item] = []
        var unmoved: [Item] = []
        defer { for item in unmoved { moveDone(item, events: events) } }
        for var item in scan.items {
            // A chunked recipe's files are every slice's: each run claims their chunks.
            guard inShard(item.rel) || sharesChunks else {
                report.otherShard += 1
                continue
            }
            if now - item.identity.mtime < options.settle {
                report.growing.append(item.rel)
                continue
            }
            let history = ledger.history(of: item.rel).filter { sameVersion($0, item) }
            let done: Bool
            do { done = try isDone(item, record: record) } catch {
                // A shortage of the system's while reading the source: judged next run.
                let (message, code) = Self.describe(error)
                report.postponed.append(BatchReport.Failure(source: item.rel, error: message, exitCode: code))
                continue
            }
            if done {
                report.alreadyDone += 1
                // Converted, but its move failed or was cut short (kill -9 after `done`): again.
                if record, options.moveDone != nil { unmoved.append(item) }
                continue
            }
            let failures = history.filter { $0.status == .failed }
            item.failuresAtScan = failures.count
            if item.failuresAtScan >= options.maxAttempts {
                report.givenUp.append(item.rel)
                continue
            }
            if let at = failures.last?.stored, now - at < options.retryAfter {
                report.retryLater.append(item.rel)
                continue
            }
            // Every output has one owner: a source that shares one with another that owns it is refused.
            if let (output, o) = item.outputRels.lazy.compactMap({ r in owner[r].flatMap { $0 != item.rel ? (r, $0) : nil } }).first {
                item.conflict = "its output \(output) is also the output of \(o): not converted (rename one of them, or put {ext} in the recipe's output name)"
            }
            todo.append(item)
        }
        return todo
    }

    /// The entry is about this version of the file (and, unless told otherwise, this recipe).
    func sameVersion(_ e: LedgerEntry, _ item: Item) -> Bool {
        e.size == item.identity.size && SourceIdentity.sameTime(e.mtime, item.identity.mtime)
            && (options.ignoreRecipeChange || e.recipe == options.recipeHash)
    }

    /// The outputs in place are the ones this source's last conversion with this recipe made: the
    /// ledger's last entry for its first output is this version's `done` (not a `started` whose
    /// conversion was cut short, not another recipe's or another source's), so is the last entry
    /// of every file that `done` names, and each file still has the size and mtime recorded then
    /// (older entries lack them).
    /// And the source is still the file that was converted: its ctime is one that a client
    /// recorded for this conversion (each client sees its own: sshfs reports the mtime as the
    /// ctime; inode numbers are not compared at all, each sshfs or NFS client may number files
    /// its own way). Otherwise (replaced, or rewritten and its mtime put back, or only chmod-ed,
    /// or first seen by this kind of client) the recorded fingerprint decides; when it matches,
    /// a `done` line with this ctime is appended (unless `record` is false, a dry run), so that
    /// later runs know the file by a stat again. Entries without a ctime are judged by size and
    /// mtime alone.
    func isDone(_ item: Item, record: Bool = true) throws -> Bool {
        let isThisDone = { (e: LedgerEntry?) -> Bool in e.map { $0.status == .done && $0.source == item.rel && self.sameVersion($0, item) } ?? false }
        guard let done = ledger.lastClaim(of: item.outputRel), isThisDone(done) else { return false }
        for file in done.files {
            guard file.path == item.outputRel || isThisDone(ledger.lastClaim(of: file.path)),
                  let output = SourceIdentity.of(options.outputDir + "/" + file.path), Self.isRecordedOutput(output, of: file) else { return false }
        }
        guard done.ctime != nil else { return true }
        let seen = ledger.history(of: item.rel).filter {
            $0.status == .done && $0.output == done.output && $0.fingerprint == done.fingerprint && sameVersion($0, item)
        }
        if seen.contains(where: { $0.ctime.map { SourceIdentity.sameTime($0, item.ctime) } ?? false }) { return true }
        guard try SourceIdentity.fingerprint(item.path, size: item.identity.size) == done.fingerprint else { return false }
        if record {
            var same = done
            same.inode = nil
            same.ctime = item.ctime
            same.time = ISO8601DateFormatter().string(from: HostClock.date())
            same.stored = clock.now()
            same.seconds = nil
            same.host = options.host
            same.pid = getpid()
            // Best effort: without it the next run reads the fingerprint again, nothing worse.
            try? ledger.append(same)
        }
        return true
    }

    /// The output file has the size and mtime the `done` entry recorded (true when it recorded none).
    static func isRecordedOutput(_ output: SourceIdentity, of done: LedgerEntry.Output) -> Bool {
        guard let size = done.size, let mtime = done.mtime else { return true }
        return output.size == size && SourceIdentity.sameTime(output.mtime, mtime)
    }

    // MARK: Convert one

    enum Outcome { case converted(Double, Int64, [BatchReport.Warning]), failed(BatchReport.Failure), postponed(BatchReport.Failure), claimed, doneElsewhere, givenUp, triedElsewhere, chunksElsewhere, chunksMissingUnderClaim, cancelled }

    /// The entry says its source made, or began to make, its output (a crash may come between
    /// the output's rename and the `done` line: the `started` line before it still names the owner).
    static func claimsOutput(_ e: LedgerEntry) -> Bool { e.status == .done || e.status == .started }

    func claimPath(forOutput rel: String) -> String { claimsDir + "/" + FNV1a.hex(rel) + ".claim" }

    func process(_ item: Item, index: Int, of total: Int, events: @escaping @Sendable (BatchEvent) -> Void) -> Outcome {
        // The run that finished a file's last chunk may have found this run holding the file's
        // claim (about to find a chunk missing) and gone on: once this run lets the claim go, it
        // looks again, so that some run joins the chunks.
        for _ in 0..<3 {
            let outcome = processOnce(item, index: index, of: total, events: events)
            guard case .chunksMissingUnderClaim = outcome else { return outcome }
        }
        return .chunksElsewhere
    }

    private func processOnce(_ item: Item, index: Int, of total: Int, events: @escaping @Sendable (BatchEvent) -> Void) -> Outcome {
        // A chunked file's chunks are encoded first, claimed one by one beside other runs; the
        // run that finds them all in place joins them under the file's claim.
        var chunkFailure: MediaError?
        if sharesChunks {
            switch encodeChunks(item, index: index, of: total, events: events) {
            case .join(let failure): chunkFailure = failure
            case .outcome(let o): return o
            }
        }
        var joined = false
        let claim: Claim
        // A refused source does not wait for its output's claim (its owner may hold it): it
        // claims itself, so that hosts record the refusal once between them.
        let claimAt = item.conflict == nil ? claimPath(forOutput: item.outputRel) : claimsDir + "/" + FNV1a.hex("source:" + item.rel) + ".claim"
        switch Claim.acquire(at: claimAt, source: item.rel, host: options.host, watch: watch) {
        case .busy(let host, _, _):
            events(.claimedElsewhere(item.rel, host: host))
            return .claimed
        case .short(let e):
            return .postponed(BatchReport.Failure(source: item.rel, error: e.description, exitCode: e.exitCode))
        case .acquired(let c): claim = c
        }
        defer { claim.release() }
        claim.startHeartbeat(every: max(0.5, options.claimTimeout / 4))
        // Read again under the claim: another machine may have finished it, or tried it, since
        // our scan. Attempts are counted across hosts, and a run makes at most one: a file
        // another host tried during this run waits for the next.
        ledger.refresh()
        let history = ledger.history(of: item.rel).filter { sameVersion($0, item) }
        // A shortage of the system's while reading the source: nothing recorded, judged next run.
        let postpone = { (e: Error) -> Outcome in
            let (message, code) = Self.describe(e)
            return .postponed(BatchReport.Failure(source: item.rel, error: message, exitCode: code))
        }
        do { if try isDone(item) { return .doneElsewhere } } catch { return postpone(error) }
        let failures = history.filter { $0.status == .failed }.count
        if failures >= options.maxAttempts { return .givenUp }
        if failures > item.failuresAtScan { return .triedElsewhere }
        let clock = self.clock
        let t0 = Date()
        var entry = LedgerEntry(time: ISO8601DateFormatter().string(from: HostClock.date()), source: item.rel, size: item.identity.size,
                                mtime: item.identity.mtime, fingerprint: "", recipe: options.recipeHash, status: .done,
                                attempt: failures + 1, error: nil, exitCode: nil, output: item.outputRel, seconds: nil,
                                host: options.host, pid: getpid())
        entry.ctime = item.ctime
        var media = 0.0
        var warnings: [BatchReport.Warning] = []
        // A refused source records its refusal; its outputs are left as they are.
        let refuse = { (entry: inout LedgerEntry, why: String) in
            entry.status = .failed
            entry.error = "\(item.rel): \(why)"
            entry.exitCode = LedgerExitCode.outputTaken
            entry.output = nil
        }
        if let refused = refusal(item, outputs: item.outputRels) {
            refuse(&entry, refused)
        } else {
            events(.started(item.rel, index: index + 1, of: total))
            do { entry.fingerprint = try SourceIdentity.fingerprint(item.path, size: item.identity.size) } catch { return postpone(error) }
            do {
                // Side by side with other jobs: FFmpeg's log lines stay with their conversion.
                var conversion = try FFmpegLog.scoped { try plan(item) }
                joined = try joinChunks(&conversion, item, failure: chunkFailure, events: events)
                // A series of stills is named once planned: its files are judged again.
                if let refused = refusal(item, outputs: conversion.outputs) {
                    refuse(&entry, refused)
                } else {
                    conversion.replacingOwn()
                    if conversion.several { entry.outputs = conversion.outputs.map { LedgerEntry.Output(path: $0) } }
                    // Ownership first: once an output can exist, the ledger names its source.
                    var start = entry
                    start.status = .started
                    start.stored = clock.now()
                    do { try ledger.append(start) } catch {
                        let (m, c) = Self.describe(error)
                        events(.failed(item.rel, message: m))
                        return .failed(BatchReport.Failure(source: item.rel, error: m, exitCode: c))
                    }
                    for line in conversion.leftOut { events(.warning(item.rel, message: line)) }
                    media = try FFmpegLog.scoped {
                        // Made just before the conversion, and again if another run removed it as
                        // empty meanwhile.
                        try SharedFolder.retryingIfRemoved(output: item.outputPath, make: { try makeFolders(for: item.outputPath) }) {
                            try makeFolders(for: item.outputPath)
                            return try convert(conversion)
                        }
                    }
                    entry.outputs = entry.outputs?.map { o in
                        let made = SourceIdentity.of(options.outputDir + "/" + o.path)
                        return LedgerEntry.Output(path: o.path, size: made?.size, mtime: made?.mtime)
                    }
                    let output = SourceIdentity.of(item.outputPath)
                    entry.outputSize = output?.size
                    entry.outputMtime = output?.mtime
                    warnings = conversion.warnings(source: item.rel, relative: relative)
                    let said = warnings.map { w in (w.output.map { "output \($0): " } ?? "") + (w.notice.file.map { "\($0): " } ?? "") + w.notice.description }
                    if !said.isEmpty || !conversion.leftOut.isEmpty { entry.warnings = said + conversion.leftOut }
                    guard claim.isHeld else {
                        // We stalled past the timeout and another machine took over: its result stands.
                        return .claimed
                    }
                }
            } catch let e as MediaError where e.kind == .cancelled {
                return .cancelled
            } catch is ChunksElsewhere {
                return .chunksMissingUnderClaim
            } catch where !claim.isHeld {
                // Taken over while we stalled: the failure is likely the new owner's doing (it
                // removed our temp file), and the file is its to record.
                return .claimed
            } catch let e as MediaError where e.kind == .resources {
                entry.status = .postponed
                entry.error = e.description
                entry.exitCode = e.exitCode
                entry.output = nil
                entry.outputs = nil
            } catch {
                let (message, code) = Self.describe(error)
                entry.status = .failed
                entry.error = message
                entry.exitCode = code
                entry.output = nil
                entry.outputs = nil
            }
        }
        entry.seconds = Date().timeIntervalSince(t0)
        entry.stored = clock.now()
        do { try ledger.append(entry) } catch {
            let (m, c) = Self.describe(error)
            events(.failed(item.rel, message: m))
            return .failed(BatchReport.Failure(source: item.rel, error: m, exitCode: c))
        }
        // Joined, or the join failed in processing (its check refused a chunk, a chunk does not
        // decode: they are encoded anew next time); one that failed writing (74, 73), was
        // postponed or cancelled keeps them for the next attempt.
        if joined && (entry.status == .done || (entry.status == .failed && entry.exitCode == ExitCode.failure)) {
            SharedChunks.removeAll(output: item.outputRel, source: item.rel, stateDir: stateDir)
        }
        // Given up: its chunks would never be joined.
        if sharesChunks && entry.status == .failed && entry.attempt >= options.maxAttempts && entry.exitCode != LedgerExitCode.outputTaken {
            SharedChunks.removeAll(output: item.outputRel, source: item.rel, stateDir: stateDir)
        }
        if entry.status == .postponed {
            return .postponed(BatchReport.Failure(source: item.rel, error: entry.error ?? "", exitCode: entry.exitCode ?? ExitCode.temporaryFailure))
        }
        if entry.status == .failed {
            events(.failed(item.rel, message: entry.error ?? ""))
            return .failed(BatchReport.Failure(source: item.rel, error: entry.error ?? "", exitCode: entry.exitCode ?? ExitCode.failure))
        }
        moveDone(item, events: events)
        events(.finished(item.rel, seconds: entry.seconds ?? 0))
        return .converted(media, item.identity.size, warnings)
    }

    /// Runs a planned conversion (its media files from one read, or its stills alone), stoppable
    /// by `cancel`: every output in place, or none. Returns the media's length in seconds.
    private func convert(_ c: BatchConversion) throws -> Double {
        let stop: @Sendable () -> Void
        let run: () throws -> Double
        if c.files.isEmpty {
            let stills = StillRun(plans: c.stills)
            stop = { stills.cancel() }
            run = { try stills.run(); return c.stills.first?.duration.seconds ?? 0 }
        } else {
            let session = ExportSession(plans: c.files, stills: c.stills)
            stop = { session.cancel() }
            run = { try session.runAll()[0].duration.seconds }
        }
        let key = UUID()
        sessions.withLock { $0[key] = stop }
        defer { sessions.withLock { _ = $0.removeValue(forKey: key) } }
        if cancelled.load(ordering: .acquiring) { stop() }
        return try run()
    }

    /// Why the item must not be converted, or nil. An output is only ever replaced by a new
    /// conversion of the source it was recorded for: never another source's output, never a file
    /// the batch did not make. Each of `outputs` (relative) is judged; one refused refuses all.
    func refusal(_ item: Item, outputs: [String]) -> String? {
        if let conflict = item.conflict { return conflict }
        for rel in outputs where FileManager.default.fileExists(atPath: options.outputDir + "/" + rel) {
            let lastOwner = ledger.lastClaim(of: rel)?.source
            guard lastOwner != item.rel else { continue }
            return lastOwner.map { "its output \(rel) is the output of \($0): left alone, not converted (rename one of them, or put {ext} in the recipe's output name)" }
                ?? "its output \(rel) already exists and was not made by reencode batch for this source: left alone, not converted (move it away to convert)"
        }
        return nil
    }

    /// Makes the output's missing folders, remembering them so that they can go again if they
    /// stay empty.
    private func makeFolders(for output: String) throws {
        var missing: [String] = []
        var dir = FilePaths.folder(of: output)
        while dir != ".", dir != "/", dir != options.outputDir, !FileManager.default.fileExists(atPath: dir) {
            missing.append(dir)
            dir = FilePaths.folder(of: dir)
        }
        guard !missing.isEmpty else { return }
        madeFolders.withLock { $0.append(contentsOf: missing) }
        do { try FileManager.default.createDirectory(atPath: missing[0], withIntermediateDirectories: true) } catch {
            throw MediaError(.cannotCreateOutput, "cannot create the folder \(missing[0]): \(error.localizedDescription)", file: output)
        }
    }

    /// Removes folders this run made that nothing went into (rmdir leaves any that did), except
    /// those another run is about to write into.
    private func removeEmptyFolders() {
        let made = madeFolders.withLock { $0 }
        guard !made.isEmpty, let busy = foldersInUse() else { return }
        for d in Set(made).sorted(by: { $0.count > $1.count }) where !busy.contains(where: { $0 == d || $0.hasPrefix(d + "/") }) {
            rmdir(d)
        }
    }

    /// The output folders of every live claim (a claim is taken before its output's folder is
    /// made, and held until its output is in place): other runs' conversions under way. nil when
    /// a live claim cannot be read (being written): then nothing is removed.
    func foldersInUse() -> [String]? {
        var folders: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: claimsDir)) ?? [] where name.hasSuffix(".claim") {
            let path = claimsDir + "/" + name
            if Claim.isStale(path, host: options.host, watch: watch) { continue }
            guard let claim = Claim.read(path) else { return nil }
            let rel = outputRelativePath(for: claim.source)
            folders.append(rel.contains("/") ? options.outputDir + "/" + FilePaths.folder(of: rel) : options.outputDir)
        }
        return folders
    }

    static func describe(_ error: Error) -> (String, Int32) {
        switch error {
        case let e as MediaError: return (e.description, e.exitCode)
        case let e as RecipeErrors: return (e.diagnostics.map(\.headline).joined(separator: "; "), LedgerExitCode.invalidRecipe)
        case let e as SourceMismatch: return (e.diagnostics.map(\.headline).joined(separator: "; "), LedgerExitCode.sourceMismatch)
        default: return ("\(error)", LedgerExitCode.failure)
        }
    }

    /// `--move-done`: moves a converted source away, or says why it could not (tried again by
    /// every later run while the source is still there).
    func moveDone(_ item: Item, events: @Sendable (BatchEvent) -> Void) {
        guard let dest = options.moveDone, let why = SourceMove.move(item.path, to: dest + "/" + item.rel) else { return }
        events(.warning(item.rel, message: "converted, but not moved to \(dest): \(why) (tried again on the next run)"))
    }

    // MARK: After a crash

    /// Removes temp files and claims that nobody is working on any more (kill -9, reboot): a
    /// process of this host that is gone, or a heartbeat this host has seen unchanged for
    /// `--claim-timeout` (`Heartbeats`; never an age computed from another machine's clock).
    func sweep(_ report: inout BatchReport) {
        let fm = FileManager.default
        // Who owns each output, for temp files of outputs other than a source's first.
        ledger.refresh()
        // No claims folder yet: no claims to sweep.
        if let claims = try? fm.contentsOfDirectory(atPath: claimsDir) {
            for c in claims where c.contains(".claim" + Claim.newSuffix) {
                // A claim being written when its process was killed.
                if Claim.isAbandonedTemp(claimsDir + "/" + c, host: options.host, watch: watch) { unlink(claimsDir + "/" + c) }
            }
            let leftovers = claims.filter {
                $0.hasPrefix(StorageClock.prefix) || $0.hasPrefix(StorageCheck.prefix) || ($0.hasPrefix(Heartbeats.filePrefix) && $0.contains(".new-"))
            }
            for c in leftovers {
                // A clock probe, storage check or sightings file being replaced, of a process
                // gone (kill -9): unchanged for the timeout.
                var st = stat()
                if stat(claimsDir + "/" + c, &st) == 0, watch.unchanged(c, beat: Heartbeats.beat(st)) { unlink(claimsDir + "/" + c) }
            }
            for c in claims where c.hasSuffix(".claim") {
                let p = claimsDir + "/" + c
                if Claim.isStale(p, host: options.host, watch: watch) { unlink(p); report.removedClaims += 1 }
            }
        }
        guard let walker = fm.enumerator(atPath: options.outputDir) else { return }
        while let rel = walker.nextObject() as? String {
            let name = FilePaths.name(of: rel)
            if name == ".reencode" { walker.skipDescendants(); continue }
            guard name.hasPrefix("."), let r = name.range(of: TempFile.marker) else { continue }
            let outName = String(name[name.index(after: name.startIndex)..<r.lowerBound])
            let outRel = rel.contains("/") ? FilePaths.folder(of: rel) + "/" + outName : outName
            if isAbandoned(temp: rel, owner: TempFile.owner(String(name[r.upperBound...])), output: outRel) {
                unlink(options.outputDir + "/" + rel)
                report.removedTempFiles += 1
            }
        }
    }

    /// A temp output nobody writes any more: its owner (host and pid in its name) is a process
    /// of this host that is gone; or this host has seen it unchanged for the timeout and no live
    /// claim of that owner covers its output (a live owner may be silent a while: its claim
    /// still beats). Another host's live work is never removed.
    func isAbandoned(temp rel: String, owner: (host: String, pid: Int32)?, output outRel: String) -> Bool {
        if let owner, owner.host == TempFile.host, owner.pid != getpid(), kill(owner.pid, 0) != 0, errno == ESRCH { return true }
        var st = stat()
        guard stat(options.outputDir + "/" + rel, &st) == 0, watch.unchanged("temp:" + rel, beat: Heartbeats.beat(st)) else { return false }
        guard let owner else { return true }
        // The claim is named by its source's first output; the `started` line, written before
        // any output exists, names the source of each (`outputs:`).
        let covering = [outRel] + (ledger.lastClaim(of: outRel).map { [outputRelativePath(for: $0.source)] } ?? [])
        return !covering.contains { output in
            let claim = claimPath(forOutput: output)
            guard let holder = Claim.read(claim), !Claim.isStale(claim, host: options.host, watch: watch) else { return false }
            return HostIdentity.fileTag(holder.host) == owner.host && holder.pid == owner.pid
        }
    }
}

/// The exit codes the ledger records for failures that are not a MediaError, as `reencode run`
/// would exit with them.
enum LedgerExitCode {
    /// The output exists and is not this source's to replace: as `run` without --overwrite.
    static let outputTaken = ExitCode.cannotCreate
    /// The recipe does not compile.
    static let invalidRecipe = ExitCode.invalidRecipe
    /// The source lacks a track the recipe requires: the input does not fit it.
    static let sourceMismatch = ExitCode.noInput
    /// Anything else.
    static let failure = ExitCode.failure
}
