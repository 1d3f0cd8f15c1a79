import Dispatch
import Foundation
import Pipeline
import Recipe
import Synchronization

struct RunCommand: Command {
    static let name = "run"
    static let answersStops = true
    static let abstract = "Convert one file with a recipe."
    static let usage = "reencode run RECIPE [-i INPUT] [-o OUTPUT] [--overwrite] [--chunks N|auto] [--progress auto|bar|json|none] [--quiet]"
    static let help = """
        OVERVIEW: \(abstract) The output is written beside its target under a temporary
        name and renamed when complete: a failed or interrupted run leaves nothing behind.

        USAGE: \(usage)

        ARGUMENTS:
          RECIPE               A recipe file (docs/recipes.md).

        OPTIONS:
          -i, --input INPUT    The source file (default: the recipe's 'source').
          -o, --output OUTPUT  The output file (default: the recipe's 'output: path'). A recipe
                               with 'outputs:' names each file itself: -o is refused.
          --overwrite          Replace an existing output.
        \(ChunkOption.help)
          --progress MODE      auto (a bar on a terminal, else nothing), bar, json (JSON lines
                               on stdout, docs/recipes.md), or none.
          --quiet              No summary line.
          -h, --help           Show help information.

        EXIT STATUS: 0 ok, 1 conversion failed, 64 usage (also -o whose extension contradicts the
        recipe's format), 65 invalid recipe or settings the encoder refuses, 66 input missing or
        not media (or not fitting the recipe), 73 output exists, is a folder or cannot be
        created, 74 I/O error (also: stdout or stderr cannot be written), 75 the system is short
        of memory, threads or open files for now (try again later), 128+n stopped by
        signal n (130 SIGINT, 143 SIGTERM, 129 SIGHUP, …;
        141 also when the reader of stdout or stderr goes away). Nothing is left behind.
        """

    enum ProgressMode: String { case auto, bar, json, none }

