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
    public var dryRun = false
    /// A claim whose heartbeat is older than this is taken over.
    public var claimTimeout: TimeInterval = 120
    public var moveDone: String?
    /// Keep outputs made by another version of the recipe instead of converting again.
    public var ignoreRecipeChange = false
    public var extensions: Set<String> = BatchOptions.defaultExtensions
    /// This machine's name in claims and the ledger (REENCODE_HOSTNAME overrides the host name).
    public var host: String = ProcessInfo.processInfo.environment["REENCODE_HOSTNAME"] ?? ProcessInfo.processInfo.hostName

    public static let defaultExtensions: Set<String> = [
        "mp4", "m4v", "mov", "qt", "mkv", "webm", "avi", "ts", "mts", "m2ts", "3gp", "mxf", "wmv", "flv",
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
    public var lockedOut = false
    public var converted: [String] = []
    public var failed: [Failure] = []
    public var alreadyDone = 0
    public var growing: [String] = []
    public var givenUp: [String] = []
    public var otherShard = 0
    public var claimedElsewhere: [String] = []
    /// Files that would be converted (`--dry-run`), or were started.
    public var planned: [String] = []
    public var removedTempFiles = 0
    public var removedClaims = 0
    public var seconds = 0.0
    public var mediaSeconds = 0.0
    public var bytesIn: Int64 = 0
}

public enum BatchEvent: Sendable {
    case started(String, index: Int, of: Int)
    case finished(String, seconds: Double)
    case failed(String, message: String)
    case claimedElsewhere(String, host: String)
    /// Something went wrong that does not undo the conversion (e.g. --move-done could not move).
    case warning(String, message: String)
}

/// `reencode batch`: converts every media file of a folder tree that has no finished output yet,
/// exactly once, whatever happens (DESIGN §5, docs/batch.md).
public final class BatchRunner: Sendable {
    public let options: BatchOptions
    private let cancelled = Atomic<Bool>(false)
    private let sessions = Mutex<[ObjectIdentifier: ExportSession]>([:])

    public init(options: BatchOptions) { self.options = options }

