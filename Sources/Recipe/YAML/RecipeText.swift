/// A recipe file's bytes as text. A recipe is UTF-8 without NUL bytes; a byte that breaks this is
/// an error at its line and column (counted in characters, as libyaml counts the other errors'),
/// with the line shown and a caret under it, as every other recipe error.
public enum RecipeText {
    /// The bytes as a string, or where they stop being recipe text.
    public static func decode(_ bytes: [UInt8], file: String) -> Result<String, Diagnostic> {
        if let e = firstProblem(in: bytes, file: file) { return .failure(e) }
        // Checked just above: every byte is valid UTF-8.
        return .success(String(decoding: bytes, as: UTF8.self))
    }

    /// The first NUL byte or invalid UTF-8 sequence, as a diagnostic at its place; nil when the
    /// bytes are recipe text.
    static func firstProblem(in bytes: [UInt8], file: String) -> Diagnostic? {
        var lineNumber = 1
        var lineStart = 0
        while lineStart <= bytes.count {
            let end = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[lineStart..<end]
            if let (column, what) = firstProblem(inLine: line) {
                // Shown readable: a NUL as ␀, a broken sequence as U+FFFD, each one character.
                let shown = String(decoding: line.flatMap { $0 == 0 ? Array("\u{2400}".utf8) : [$0] }, as: UTF8.self)
                return Diagnostic(file: file, mark: Mark(line: lineNumber, column: column), message: what, sourceLine: shown)
            }
            lineNumber += 1
            lineStart = end + 1
        }
        return nil
    }

    /// The column (1-based, in characters) and what is wrong with the first bad byte of one line.
    private static func firstProblem(inLine line: ArraySlice<UInt8>) -> (Int, String)? {
        var column = 1
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = line.makeIterator()
        var offset = line.startIndex
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .emptyInput:
                return nil
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == 0 { return (column, "the recipe is not text: it holds a NUL byte here") }
                offset += encoded.count
                column += 1
            case .error(let length):
                let bad = line[offset..<offset + length].map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
                return (column, "the recipe is not UTF-8 text: the byte\(length == 1 ? "" : "s") \(bad) here \(length == 1 ? "is" : "are") not UTF-8 (save the file as UTF-8)")
            }
        }
    }
}