    let recipe: String
    let input: String?
    let output: String?
    let overwrite: Bool
    let progress: ProgressMode
    let quiet: Bool
    /// `--chunks`: the recipe's `parallel: chunks` replaced.
    let chunks: ParallelSpec.Chunks?

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--overwrite", "--quiet", "-q"],
                                    options: ["-i", "--input", "-o", "--output", "--progress", "--chunks"], usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing RECIPE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        recipe = a.positionals[0]
        input = try a.value("-i", "--input")
        output = try a.value("-o", "--output")
        overwrite = a.flag("--overwrite")
        quiet = a.flag("--quiet", "-q")
        let p = try a.value("--progress") ?? "auto"
        guard let mode = ProgressMode(rawValue: p) else {
            throw UsageError(message: "--progress must be auto, bar, json or none, not '\(p)'", usage: Self.usage)
        }
        progress = mode
        chunks = try ChunkOption.parse(a, usage: Self.usage)
    }

    /// How a run ended.
    enum Outcome {
        /// One result per media output, in the recipe's order; each image output's stills.
        case done([ConversionResult], stills: [StillPlan] = [])
        /// Already printed on stderr; `message` is what was printed, `number` the failed call's
        /// own (FFmpeg's or errno) where there is one.
        case failed(code: Int32, message: String, number: MediaError.Code? = nil)
        case stopped(StopReason)
    }

    func run() -> Int32 {
        let mode: ProgressMode = progress == .auto ? (isatty(STDERR_FILENO) == 1 ? .bar : .none) : progress
        let reporter = ProgressPrinter(mode: mode)
        if let refusal = DescriptorHeadroom.shortfall(needed: DescriptorHeadroom.run) {
            printError(refusal)
            return announce(.failed(code: ExitCode.temporaryFailure, message: refusal))
        }
        if let refusal = AddressSpaceReserve.prepare(conversions: 1) {
            printError("error: \(refusal)")
            return announce(.failed(code: ExitCode.temporaryFailure, message: refusal))
        }
        let stage = StageBox()
        // Listening starts before anything is read: a signal while the recipe is parsed or the
        // source probed ends the run at once (nothing exists yet); during the conversion a
        // signal or a lost stream cancels the session, which removes its temp file and any
        // folder it made. Once the output is in place the run has succeeded: nothing changes that.
        let stops = StopRequests { reason in
            stage.state.withLock { s in
                switch s.step {
                case .preparing:
                    // A lost stream costs only the messages; the run's own outcome still counts.
                    guard case .signal = reason else { return }
                    Console.shared.abandonStalledWrites()
                    reporter.close()
                    self.announce(.stopped(reason))
                    _exit(reason.exitCode)
                case .converting(let session as any StoppableRun), .makingStills(let session as any StoppableRun):
                    // The last words must not wait for a reader that stopped reading.
                    Console.shared.abandonStalledWrites()
                    if s.reason == nil { s.reason = reason }
                    session.cancel()
                case .finished:
                    break
                }
            }
        }
        defer { stops.close() }
        let outcome = convert(stage: stage, reporter: reporter)
        stage.state.withLock { $0.step = .finished }
        reporter.close()
        return announce(outcome)
    }

    private enum Step {
        case preparing
        case converting(ExportSession)
        /// A recipe whose outputs are all still images.
        case makingStills(StillRun)
        case finished
    }

    private struct Stage {
        var step = Step.preparing
        /// What stopped the conversion, set before the session is cancelled.
        var reason: StopReason?
    }

    /// Where the run is, shared with the stop handler.
    private final class StageBox: Sendable {
        let state = Locked(Stage())
    }

    private func convert(stage: StageBox, reporter: ProgressPrinter) -> Outcome {
        let r: Recipe
        switch loadRecipe(recipe) { case .success(let x): r = ChunkOption.applied(chunks, to: x); case .failure(let f): return .failed(code: f.code, message: f.message) }
        let compiled: CompiledOutputs
        switch compileRecipe(r, input: input, output: output, overwrite: overwrite) {
        case .success(let c): compiled = c
        case .failure(let f): return .failed(code: f.code, message: f.message, number: f.number)
        }
        let outputs = compiled.files, stills = compiled.images.map(\.plan)
        for line in compiled.leftOut {
            if progress == .json { writeOut(jsonLine(["type": "warning", "message": line])) } else { printError("warning: \(line)") }
        }
        // Said before the work starts, so a user can stop a run that would lose what they want;
        // with several outputs, each names the output it is about (a track one leaves out,
        // another may take).
        for plan in outputs.map(\.plan) {
            let into = outputs.count > 1 ? " → \(plan.outputPath)" : ""
            for n in plan.notices {
                if progress == .json {
                    var o = noticeObject(n, source: plan.source.path)
                    o["type"] = "warning"
                    if outputs.count > 1 { o["output"] = plan.outputPath }
                    writeOut(jsonLine(o))
                } else {
                    printError("warning: \(n.file ?? plan.source.path)\(into): \(n)")
                }
            }
        }
        do throws(MediaError) {
            guard !outputs.isEmpty else {
                let run = StillRun(plans: stills)
                stage.state.withLock { $0.step = .makingStills(run) }
                try run.run()
                return .done([], stills: stills)
            }
            let session = ExportSession(plans: outputs.map(\.plan), stills: stills)
            stage.state.withLock { $0.step = .converting(session) }
            var handler: (@Sendable (ConversionProgress) -> Void)? = nil
            if reporter.mode != .none { handler = { @Sendable p in reporter.show(p) } }
            return .done(try session.runAll(progress: handler), stills: stills)
        } catch let e {
            reporter.close()
            if e.kind == .cancelled, let reason = stage.state.withLock({ $0.reason }) { return .stopped(reason) }
            return .failed(code: report(e), message: "error: \(e)", number: e.code)
        }
    }

    /// The run's last words: a summary or message, and with `--progress json` exactly one final
    /// JSON line (`done`, `failed` or `cancelled`) on stdout. Returns the exit code.
    @discardableResult
    private func announce(_ outcome: Outcome) -> Int32 {
        let json = progress == .json
        switch outcome {
        case .done(let results, let stills):
            for result in results { if let stop = result.limitStop { warnStopped(result.outputPath, stop) } }
            if json, results.count == 1, stills.isEmpty, let result = results.first {
                var line: [String: Any] = ["type": "done", "output": result.outputPath, "duration": result.duration.seconds,
                                           "bytes": result.bytes, "elapsed": result.elapsed, "speed": result.speed]
                if let times = result.chunkTimes { line["chunks"] = ChunkTimesText.object(times) }
                writeOut(jsonLine(line))
            } else if json {
                // Several outputs from one read: one elapsed time and speed for all.
                let each = results.map { ["output": $0.outputPath, "duration": $0.duration.seconds, "bytes": $0.bytes] as [String: Any] }
                var line: [String: Any] = ["type": "done", "outputs": each]
                if let first = results.first { line["elapsed"] = first.elapsed; line["speed"] = first.speed }
                if !stills.isEmpty { line["images"] = stills.map(ImagesCommand.object) }
                writeOut(jsonLine(line))
            } else if !quiet {
                for result in results {
                    writeOut("wrote \(result.outputPath): \(result.duration.secondsDescription), \(byteText(result.bytes)), \(String(format: "%.1f", result.speed))x real time (\(String(format: "%.1f", result.elapsed)) s)")
                    if let times = result.chunkTimes { writeOut(ChunkTimesText.line(times)) }
                }
                for plan in stills { writeOut(ImagesCommand.text(plan)) }
            }
            return ExitCode.ok
        case .failed(let code, let message, let number):
            var line: [String: Any] = ["type": "failed", "message": message, "exitCode": code]
            if let number { line[number.jsonKey] = number.value }
            if json { writeOut(jsonLine(line)) }
            return code
        case .stopped(let reason):
            switch reason {
            case .signal(let sig):
                printError("cancelled: no output written (\(TerminationSignals.name(sig)))")
                if json { writeOut(jsonLine(["type": "cancelled", "signal": TerminationSignals.name(sig), "exitCode": reason.exitCode])) }
            case .lost(let loss):
                let message = "\(loss.description): the reader is gone; stopped, no output written"
                if loss.stream != .error { printError("error: " + message) }
                if json && loss.stream != .output {
                    if loss.errorNumber == EPIPE {
                        writeOut(jsonLine(["type": "cancelled", "signal": "SIGPIPE", "exitCode": reason.exitCode]))
                    } else {
                        writeOut(jsonLine(["type": "failed", "message": message, "exitCode": reason.exitCode]))
                    }
                }
            }
            return reason.exitCode
        }
    }
}

