import Foundation
import Pipeline

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
    /// The command listens for stop requests itself (`StopRequests`) from the start of `run`.
    static var answersStops: Bool { get }
}

extension Command {
    static var answersStops: Bool { false }
}

/// A small argument scanner: flags, options with values (`-o X`, `--output X`, `--output=X`),
/// and positionals, in any order; `--` ends options.
struct ArgumentScanner {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ args: [String], flags known: Set<String>, options valued: Set<String>, usage: String) throws(UsageError) {
        self.usage = usage
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
                // `-o a -o b`: which one was meant? Refuse rather than guess.
                if options[name] != nil { throw UsageError(message: "'\(name)' is given more than once", usage: usage) }
                options[name] = [value ?? ""]
            } else {
                throw UsageError(message: "unknown option '\(name)'", usage: usage)
            }
        }
    }

    func flag(_ names: String...) -> Bool { names.contains { flags.contains($0) } }

    /// The value of an option (by any of its names), not checking that only one name was used.
    func option(_ names: String...) -> String? { names.compactMap { options[$0]?.last }.first }

    /// The value of an option known by several names (`-o`, `--output`); both given is an error.
    func value(_ names: String...) throws(UsageError) -> String? {
        let given = names.filter { options[$0] != nil }
        if given.count > 1 { throw UsageError(message: "'\(given[0])' and '\(given[1])' are the same option, given twice", usage: usage) }
        return given.first.flatMap { options[$0]?.last }
    }

    private let usage: String

    /// A whole number in `range` (`--jobs 4`, `-j 4`), or `default` when absent.
    func wholeNumber(_ names: String..., default value: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        let name = names.first ?? ""
        guard let text = try names.count > 1 ? self.value(names[0], names[1]) : self.value(name) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", usage: usage)
        }
        return n
    }

    /// Seconds in `range` (`--settle 2.5`), finite, or `default` when absent.
    func seconds(_ name: String, default value: Double, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = try self.value(name) else { return value }
        guard let n = Double(text), n.isFinite, range.contains(n) else {
            throw UsageError(message: "\(name) must be a number of seconds from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)), not '\(text)'", usage: usage)
        }
        return n
    }

    private static func plain(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d) }
}

/// Prints an engine error and gives its exit code.
func report(_ error: MediaError) -> Int32 {
    printError("error: \(error)")
    return error.exitCode
}

func jsonString(_ object: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: jsonSafe(object), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}

/// The same value with every non-finite number made null: JSONSerialization refuses NaN and
/// infinity, and one such value (a source that states no duration) must not turn a whole line
/// into `{}`.
func jsonSafe(_ value: Any) -> Any {
    switch value {
    case let d as Double: return d.isFinite ? d : NSNull()
    case let f as Float: return f.isFinite ? f : NSNull()
    case let a as [Any]: return a.map(jsonSafe)
    case let o as [String: Any]: return o.mapValues(jsonSafe)
    default: return value
    }
}
