import CYAML

/// Parses one YAML document into `Node`s with libyaml's event API. Hostile input gets an error,
/// never a crash or a blow-up: aliases are refused (no "billion laughs"), nesting and sizes are
/// bounded, duplicate keys are errors.
public enum YAMLParser {
    public static let maxDepth = 64
    public static let maxBytes = 1 << 20
    public static let maxScalar = 64 << 10

    public static func parse(_ text: String, file: String) -> Result<Node, Diagnostic> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func diag(_ mark: Mark?, _ message: String) -> Diagnostic {
            let line = mark.flatMap { $0.line - 1 < lines.count && $0.line >= 1 ? lines[$0.line - 1] : nil }
            return Diagnostic(file: file, mark: mark, message: message, sourceLine: line)
        }
        let bytes = Array(text.utf8)
        if bytes.count > maxBytes { return .failure(diag(nil, "the recipe is larger than 1 MiB")) }
        if let e = RecipeText.firstProblem(in: bytes, file: file) { return .failure(e) }

        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return .failure(diag(nil, "cannot start the YAML parser")) }
        defer { yaml_parser_delete(&parser) }
        return bytes.withUnsafeBufferPointer { buf -> Result<Node, Diagnostic> in
            yaml_parser_set_input_string(&parser, buf.baseAddress, buf.count)
            var builder = TreeBuilder()
            var documents = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let m = Mark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
                    let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
                    let context = parser.context.map { " " + String(cString: $0) } ?? ""
                    return .failure(diag(m, "invalid YAML: \(problem)\(context)"))
                }
                defer { yaml_event_delete(&event) }
                let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    guard let root = builder.root else { return .failure(diag(nil, "the recipe is empty")) }
                    return .success(root)
                case YAML_DOCUMENT_START_EVENT:
                    documents += 1
                    if documents > 1 { return .failure(diag(mark, "a recipe is one YAML document; found a second one here")) }
                case YAML_ALIAS_EVENT:
                    return .failure(diag(mark, "aliases (*name) are not allowed in recipes; use a preset with 'base:' to share settings"))
                case YAML_SCALAR_EVENT:
                    let s = event.data.scalar
                    if Int(s.length) > maxScalar { return .failure(diag(mark, "a value longer than 64 KiB")) }
                    let value = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
                    let quoted = s.style == YAML_SINGLE_QUOTED_SCALAR_STYLE || s.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                    if let e = builder.add(.scalar(value, mark, quoted: quoted)) { return .failure(diag(e.0, e.1)) }
                case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
                    if builder.depth >= maxDepth { return .failure(diag(mark, "the recipe nests deeper than \(maxDepth) levels")) }
                    builder.open(mapping: event.type == YAML_MAPPING_START_EVENT, mark)
                case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                    if let e = builder.close() { return .failure(diag(e.0, e.1)) }
                default:
                    break
                }
            }
        }
    }
}

/// Assembles nodes from events; duplicate keys are found as mappings close. Linear in the number
/// of nodes: each open collection is grown in place on the stack (taking it out of an enum and
/// putting it back copied the whole array per item, which made a 40k-item list take 15 s).
private struct TreeBuilder {
    private struct Open {
        let isMapping: Bool
        let mark: Mark
        var items: [Node] = []
        var pairs: [(key: Node, value: Node)] = []
        var pendingKey: Node?
    }
    private var stack: [Open] = []
    private(set) var root: Node?
    var depth: Int { stack.count }

    mutating func open(mapping: Bool, _ mark: Mark) {
        stack.append(Open(isMapping: mapping, mark: mark))
    }

    mutating func close() -> (Mark, String)? {
        guard let top = stack.popLast() else { return nil }
        guard top.isMapping else { return add(.sequence(top.items, top.mark)) }
        var seen: [String: Mark] = [:]
        seen.reserveCapacity(top.pairs.count)
        for (k, _) in top.pairs {
            guard let name = k.scalar else { return (k.mark, "keys must be plain names, not \(k.kindDescription)") }
            if let first = seen[name] { return (k.mark, "duplicate key '\(name)' (first at \(first))") }
            seen[name] = k.mark
        }
        return add(.mapping(top.pairs, top.mark))
    }

    mutating func add(_ node: Node) -> (Mark, String)? {
        guard !stack.isEmpty else { root = node; return nil }
        let i = stack.count - 1
        if !stack[i].isMapping {
            stack[i].items.append(node)
        } else if let key = stack[i].pendingKey {
            stack[i].pairs.append((key, node))
            stack[i].pendingKey = nil
        } else {
            stack[i].pendingKey = node
        }
        return nil
    }
}
