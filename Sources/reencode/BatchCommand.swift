import Dispatch
import Foundation
import Pipeline
import Recipe
import Synchronization

struct BatchCommand: Command {
    static let name = "batch"
    static let answersStops = true
    static let abstract = "Convert every media file of a folder that has no finished output yet."
    static let usage = "reencode batch RECIPE --input-dir DIR --output-dir DIR [--jobs N] [--shard I/N] [--settle SECONDS] [--max-attempts N] [--retry-after SECONDS] [--dry-run] [--json] [--verbose]"
    static let help = """
        OVERVIEW: \(abstract) Made for cron: each file is converted exactly
        once whatever happens (overlapping runs, crashes, files still being copied in, corrupt files,
        a full disk), and many machines can share one folder. A recipe with `parallel:` shares
        each file's chunks instead: every run (any host, every slice) claims and encodes chunks of
        the same file, each exactly once, and the run that finishes the last one joins. See
        docs/batch.md.

        USAGE: \(usage)

        ARGUMENTS:
          RECIPE                  The recipe (each output's name is used; its folder is replaced by
                                  the mirror of the source's folder under --output-dir).

        OPTIONS:
          --input-dir DIR         The folder tree to convert (links are not followed out of it).
          --output-dir DIR        Where outputs go, mirroring the input tree; the ledger, locks and
                                  claims live in its .reencode folder.
          --jobs N                Files converted side by side (default: half the cores, at least 1).
          --shard I/N             Take only slice I of N (a stable hash of each relative path).
          --shard-count N         With JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) as I.
                                  SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT are used when set.
          --settle SECONDS        Leave files changed within this time for the next run (default 60).
          --max-attempts N        Give up on a file after N failures (default 3).
          --retry-after SECONDS   Try a failed file again only this long after its last
                                  failure (default 60; hosts share one attempt per round).
          --claim-timeout SECONDS Take over a claim whose heartbeat is older (default 120).
          --move-done DIR         Move each source there once its output is durable.
          --ignore-recipe-change  Keep outputs made by an earlier version of the recipe.
          --extensions LIST       Comma-separated extensions to pick (default: common media types).
          --dry-run               Say what would be converted; change nothing on disk.
          --json                  Print one JSON object on stdout, however the run ends.
          --verbose               Say what happens even when nothing does (cron mails any output).
          -h, --help              Show help information.

        EXIT STATUS: 0 everything that could be done was done, 1 a file failed (listed), 64 usage,
        65 invalid recipe, 66 recipe or input folder missing, 73 output folder cannot be created,
        75 a file was postponed: the system was short of memory, threads or open files (no attempt spent),
        128+n stopped by signal n (130 SIGINT, 143 SIGTERM, 129 SIGHUP, …), 141/74 stdout or
        stderr could not be written (docs/engine.md).
        """

    private(set) var recipePath = ""
    private(set) var inputDir = ""
    private(set) var outputDir = ""
    private(set) var jobs = 1
    private(set) var shard: (Int, Int)?
    private(set) var settle = 60.0
    private(set) var maxAttempts = 3
    private(set) var retryAfter = 60.0
    private(set) var claimTimeout = 120.0
    private(set) var moveDone: String?
    private(set) var ignoreRecipeChange = false
    private(set) var extensions: Set<String>?
    private(set) var dryRun = false
    private(set) var json = false
    private(set) var verbose = false
    /// With --json a usage error is answered by run() (exit 64 and a JSON object), not thrown.
    private var usageError: UsageError?

    init(arguments: [String]) throws(UsageError) {
        do throws(UsageError) {
            try parse(arguments)
        } catch {
            guard arguments.contains("--json") else { throw error }
            usageError = error
            json = true
        }
    }

