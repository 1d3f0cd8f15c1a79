import Dispatch
import Foundation
import Pipeline
import Recipe
import Synchronization

struct RunCommand: Command {
    static let name = "run"
    static let abstract = "Convert one file with a recipe."
    static let usage = "reencode run RECIPE [-i INPUT] [-o OUTPUT] [--overwrite] [--progress auto|bar|json|none] [--quiet]"
    static let help = """
        OVERVIEW: \(abstract) The output is written beside its target under a temporary
        name and renamed when complete: a failed or interrupted run leaves nothing behind.

        USAGE: \(usage)

        ARGUMENTS:
          RECIPE               A recipe file (docs/recipes.md).

        OPTIONS:
          -i, --input INPUT    The source file (default: the recipe's 'source').
          -o, --output OUTPUT  The output file (default: the recipe's 'output: path').
          --overwrite          Replace an existing output.
          --progress MODE      auto (a bar on a terminal, else nothing), bar, json (JSON lines
                               on stdout, docs/recipes.md), or none.
          --quiet              No summary line.
          -h, --help           Show help information.

        EXIT STATUS: 0 ok, 1 conversion failed, 64 usage, 65 invalid recipe, 66 input missing or
        not media, 73 output exists or cannot be created, 74 I/O error, 130/143 interrupted.
        """

    enum ProgressMode: String { case auto, bar, json, none }

    let recipe: String
    let input: String?
    let output: String?
    let overwrite: Bool
    let progress: ProgressMode
    let quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--overwrite", "--quiet", "-q"],
                                    options: ["-i", "--input", "-o", "--output", "--progress"], usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing RECIPE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        recipe = a.positionals[0]
        input = a.option("-i", "--input")
        output = a.option("-o", "--output")
        overwrite = a.flag("--overwrite")
        quiet = a.flag("--quiet", "-q")
        let p = a.option("--progress") ?? "auto"
        guard let mode = ProgressMode(rawValue: p) else {
            throw UsageError(message: "--progress must be auto, bar, json or none, not '\(p)'", usage: Self.usage)
        }
        progress = mode
    }

    func run() -> Int32 {
        let r: Recipe
        switch loadRecipe(recipe) { case .success(let x): r = x; case .failure(let f): return f.code }
        let compiled: CompiledRecipe
        switch compileRecipe(r, input: input, output: output, overwrite: overwrite) { case .success(let c): compiled = c; case .failure(let f): return f.code }
        let session = ExportSession(plan: compiled.plan)

        // SIGINT/SIGTERM cancel cleanly: lanes stop, the temp file goes, the exit code says which.
        let caught = Mutex<Int32>(0)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler {
                caught.withLock { if $0 == 0 { $0 = sig } }
                session.cancel()
            }
            s.resume()
            sources.append(s)
        }
        defer { sources.forEach { $0.cancel() } }

        let mode: ProgressMode = progress == .auto ? (isatty(STDERR_FILENO) == 1 ? .bar : .none) : progress
        let reporter = ProgressPrinter(mode: mode)
        do throws(MediaError) {
            var handler: (@Sendable (ConversionProgress) -> Void)? = nil
            if mode != .none { handler = { @Sendable p in reporter.show(p) } }
            let result = try session.run(progress: handler)
            reporter.finish()
            if mode == .json {
                writeOut(jsonLine(["type": "done", "output": result.outputPath, "duration": result.duration.seconds,
                                "bytes": result.bytes, "elapsed": result.elapsed, "speed": result.speed]))
            } else if !quiet {
                writeOut("wrote \(result.outputPath): \(result.duration.secondsDescription), \(byteText(result.bytes)), \(String(format: "%.1f", result.speed))x real time (\(String(format: "%.1f", result.elapsed)) s)")
            }
            return ExitCode.ok
        } catch let e {
            reporter.finish()
            if e.kind == .cancelled {
                let sig = caught.withLock { $0 }
                printError("cancelled: no output written")
                return sig == SIGTERM ? 143 : 130
            }
            return report(e)
        }
    }
}

/// One line on stdout, unbuffered, so progress lines and the summary stay in order in a pipe.
func writeOut(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func byteText(_ b: Int) -> String {
    if b >= 1_000_000 { return String(format: "%.1f MB", Double(b) / 1e6) }
    if b >= 1_000 { return String(format: "%.1f kB", Double(b) / 1e3) }
    return "\(b) B"
}

func jsonLine(_ o: [String: Any]) -> String {
    guard let d = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
    return String(decoding: d, as: UTF8.self)
}

/// Draws progress: a bar on stderr, or JSON lines on stdout. Reports arrive on one serial queue.
final class ProgressPrinter: Sendable {
    let mode: RunCommand.ProgressMode
    private let drew = Mutex(false)

    init(mode: RunCommand.ProgressMode) { self.mode = mode }

    func show(_ p: ConversionProgress) {
        switch mode {
        case .json:
            let eta: Any = p.speed > 0 && p.duration.isNumeric ? max(0, (p.duration.seconds - p.outputTime.seconds) / p.speed) : NSNull()
            writeOut(jsonLine(["type": "progress", "fraction": p.fraction, "time": p.outputTime.seconds, "duration": p.duration.seconds,
                               "fps": p.framesPerSecond, "speed": p.speed, "eta": eta, "elapsed": p.elapsed]))
        case .bar:
            let width = 30
            let filled = Int(p.fraction * Double(width))
            let eta = p.speed > 0 ? Int(max(0, (p.duration.seconds - p.outputTime.seconds) / p.speed)) : 0
            let line = String(format: "\r[%@%@] %3d%%  %5.0f fps  %5.1fx  ETA %d:%02d ",
                              String(repeating: "#", count: filled), String(repeating: ".", count: width - filled),
                              Int(p.fraction * 100), p.framesPerSecond, p.speed, eta / 60, eta % 60)
            FileHandle.standardError.write(Data(line.utf8))
            drew.withLock { $0 = true }
        default:
            break
        }
    }

    func finish() {
        if drew.withLock({ $0 }) { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
