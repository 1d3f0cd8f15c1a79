/// An output's limits: `file-length-limit` (a size) and `max-duration` (a time); and its `target-size` (a size).
extension RecipeParser {
    static let outputLimitKeys = ["file-length-limit", "max-duration", "target-size"]
    /// The largest file a limit may name: 1 PB (byte counts and their sums stay far from 2^63).
    static let maxFileLength: Int64 = 1_000_000_000_000_000
}

extension Parser {
    /// Reads `key` of an output into `limits`; false when `key` is not a limit's.
    mutating func parseOutputLimit(_ key: String, _ value: Node, into limits: inout OutputLimits) -> Bool {
        switch key {
        case "file-length-limit":
            if let bytes = fileLength(value, key) { limits.fileLength = Located(bytes, value.mark) }
        case "target-size":
            if let bytes = fileLength(value, key) { limits.targetSize = Located(bytes, value.mark) }
        case "max-duration":
            guard let t = time(value, key) else { return true }
            guard t > .zero else { error(value.mark, "'max-duration' must be longer than 0s, not \(value.kindDescription)"); return true }
            limits.maxDuration = Located(t, value.mark)
        default:
            return false
        }
        return true
    }

    /// `50MB`, `1.5GB`, `700KiB`, `1000000` → bytes, more than 0 and at most 1 PB.
    mutating func fileLength(_ node: Node, _ key: String) -> Int64? {
        let s = node.scalar?.trimmingWhitespace()
        guard let s, let bytes = ByteCount.parse(s) else {
            error(node.mark, "'\(key)' must be a size like 50MB, 1.5GB, 700KiB or 1000000 (bytes), not \(node.kindDescription)")
            return nil
        }
        guard bytes > 0, bytes <= RecipeParser.maxFileLength else {
            error(node.mark, "'\(key)' must be from 1 byte to 1PB, not \(node.kindDescription)")
            return nil
        }
        return bytes
    }
}
