/// A YAML node with the position it started at (Yams-style marks on every node).
public indirect enum Node: Sendable, Hashable {
    case scalar(String, Mark, quoted: Bool)
    case mapping([(key: Node, value: Node)], Mark)
    case sequence([Node], Mark)

    public var mark: Mark {
        switch self {
        case .scalar(_, let m, _), .mapping(_, let m), .sequence(_, let m): return m
        }
    }

    public var scalar: String? {
        if case .scalar(let s, _, _) = self { return s }
        return nil
    }

    /// For messages: "a mapping", "a list", "'text'".
    public var kindDescription: String {
        switch self {
        case .scalar(let s, _, _): return s.isEmpty ? "an empty value" : "'\(s.count > 40 ? String(s.prefix(40)) + "…" : s)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    public static func == (a: Node, b: Node) -> Bool {
        switch (a, b) {
        case let (.scalar(x, m, q), .scalar(y, n, r)): return x == y && m == n && q == r
        case let (.sequence(x, m), .sequence(y, n)): return x == y && m == n
        case let (.mapping(x, m), .mapping(y, n)):
            return m == n && x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public func hash(into h: inout Hasher) { h.combine(mark) }
}
