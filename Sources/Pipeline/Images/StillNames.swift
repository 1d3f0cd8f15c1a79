import Recipe

/// How still images are named: a path with the source's tokens (`{dir}`, `{stem}`, `{ext}`,
/// `{name}`, as a recipe's output) and the still's own: `{n}`, its number from 1 in the order
/// asked, zero-padded to as many digits as the last number has (so names sort); `{time}`, the
/// instant asked for in seconds from the source's start (`62.500`). The extension names the
/// image format.
public enum StillNames {
    /// Beside the source: `clip-1.jpg`, `clip-2.jpg` … (`clip-01.jpg` from ten stills on).
    public static let defaultPattern = "{dir}/{stem}-{n}.jpg"

    /// The file of each instant (`offsets`, from the source's start). Refused (64): a pattern
    /// that names two stills the same (no `{n}` or `{time}` for several, or one instant asked
    /// for twice under `{time}` alone).
    static func paths(pattern: String, source: String, offsets: [MediaTime]) throws(MediaError) -> [String] {
        let digits = String(offsets.count).count
        let named = RecipeCompiler.expand(pattern, source: source)
        var paths: [String] = []
        var seen: [String: Int] = [:]
        for (i, t) in offsets.enumerated() {
            let n = String(i + 1)
            let path = named
                .replacingOccurrences(of: "{n}", with: String(repeating: "0", count: digits - n.count) + n)
                .replacingOccurrences(of: "{time}", with: seconds(t))
            if let first = seen[path] {
                throw MediaError(.usage, "names stills \(first + 1) and \(i + 1) the same file \(path): put {n} in it", file: pattern)
            }
            seen[path] = i
            paths.append(path)
        }
        return paths
    }

    /// `62.500`: seconds with milliseconds, no unit.
    private static func seconds(_ t: MediaTime) -> String { String(t.secondsDescription.dropLast()) }
}