extension RunCommand {
    /// An output ended at its file-length limit: where, and why (the run succeeded).
    func warnStopped(_ path: String, _ stop: LimitStop) {
        guard progress == .json else { printError("warning: \(path): \(stop.message)"); return }
        writeOut(jsonLine(["type": "warning", "kind": "file-length-limit", "file": path, "end": stop.end.seconds,
                           "lastFrame": stop.lastFrame?.seconds ?? NSNull(), "bytes": stop.bytes, "limit": stop.limit.bytes,
                           "message": stop.message]))
    }
}

/// What a stop handler can stop: a conversion, or a recipe's still images alone.
protocol StoppableRun: Sendable { func cancel() }
extension ExportSession: StoppableRun {}
extension StillRun: StoppableRun {}

func byteText(_ b: Int) -> String { ByteCount.rounded(Int64(b)) }

func jsonLine(_ o: [String: Any]) -> String {
    guard let d = try? JSONSerialization.data(withJSONObject: jsonSafe(o), options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
    return String(decoding: d, as: UTF8.self)
}

/// Draws progress: a bar on stderr, or JSON lines on stdout. Reports arrive on one serial queue;
/// after `close` nothing more is drawn, so a final JSON line is the last line. Lines are made
/// under `state` and written under `drawing` only, so `close` (on the main thread, after a stop)
/// waits at most for the one write in progress, which a stop abandons if its stream is stalled.
final class ProgressPrinter: Sendable {
    let mode: RunCommand.ProgressMode
    private struct State { var drew = false; var closed = false }
    private let state = Locked(State())
    private let drawing = Lock()

    init(mode: RunCommand.ProgressMode) { self.mode = mode }

    func show(_ p: ConversionProgress) {
        let made = state.withLock { s -> (String, ConsoleStream)? in
            guard !s.closed else { return nil }
            switch mode {
            case .json:
                let eta: Any = p.speed > 0 && p.duration.isNumeric ? max(0, (p.duration.seconds - p.outputTime.seconds) / p.speed) : NSNull()
                var line: [String: Any] = ["type": "progress", "fraction": p.fraction, "time": p.outputTime.seconds, "duration": p.duration.seconds,
                                           "fps": p.framesPerSecond, "speed": p.speed, "eta": eta, "elapsed": p.elapsed]
                // Two-pass rate control: which pass the fraction is of.
                if p.passes > 1 { (line["pass"], line["passes"]) = (p.pass, p.passes) }
                return (jsonLine(line) + "\n", .output)
            case .bar:
                let width = 30
                let fraction = p.fraction.isFinite ? min(max(p.fraction, 0), 1) : 0
                let filled = Int(fraction * Double(width))
                let left = p.speed > 0 ? (p.duration.seconds - p.outputTime.seconds) / p.speed : 0
                let eta = left.isFinite ? Int(min(max(0, left), 359_999)) : 0
                s.drew = true
                let pass = p.passes > 1 ? "pass \(p.pass)/\(p.passes) " : ""
                return (String(format: "\r%@[%@%@] %3d%%  %5.0f fps  %5.1fx  ETA %d:%02d ", pass,
                               String(repeating: "#", count: filled), String(repeating: ".", count: width - filled),
                               Int(fraction * 100), p.framesPerSecond, p.speed, eta / 60, eta % 60), .error)
            default:
                return nil
            }
        }
        guard let (line, stream) = made else { return }
        drawing.withLock {
            // Closed meanwhile: the final line may already be out.
            guard !state.withLock({ $0.closed }) else { return }
            Console.shared.write(line, to: stream)
        }
    }

    /// Clears the bar and stops drawing; returns once no progress line is being written.
    func close() {
        let clear = state.withLock { s -> Bool in
            defer { s.closed = true; s.drew = false }
            return s.drew && !s.closed
        }
        drawing.withLock {
            if clear { Console.shared.write("\r\u{1B}[K", to: .error) }
        }
    }
}