    private mutating func parse(_ arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--dry-run", "--json", "--verbose", "-v", "--ignore-recipe-change"],
                                    options: ["--input-dir", "--output-dir", "--jobs", "-j", "--shard", "--shard-count", "--settle",
                                              "--max-attempts", "--retry-after", "--claim-timeout", "--move-done", "--extensions"], usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing RECIPE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        recipePath = a.positionals[0]
        guard let i = try a.value("--input-dir") else { throw UsageError(message: "missing --input-dir", usage: Self.usage) }
        guard let o = try a.value("--output-dir") else { throw UsageError(message: "missing --output-dir", usage: Self.usage) }
        inputDir = i
        outputDir = o
        // Bounded, so no value traps on its way to an Int or a deadline.
        jobs = try a.wholeNumber("--jobs", "-j", default: max(1, ProcessInfo.processInfo.activeProcessorCount / 2), in: 1...256)
        settle = try a.seconds("--settle", default: 60, in: 0...1_000_000_000)
        maxAttempts = try a.wholeNumber("--max-attempts", default: 3, in: 1...1_000_000)
        retryAfter = try a.seconds("--retry-after", default: 60, in: 0...1_000_000_000)
        claimTimeout = try a.seconds("--claim-timeout", default: 120, in: 1...1_000_000_000)
        moveDone = try a.value("--move-done")
        ignoreRecipeChange = a.flag("--ignore-recipe-change")
        extensions = try a.value("--extensions").map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }) }
        dryRun = a.flag("--dry-run")
        json = a.flag("--json")
        verbose = a.flag("--verbose", "-v")
        shard = try Self.shard(a.value("--shard"), count: a.value("--shard-count"))
    }

    /// Slurm's array task as a slice: `--array=0-6:2` runs IDs 0, 2, 4, 6 (COUNT 4, MIN 0, STEP 2),
    /// slices 0…3. Values come from the environment: checked, never trusted to fit.
    static func slurmShard(id: String, count: String, min: String?, step: String?) throws(UsageError) -> (Int, Int) {
        func number(_ name: String, _ text: String) throws(UsageError) -> Int {
            guard let v = Int(text) else { throw UsageError(message: "\(name) must be a whole number, not '\(text)'", usage: usage) }
            return v
        }
        let i = try number("SLURM_ARRAY_TASK_ID", id), n = try number("SLURM_ARRAY_TASK_COUNT", count)
        let lowest = try min.map { v throws(UsageError) in try number("SLURM_ARRAY_TASK_MIN", v) } ?? 0
        let stride = try step.map { v throws(UsageError) in try number("SLURM_ARRAY_TASK_STEP", v) } ?? 1
        let (offset, overflow) = i.subtractingReportingOverflow(lowest)
        guard !overflow else {
            throw UsageError(message: "SLURM_ARRAY_TASK_ID \(i) minus SLURM_ARRAY_TASK_MIN \(lowest) is out of range", usage: usage)
        }
        guard stride > 1 else { return (offset, n) }
        guard offset % stride == 0 else {
            throw UsageError(message: "SLURM_ARRAY_TASK_ID \(i) is not SLURM_ARRAY_TASK_MIN \(lowest) plus a multiple of SLURM_ARRAY_TASK_STEP \(stride)", usage: usage)
        }
        return (offset / stride, n)
    }

    /// `--shard I/N`, else Kubernetes' JOB_COMPLETION_INDEX with --shard-count, else Slurm's array.
    static func shard(_ text: String?, count: String?) throws(UsageError) -> (Int, Int)? {
        let env = ProcessInfo.processInfo.environment
        var pair: (Int, Int)?
        if let text {
            let p = text.split(separator: "/")
            guard p.count == 2, let i = Int(p[0]), let n = Int(p[1]) else {
                throw UsageError(message: "--shard must be I/N (like 0/4), not '\(text)'", usage: usage)
            }
            pair = (i, n)
        } else if let idx = env["JOB_COMPLETION_INDEX"], let count {
            guard let i = Int(idx), let n = Int(count) else { throw UsageError(message: "--shard-count must be a whole number", usage: usage) }
            pair = (i, n)
        } else if let id = env["SLURM_ARRAY_TASK_ID"], let count = env["SLURM_ARRAY_TASK_COUNT"] {
            pair = try slurmShard(id: id, count: count, min: env["SLURM_ARRAY_TASK_MIN"], step: env["SLURM_ARRAY_TASK_STEP"])
        }
        if let (i, n) = pair, !(n >= 1 && i >= 0 && i < n) {
            throw UsageError(message: "shard \(i)/\(n) is out of range (I must be 0…N-1)", usage: usage)
        }
        return pair
    }

    /// What a stop has to reach: the reason (the first one counts) and, once made, the runner.
    private struct Stop {
        var reason: StopReason?
        var runner: BatchRunner?
    }

    func run() -> Int32 {
        // Listening starts before anything is read (as in run): every termination signal, and a
        // lost stdout/stderr, stop the batch as SIGINT did: unfinished files are left for the
        // next run, nothing half-written stays. One that comes before the runner exists is
        // answered when the setup is done (nothing exists on disk yet).
        if let refusal = DescriptorHeadroom.shortfall(needed: DescriptorHeadroom.batch(jobs: jobs)) {
            printError(refusal)
            if json { writeOut(jsonString(["status": "error", "exitCode": ExitCode.temporaryFailure, "error": refusal] as [String: Any])) }
            return ExitCode.temporaryFailure
        }
        if let refusal = AddressSpaceReserve.prepare(conversions: jobs) {
            printError("error: \(refusal)")
            if json { writeOut(jsonString(["status": "error", "exitCode": ExitCode.temporaryFailure, "error": refusal] as [String: Any])) }
            return ExitCode.temporaryFailure
        }
        let stop = Locked(Stop())
        let stops = StopRequests { r in
            let runner = stop.withLock { s -> BatchRunner? in
                guard s.reason == nil else { return nil }
                // Before the runner exists a lost stream costs only messages (as in run).
                if s.runner == nil, case .lost = r { return nil }
                s.reason = r
                return s.runner
            }
            guard let runner else { return }
            Console.shared.abandonStalledWrites()
            runner.cancel()
        }
        defer { stops.close() }
        if let u = usageError {
            // As main.swift says it, plus the JSON answer.
            printError("Error: \(u.message)\nUsage: \(u.usage)\n  See 'reencode help \(Self.name)'.")
            writeOut(jsonString(["status": "error", "exitCode": ExitCode.usage, "error": u.message] as [String: Any]))
            return ExitCode.usage
        }
        // With --json every way out prints exactly one JSON object on stdout (errors too).
        func fail(_ code: Int32, _ messages: [String]) -> Int32 {
            for m in messages { printError(m) }
            if json { writeOut(jsonString(["status": "error", "exitCode": code, "error": messages.joined(separator: "\n")] as [String: Any])) }
            return code
        }
        let recipe: Recipe, text: String
        switch loadRecipeAndText(recipePath) {
        case .success(let r): (recipe, text) = r
        case .failure(let f):
            // Already printed on stderr.
            if json { writeOut(jsonString(["status": "error", "exitCode": f.code, "error": f.message] as [String: Any])) }
            return f.code
        }
        // What this build cannot compose is the recipe's: said once, not once per file.
        do throws(RecipeErrors) { try RecipeCompiler.refuseUnsupportedComposition(recipe) } catch {
            return fail(ExitCode.invalidRecipe, error.diagnostics.map(\.description))
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: inputDir, isDirectory: &isDir), isDir.boolValue else {
            return fail(ExitCode.noInput, ["error: \(inputDir): no such folder"])
        }
        var options = BatchOptions(recipe: recipe, recipeText: text, inputDir: inputDir, outputDir: outputDir)
        options.jobs = jobs
        options.shard = shard
        options.settle = settle
        options.maxAttempts = maxAttempts
        options.retryAfter = retryAfter
        options.claimTimeout = claimTimeout
        options.moveDone = moveDone
        options.ignoreRecipeChange = ignoreRecipeChange
        options.dryRun = dryRun
        if let extensions { options.extensions = extensions }
        let runner = BatchRunner(options: options)
        // From here a stop cancels the runner; a signal that came during the setup answers now.
        if let early = stop.withLock({ s -> StopReason? in s.runner = runner; return s.reason }), case .signal(let sig) = early {
            Console.shared.abandonStalledWrites()
            printError("cancelled: the batch did not begin (\(TerminationSignals.name(sig)))")
            if json {
                writeOut(jsonString(["status": "cancelled", "exitCode": early.exitCode, "slice": shard.map { "\($0.0)/\($0.1)" } ?? "all",
                                     "error": "stopped before the batch began"] as [String: Any]))
            }
            return early.exitCode
        }


        let talk = verbose || isatty(STDOUT_FILENO) == 1
        let jsonOut = json
        let report: BatchReport
        do {
            report = try runner.run { event in
                switch event {
                case .started(let f, let i, let n): if talk && !jsonOut { writeOut("[\(i)/\(n)] \(line(f)) …") }
                case .finished(let f, let s): if talk && !jsonOut { writeOut("      \(line(f)): done in \(String(format: "%.1f", s)) s") }
                // Said once, in the summary (with its exit code).
                case .failed: break
                case .claimedElsewhere(let f, let h): if verbose && !jsonOut { writeOut("      \(line(f)): being converted on \(line(h))") }
                case .skipped(let s): printError("warning: \(Self.shown(s)): skipped, \(line(s.reason)) (recorded in the ledger; said once)")
                case .warning(let f, let m): printError("warning: \(line(f)): \(line(m))")
                case .chunking(let f, let i, let n, let chunks, let present):
                    if talk && !jsonOut { writeOut("[\(i)/\(n)] \(line(f)): \(chunks) chunks, \(present) in place; encoding those no other run holds …") }
                case .chunkEncoded(let f, let k, let n, let s):
                    if talk && !jsonOut { writeOut("      \(line(f)): chunk \(k)/\(n) encoded in \(String(format: "%.1f", s)) s") }
                }
            }
        } catch let e as MediaError {
            return fail(e.exitCode, [e.description])
        } catch {
            return fail(ExitCode.failure, ["error: \(error)"])
        }
        Self.sayUnreadable(report.ledgerUnreadable)
        if let holder = report.lockedOut {
            let who = holder.map { "host \(line($0.host)), pid \($0.pid), since \(line($0.since))" } ?? "another process (not yet named)"
            if json {
                var o: [String: Any] = ["status": "skipped", "exitCode": ExitCode.ok, "slice": report.slice, "outputDir": outputDir,
                                        "reason": "this slice of the output folder is being converted by another run of this recipe on this host"]
                o["holder"] = holder.map { ["host": $0.host, "pid": $0.pid, "since": $0.since] as [String: Any] } ?? NSNull()
                writeOut(jsonString(o))
            } else {
                writeOut("skipped: slice \(report.slice) of \(line(outputDir)) is being converted by another run of this recipe on this host (\(who))")
            }
            return ExitCode.ok
        }
        if report.cancelled {
            let r = stop.withLock { $0.reason }
            let code = r?.exitCode ?? ExitCode.cancelled
            switch r {
            case .signal(let sig): printError("cancelled: unfinished files are left for the next run (\(TerminationSignals.name(sig)))")
            case .lost(let loss): printError("error: \(loss.description): the reader is gone; stopped, unfinished files are left for the next run")
            case nil: printError("cancelled: unfinished files are left for the next run")
            }
            if json {
                var o = Self.object(report, dryRun: dryRun)
                o["status"] = "cancelled"; o["exitCode"] = code
                writeOut(jsonString(o))
            }
            return code
        }
        // A file's failure is the run's (1); else a shortage of the system's says "try again" (75).
        let code = !report.failed.isEmpty ? ExitCode.failure : !report.postponed.isEmpty ? ExitCode.temporaryFailure : ExitCode.ok
        if json {
            var o = Self.object(report, dryRun: dryRun)
            o["status"] = !report.failed.isEmpty ? "failed" : !report.postponed.isEmpty ? "postponed" : "ok"; o["exitCode"] = code
            writeOut(jsonString(o))
        } else if dryRun {
            for f in report.planned { writeOut("would convert \(line(f))") }
            for r in report.refused { writeOut("would refuse \(line(r.path)): \(line(r.reason))") }
            writeOut(Self.summary(report, dryRun: true))
        } else if verbose || !report.converted.isEmpty || !report.failed.isEmpty || !report.postponed.isEmpty || !report.growing.isEmpty
                    || !report.chunks.isEmpty {
            writeOut(Self.summary(report))
            for f in report.failed { writeOut("  failed: \(line(f.source)) (exit \(f.exitCode)): \(line(f.error))") }
            for f in report.postponed { writeOut("  postponed: \(line(f.source)) (exit \(f.exitCode)): \(line(f.error))") }
            for w in report.warnings {
                let into = w.output.map { " → \(line($0))" } ?? ""
                writeOut("  warning: \(line(w.notice.file ?? w.source))\(into): \(line("\(w.notice)"))")
            }
        }
        return code
    }

    /// A skipped path as one line of text: a name that is not UTF-8 is escaped already.
    static func shown(_ s: BatchReport.Skipped) -> String { s.escaped ? s.path : line(s.path) }

    /// Ledger lines that are not entries, on stderr on every run until mended (the first ten,
    /// then how many more): a lost entry must not go unsaid.
    static func sayUnreadable(_ lines: [String]) {
        for l in lines.prefix(10) { printError("warning: ledger: \(line(l)) (remove or mend the line to silence this)") }
        if lines.count > 10 { printError("warning: ledger: \(lines.count - 10) more lines that are not entries") }
    }

    static func summary(_ r: BatchReport, dryRun: Bool = false) -> String {
        var parts = dryRun ? ["would convert \(r.planned.count)"] : ["converted \(r.converted.count)", "failed \(r.failed.count)"]
        if !r.postponed.isEmpty { parts.append("postponed \(r.postponed.count) (the system is short of resources: no attempt spent, the next run tries again)") }
        if !r.refused.isEmpty { parts.append("would refuse \(r.refused.count)") }
        parts.append("already done \(r.alreadyDone)")
        if !r.growing.isEmpty { parts.append("left to settle \(r.growing.count) (changed within --settle: a later run takes them)") }
        if !r.givenUp.isEmpty { parts.append("given up \(r.givenUp.count)") }
        if r.otherShard > 0 { parts.append("other shards \(r.otherShard)") }
        if !r.claimedElsewhere.isEmpty { parts.append("claimed elsewhere \(r.claimedElsewhere.count)") }
        if !r.chunks.isEmpty { parts.append("chunks encoded \(r.chunks.count)") }
        if !r.chunksElsewhere.isEmpty { parts.append("chunks held by other runs \(r.chunksElsewhere.count) (the run that finishes the last one joins)") }
        if !r.retryLater.isEmpty { parts.append("retry later \(r.retryLater.count)") }
        if !r.triedElsewhere.isEmpty { parts.append("tried elsewhere this run \(r.triedElsewhere.count)") }
        if !r.skipped.isEmpty { parts.append("skipped \(r.skipped.count) (not regular files or unreadable folders)") }
        if !r.duplicates.isEmpty { parts.append("other names of the same file \(r.duplicates.count)") }
        if r.ownOutputs > 0 { parts.append("own outputs left out \(r.ownOutputs)") }
        if !r.ledgerUnreadable.isEmpty { parts.append("unreadable ledger lines \(r.ledgerUnreadable.count)") }
        if r.removedTempFiles + r.removedClaims > 0 { parts.append("cleaned up \(r.removedTempFiles) temp files, \(r.removedClaims) claims") }
        let speed = r.seconds > 0 && !dryRun ? String(format: ", %.1fx real time", r.mediaSeconds / r.seconds) : ""
        return parts.joined(separator: ", ") + String(format: " — %.1f s", r.seconds) + speed
    }

    static func object(_ r: BatchReport, dryRun: Bool) -> [String: Any] {
        [
            "converted": r.converted, "failed": r.failed.map { ["source": $0.source, "error": $0.error, "exitCode": $0.exitCode] as [String: Any] },
            "postponed": r.postponed.map { ["source": $0.source, "error": $0.error, "exitCode": $0.exitCode] as [String: Any] },
            "alreadyDone": r.alreadyDone, "growing": r.growing, "givenUp": r.givenUp, "otherShard": r.otherShard,
            "claimedElsewhere": r.claimedElsewhere, "triedElsewhere": r.triedElsewhere, "retryLater": r.retryLater, "planned": r.planned, "dryRun": dryRun,
            "refused": r.refused.map { ["path": $0.path, "reason": $0.reason] },
            "skipped": r.skipped.map { ["path": $0.path, "reason": $0.reason] }, "duplicates": r.duplicates, "ownOutputs": r.ownOutputs, "slice": r.slice,
            "removedTempFiles": r.removedTempFiles, "removedClaims": r.removedClaims,
            "seconds": r.seconds, "mediaSeconds": r.mediaSeconds, "bytesIn": r.bytesIn, "ledgerLinesRead": r.ledgerLinesRead,
            "ledgerUnreadable": r.ledgerUnreadable,
            "chunks": r.chunks.map { ["source": $0.source, "chunk": $0.chunk, "chunks": $0.chunks, "seconds": $0.seconds] as [String: Any] },
            "chunksElsewhere": r.chunksElsewhere,
            "warnings": r.warnings.map { w -> [String: Any] in
                var o = noticeObject(w.notice, source: w.source)
                o["source"] = w.source
                if let output = w.output { o["output"] = output }
                return o
            },
        ]
    }
}

/// A name or message inside one line of the report: names may hold newlines and other control
/// characters, which would split the line and could forge the next one in the cron mail; they
/// are escaped as `NameText` says (docs/batch.md, "Names"). JSON needs no such care.
private func line(_ text: String) -> String { NameText.escaped(text) }
