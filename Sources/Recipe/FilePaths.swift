/// Path arithmetic on strings as the user spelled them. NSString's path methods are not used:
/// swift-corelibs-foundation's `deletingLastPathComponent` traps on any one-character name
/// (`"a"`, `"a/"`, `"."`), so `-o a/x.mp4` died with SIGILL. These never trap, whatever the text.
public enum FilePaths {
    /// The folder holding `path`: `"a/x.mp4"` → `"a"`, `"x.mp4"` → `"."`, `"/x.mp4"` → `"/"`,
    /// `"a/b/"` → `"a"`. Trailing slashes do not count as a component.
    public static func folder(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed.isEmpty && !path.isEmpty { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return parent.isEmpty ? "/" : parent
    }

    /// The last component: `"a/x.mp4"` → `"x.mp4"`, `"a/b/"` → `"b"`, `"/"` → `"/"`, `""` → `""`.
    public static func name(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        if trimmed.isEmpty { return path.isEmpty ? "" : "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// How a message names `path` among `paths` (a composition's files): its name, short, unless
    /// another of them has the same name in another folder — then the whole path, so that
    /// `a/clip.mp4` and `b/clip.mp4` do not look alike.
    public static func label(of path: String, among paths: [String]) -> String {
        let own = name(of: path)
        return paths.contains { $0 != path && name(of: $0) == own } ? path : own
    }

    /// The extension of the last component without the dot, or `""`: `"x.mp4"` → `"mp4"`,
    /// `".hidden"` → `""`, `"x."` → `""`.
    public static func pathExtension(of path: String) -> String {
        let n = name(of: path)
        guard let dot = n.lastIndex(of: "."), dot != n.startIndex else { return "" }
        return String(n[n.index(after: dot)...])
    }

    /// The last component without its extension: `"a/x.mp4"` → `"x"`.
    public static func stem(of path: String) -> String {
        let n = name(of: path)
        let ext = pathExtension(of: n)
        return ext.isEmpty ? n : String(n.dropLast(ext.count + 1))
    }

    /// `folder + "/" + name` without doubling the slash after `/`.
    public static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var s = Substring(path)
        while s.count > 1 && s.hasSuffix("/") { s = s.dropLast() }
        return s == "/" ? "" : String(s)
    }
}