    var stateDir: String { options.outputDir + "/.reencode" }
    var ledger: Ledger { Ledger(path: stateDir + "/ledger.jsonl") }
    var claimsDir: String { stateDir + "/claims" }

    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        sessions.withLock { for s in $0.values { s.cancel() } }
    }

    public func run(events: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws -> BatchReport {
        let started = Date()
        var report = BatchReport()
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: claimsDir, withIntermediateDirectories: true)
        } catch {
            throw MediaError(.cannotCreateOutput, "cannot create the output folder: \(error.localizedDescription)", file: options.outputDir)
        }
        // One run per output folder per host; other hosts are kept apart by claims.
        guard let lock = try FolderLock(path: stateDir + "/batch-\(options.host).lock") else {
            report.lockedOut = true
            return report
        }
        defer { withExtendedLifetime(lock) {} }

        if !options.dryRun { sweep(&report) }
        let entries = ledger.entries()
        let todo = classify(scan(), entries: entries, report: &report)
        report.planned = todo.map(\.rel)
        if options.dryRun || todo.isEmpty {
            report.seconds = Date().timeIntervalSince(started)
            return report
        }

        let shared = Mutex((next: 0, report: report))
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
                        case .converted(let media, let bytes): s.report.converted.append(todo[i].rel); s.report.mediaSeconds += media; s.report.bytesIn += bytes
                        case .failed(let f): s.report.failed.append(f)
                        case .claimed: s.report.claimedElsewhere.append(todo[i].rel)
                        case .doneElsewhere: s.report.alreadyDone += 1
                        case .cancelled: break
                        }
                    }
                }
            }
        }
        group.wait()
        report = shared.withLock { $0.report }
        report.seconds = Date().timeIntervalSince(started)
        if cancelled.load(ordering: .acquiring) { throw MediaError.cancelled(file: options.inputDir) }
        return report
    }

    // MARK: Scan and classify

    struct Item: Sendable {
        let rel: String
        let path: String
        let outputRel: String
        let outputPath: String
        let identity: SourceIdentity
    }

    /// Media files under the input folder, by extension; links are followed only inside it;
    /// hidden files and the output folder (when inside) are left out.
    func scan() -> [Item] {
        let root = URL(fileURLWithPath: options.inputDir).standardizedFileURL.resolvingSymlinksInPath().path
        let outRoot = URL(fileURLWithPath: options.outputDir).standardizedFileURL.resolvingSymlinksInPath().path
        var items: [Item] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        while let rel = walker.nextObject() as? String {
            let path = root + "/" + rel
            let name = (rel as NSString).lastPathComponent
            if name.hasPrefix(".") { if isDirectory(path) { walker.skipDescendants() }; continue }
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            if real == outRoot || real.hasPrefix(outRoot + "/") { if isDirectory(path) { walker.skipDescendants() }; continue }
            guard real == root || real.hasPrefix(root + "/") else { continue }  // a link out of the tree
            guard !isDirectory(path), options.extensions.contains((name as NSString).pathExtension.lowercased()),
                  let identity = SourceIdentity.of(path) else { continue }
            let outRel = outputRelativePath(for: rel)
            items.append(Item(rel: rel, path: path, outputRel: outRel, outputPath: options.outputDir + "/" + outRel, identity: identity))
        }
        return items.sorted { $0.rel < $1.rel }
    }

    private func isDirectory(_ p: String) -> Bool {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: p, isDirectory: &d) && d.boolValue
    }

    /// The recipe's output name (its last path component, tokens from the source) in the mirror
    /// of the source's folder.
    func outputRelativePath(for rel: String) -> String {
        let ext = options.recipe.output.format?.value.rawValue ?? "mp4"
        let template = options.recipe.output.path.map { ($0.value as NSString).lastPathComponent } ?? "{stem}.\(ext)"
        let name = RecipeCompiler.expand(template, source: (rel as NSString).lastPathComponent)
        let dir = (rel as NSString).deletingLastPathComponent
        return dir.isEmpty ? name : dir + "/" + name
    }

    func classify(_ items: [Item], entries: [LedgerEntry], report: inout BatchReport) -> [Item] {
        var bySource: [String: [LedgerEntry]] = [:]
        for e in entries { bySource[e.source, default: []].append(e) }
        let now = Date().timeIntervalSince1970
        var todo: [Item] = []
        for item in items {
            if let (index, count) = options.shard, Int(FNV1a.hash(Array(item.rel.utf8)) % UInt64(count)) != index {
                report.otherShard += 1
                continue
            }
            if now - item.identity.mtime < options.settle {
                report.growing.append(item.rel)
                continue
            }
            let history = (bySource[item.rel] ?? []).filter { sameVersion($0, item) }
            if history.contains(where: { $0.status == .done }) && FileManager.default.fileExists(atPath: item.outputPath) {
                report.alreadyDone += 1
                continue
            }
            if history.filter({ $0.status == .failed }).count >= options.maxAttempts {
                report.givenUp.append(item.rel)
                continue
            }
            todo.append(item)
        }
        return todo
    }

    /// The entry is about this version of the file (and, unless told otherwise, this recipe).
    func sameVersion(_ e: LedgerEntry, _ item: Item) -> Bool {
        e.size == item.identity.size && abs(e.mtime - item.identity.mtime) < 1e-5
            && (options.ignoreRecipeChange || e.recipe == options.recipeHash)
    }

    // MARK: Convert one

    enum Outcome { case converted(Double, Int64), failed(BatchReport.Failure), claimed, doneElsewhere, cancelled }

    func claimPath(forOutput rel: String) -> String { claimsDir + "/" + FNV1a.hex(rel) + ".claim" }

    func process(_ item: Item, index: Int, of total: Int, events: @Sendable (BatchEvent) -> Void) -> Outcome {
        let claim: Claim
        switch Claim.acquire(at: claimPath(forOutput: item.outputRel), source: item.rel, host: options.host, timeout: options.claimTimeout) {
        case .busy(let host, _):
            events(.claimedElsewhere(item.rel, host: host))
            return .claimed
        case .acquired(let c): claim = c
        }
        defer { claim.release() }
        claim.startHeartbeat(every: max(0.5, options.claimTimeout / 4))
        // Read again under the claim: another machine may have finished it since our scan.
        let history = ledger.entries().filter { $0.source == item.rel && sameVersion($0, item) }
        if history.contains(where: { $0.status == .done }), FileManager.default.fileExists(atPath: item.outputPath) {
            return .doneElsewhere
        }
        let attempt = history.filter { $0.status == .failed }.count + 1
        events(.started(item.rel, index: index + 1, of: total))
        let t0 = Date()
        let fingerprint = SourceIdentity.fingerprint(item.path, size: item.identity.size)
        var entry = LedgerEntry(time: ISO8601DateFormatter().string(from: Date()), source: item.rel, size: item.identity.size,
                                mtime: item.identity.mtime, fingerprint: fingerprint, recipe: options.recipeHash, status: .done,
                                attempt: attempt, error: nil, exitCode: nil, output: item.outputRel, seconds: nil,
                                host: options.host, pid: getpid())
        var media = 0.0
        do {
            let compiled = try RecipeCompiler.compile(options.recipe, input: item.path, output: item.outputPath, overwrite: true)
            let session = ExportSession(plan: compiled.plan)
            let key = ObjectIdentifier(session)
            sessions.withLock { $0[key] = session }
            defer { sessions.withLock { _ = $0.removeValue(forKey: key) } }
            if cancelled.load(ordering: .acquiring) { session.cancel() }
            let result = try session.run()
            media = result.duration.seconds
            guard claim.isHeld else {
                // We stalled past the timeout and another machine took over: its result stands.
                return .claimed
            }
        } catch let e as MediaError where e.kind == .cancelled {
            return .cancelled
        } catch {
            let (message, code) = Self.describe(error)
            entry.status = .failed
            entry.error = message
            entry.exitCode = code
            entry.output = nil
        }
        entry.seconds = Date().timeIntervalSince(t0)
        do { try ledger.append(entry) } catch {
            let (m, c) = Self.describe(error)
            events(.failed(item.rel, message: m))
            return .failed(BatchReport.Failure(source: item.rel, error: m, exitCode: c))
        }
        if entry.status == .failed {
            events(.failed(item.rel, message: entry.error ?? ""))
            return .failed(BatchReport.Failure(source: item.rel, error: entry.error ?? "", exitCode: entry.exitCode ?? 1))
        }
        if let dest = options.moveDone {
            do { try moveSource(item, to: dest) } catch {
                events(.warning(item.rel, message: "converted, but not moved to \(dest): \(error)"))
            }
        }
        events(.finished(item.rel, seconds: entry.seconds ?? 0))
        return .converted(media, item.identity.size)
    }

    static func describe(_ error: Error) -> (String, Int32) {
        switch error {
        case let e as MediaError: return (e.description, e.exitCode)
        case let e as RecipeErrors: return (e.diagnostics.map(\.headline).joined(separator: "; "), 65)
        case let e as SourceMismatch: return (e.diagnostics.map(\.headline).joined(separator: "; "), 66)
        default: return ("\(error)", 1)
        }
    }

    private func moveSource(_ item: Item, to dest: String) throws {
        let target = dest + "/" + item.rel
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if rename(item.path, target) == 0 { return }
        guard errno == EXDEV else { throw MediaError(.io, String(cString: strerror(errno)), file: target) }
        // Another filesystem: copy, make the copy durable, then remove the source.
        try FileManager.default.copyItem(atPath: item.path, toPath: target)
        let fd = open(target, O_RDONLY)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { close(fd) }
            throw MediaError(.io, "cannot flush the moved copy", file: target)
        }
        close(fd)
        unlink(item.path)
    }

    // MARK: After a crash

    /// Removes temp files and claims that nobody is working on any more (kill -9, reboot).
    func sweep(_ report: inout BatchReport) {
        let fm = FileManager.default
        // No claims folder yet: no claims to sweep.
        if let claims = try? fm.contentsOfDirectory(atPath: claimsDir) {
            for c in claims where c.hasSuffix(".claim") {
                let p = claimsDir + "/" + c
                if Claim.isStale(p, host: options.host, timeout: options.claimTimeout) { unlink(p); report.removedClaims += 1 }
            }
        }
        guard let walker = fm.enumerator(atPath: options.outputDir) else { return }
        while let rel = walker.nextObject() as? String {
            let name = (rel as NSString).lastPathComponent
            if name == ".reencode" { walker.skipDescendants(); continue }
            guard name.hasPrefix("."), let r = name.range(of: TempFile.marker) else { continue }
            let outName = String(name[name.index(after: name.startIndex)..<r.lowerBound])
            let dir = (rel as NSString).deletingLastPathComponent
            let outRel = dir.isEmpty ? outName : dir + "/" + outName
            if !fm.fileExists(atPath: claimPath(forOutput: outRel)) {
                unlink(options.outputDir + "/" + rel)
                report.removedTempFiles += 1
            }
        }
    }
}
