import Foundation

/// `reencode`: subcommands in the style of swift-argument-parser.
let version = "0.1.0"
let commands: [any Command.Type] = [RunCommand.self, BatchCommand.self, ValidateCommand.self, PlanCommand.self, PresetsCommand.self, InspectCommand.self]

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

@MainActor func main(_ args: [String]) -> Int32 {
    guard let first = args.first else {
        printError(overview)
        return ExitCode.usage
    }
    switch first {
    case "-h", "--help":
        writeOut(overview); return ExitCode.ok
    case "--version":
        writeOut(version); return ExitCode.ok
    case "help":
        guard let name = args.dropFirst().first else { writeOut(overview); return ExitCode.ok }
        guard let c = commands.first(where: { $0.name == name }) else {
            printError("Error: unknown subcommand '\(name)'\n\n\(overview)"); return ExitCode.usage
        }
        writeOut(c.help); return ExitCode.ok
    default:
        break
    }
    guard let c = commands.first(where: { $0.name == first }) else {
        printError("Error: unknown subcommand '\(first)'\n\nUSAGE: reencode <subcommand>\nSee 'reencode --help'.")
        return ExitCode.usage
    }
    let rest = Array(args.dropFirst())
    if rest.contains("-h") || rest.contains("--help") { writeOut(c.help); return ExitCode.ok }
    do throws(UsageError) {
        return try c.init(arguments: rest).run()
    } catch {
        printError("Error: \(error.message)\nUsage: \(error.usage)\n  See 'reencode help \(c.name)'.")
        return ExitCode.usage
    }
}

// Before any file is opened: a closed stdout/stderr must not lend its number to one.
Console.shared.claimStandardDescriptors()
// A file-size limit (ulimit -f) must fail a write with EFBIG, not kill the process; a reader
// that closed our stdout or stderr shows as EPIPE on the write, handled as a lost stream.
signal(SIGXFSZ, SIG_IGN)
signal(SIGPIPE, SIG_IGN)
let arguments = Array(CommandLine.arguments.dropFirst())
var status = main(arguments)
// What validate, plan, inspect, presets and help print is their product: if it could not be
// written, they did not succeed. (run and batch make files; their rules are in docs/engine.md.)
if status == ExitCode.ok, !["run", "batch"].contains(arguments.first ?? ""), let loss = Console.shared.missedWrite(to: .output) {
    printError("error: \(loss.description): the output was not written")
    status = loss.exitCode
}
exit(status)
