/// A position in a recipe file, 1-based, as people count.
public struct Mark: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public init(line: Int, column: Int) { self.line = line; self.column = column }
    public static func < (a: Mark, b: Mark) -> Bool { (a.line, a.column) < (b.line, b.column) }
    public var description: String { "\(line):\(column)" }
}

/// One problem in a recipe, rendered compiler-style:
///
///     recipe.yaml:12:5: error: unknown key 'framerate' in preset 'video-30' (did you mean 'frame-rate'?)
///         framerate: 30
///         ^
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error makes the recipe invalid; a warning says something in it has no effect.
    public enum Severity: String, Sendable, Hashable { case error, warning }

    public let file: String
    public let mark: Mark?
    public let message: String
    /// The offending line of the recipe, for the caret.
    public let sourceLine: String?
    public let severity: Severity

    public init(file: String, mark: Mark?, message: String, sourceLine: String?, severity: Severity = .error) {
        self.file = file; self.mark = mark; self.message = message; self.sourceLine = sourceLine; self.severity = severity
    }

    /// The first line only: `file:line:col: error: message` (or `warning:`).
    public var headline: String {
        if let mark { return "\(file):\(mark.line):\(mark.column): \(severity.rawValue): \(message)" }
        return "\(file): \(severity.rawValue): \(message)"
    }

    public var description: String {
        guard let mark, let line = sourceLine else { return headline }
        let shown = line.replacingTabs()
        let caretColumn = min(max(1, mark.column), shown.count + 1)
        return headline + "\n" + shown + "\n" + String(repeating: " ", count: caretColumn - 1) + "^"
    }
}

extension String {
    fileprivate func replacingTabs() -> String {
        var s = ""
        for c in self { s.append(c == "\t" ? " " : c) }
        return s
    }
}

/// Every problem found in one recipe, in file order.
public struct RecipeErrors: Error, Sendable, CustomStringConvertible {
    public let diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
