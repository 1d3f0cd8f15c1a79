import Foundation
import Pipeline

/// Exit codes (DESIGN §4, sysexits).
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let invalidRecipe: Int32 = 65
    static let noInput: Int32 = 66
    static let cannotCreate: Int32 = 73
    static let io: Int32 = 74
}

/// A bad command line: printed as `Error: …` plus the command's usage, exit 64.
struct UsageError: Error {
    let message: String
    let usage: String
}

/// A subcommand, swift-argument-parser style: `--help` on each, usage on error.
protocol Command {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    static var help: String { get }
    init(arguments: [String]) throws(UsageError)
    func run() -> Int32
}

/// A small argument scanner: flags, options with values (`-o X`, `--output X`, `--output=X`),
/// and positionals, in any order; `--` ends options.
struct ArgumentScanner {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ args: [String], flags known: Set<String>, options valued: Set<String>, usage: String) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" { positionals.append(a); continue }
            if a == "--" { onlyPositionals = true; continue }
            var name = a, value: String? = nil
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq]); value = String(a[a.index(after: eq)...])
            }
            if known.contains(name) {
                if value != nil { throw UsageError(message: "'\(name)' takes no value", usage: usage) }
                flags.insert(name)
            } else if valued.contains(name) {
                if value == nil {
                    guard i < args.count else { throw UsageError(message: "missing value for '\(name)'", usage: usage) }
                    value = args[i]; i += 1
                }
                options[name, default: []].append(value!)
            } else {
                throw UsageError(message: "unknown option '\(name)'", usage: usage)
            }
        }
    }

    func flag(_ names: String...) -> Bool { names.contains { flags.contains($0) } }
    func option(_ names: String...) -> String? { names.compactMap { options[$0]?.last }.first }
}

/// Maps an engine error to DESIGN §4's exit code after printing it.
func report(_ error: MediaError) -> Int32 {
    printError("error: \(error)")
    return error.exitCode
}

func jsonString(_ object: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}
