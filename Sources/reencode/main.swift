import Foundation
import Pipeline

/// `reencode`: subcommands in the style of swift-argument-parser.
let version = "0.1.0"
let commands: [any Command.Type] = [RunCommand.self, BatchCommand.self, ValidateCommand.self, PlanCommand.self, PresetsCommand.self, InspectCommand.self, ImagesCommand.self]

let overview = """
    OVERVIEW: Batch media reencoding from YAML recipes, on FFmpeg's libraries.

    USAGE: reencode <subcommand>

    OPTIONS:
      --version       Show the version.
      -h, --help      Show help information.

    SUBCOMMANDS:
    \(commands.map { "  \($0.name.padding(toLength: 14, withPad: " ", startingAt: 0))  \($0.abstract)" }.joined(separator: "\n"))

      See 'reencode help <subcommand>' for detailed help.
    """

/// What help, --version, validate, plan, inspect, presets and batch print is their product: if it could
/// not be written, they did not succeed (74, or 141 for a closed pipe); their own failures keep
/// their code.
func printed(_ status: Int32, what: String = "the output") -> Int32 {
    guard status == ExitCode.ok, let loss = Console.shared.missedWrite(to: .output) else { return status }
    printError("error: \(loss.description): \(what) was not written")
    return loss.exitCode
}

@MainActor func main(_ args: [String]) -> Int32 {
    // run and batch answer a stop themselves (they clean up, and say how they ended); anything
    // else ends at once.
    let own = args.first.flatMap { a in commands.first { $0.name == a } }?.answersStops ?? false
    if own { return dispatch(args) }
    let stops = SignalEndsAtOnce()
    return stops.finish(dispatch(args))
}

@MainActor func dispatch(_ args: [String]) -> Int32 {
    guard let first = args.first else {
        printError(overview)
        return ExitCode.usage
    }
    switch first {
    case "-h", "--help":
        writeOut(overview); return printed(ExitCode.ok)
    case "--version":
        writeOut(version); return printed(ExitCode.ok)
    case "help":
        guard let name = args.dropFirst().first else { writeOut(overview); return printed(ExitCode.ok) }
        guard let c = commands.first(where: { $0.name == name }) else {
            printError("Error: unknown subcommand '\(name)'\n\n\(overview)"); return ExitCode.usage
        }
        writeOut(c.help); return printed(ExitCode.ok)
    default:
        break
    }
    guard let c = commands.first(where: { $0.name == first }) else {
        printError("Error: unknown subcommand '\(first)'\n\nUSAGE: reencode <subcommand>\nSee 'reencode --help'.")
        return ExitCode.usage
    }
    let rest = Array(args.dropFirst())
    // Help is help whichever way it is asked for (`reencode run --help`, `reencode help run`).
    if rest.contains("-h") || rest.contains("--help") { writeOut(c.help); return printed(ExitCode.ok) }
    do throws(UsageError) {
        let command = try c.init(arguments: rest)
        let status = command.run()
        // run judges its own streams (docs/engine.md); the rest print their product (batch: its
        // report, which cron or a script reads).
        if command is RunCommand { return status }
        return printed(status, what: command is BatchCommand ? "the report" : "the output")
    } catch {
        printError("Error: \(error.message)\nUsage: \(error.usage)\n  See 'reencode help \(c.name)'.")
        return ExitCode.usage
    }
}

// First of all: a termination signal that comes from here on waits for its listener, so every
// way out answers it (with --json, with its one JSON object).
TerminationSignals.hold()
// Before any file is opened: a closed stdout/stderr must not lend its number to one.
Console.shared.claimStandardDescriptors()
// A reader that closed our stdout or stderr shows as EPIPE on the write, handled as a lost
// stream; only a SIGPIPE sent by another process stops us.
OutsideSIGPIPE.install()
// A file-size limit (ulimit -f) must fail a write with EFBIG, not kill the process.
signal(SIGXFSZ, SIG_IGN)
let arguments = Array(CommandLine.arguments.dropFirst())
if let refused = refuseUndecodableArgument(arguments) { exit(refused) }
exit(main(arguments))
