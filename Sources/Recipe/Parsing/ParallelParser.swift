/// `parallel: { chunks: auto | N, shortest: 2s, longest: 20s }`.
extension RecipeParser {
    static let parallelKeys = ["chunks", "shortest", "longest"]
}

extension Parser {
    mutating func parseParallel(_ node: Node) {
        guard let pairs = mapping(node, "parallel", keys: RecipeParser.parallelKeys) else { return }
        var spec = ParallelSpec(chunks: .auto, mark: node.mark)
        var ok = true
        var longestMark: Mark?
        for (key, value, _) in pairs {
            switch key {
            case "chunks":
                guard let text = value.scalar?.trimmingWhitespace(), let chunks = ParallelSpec.chunks(parsing: text) else {
                    error(value.mark, "'chunks' must be auto or a whole number from 1 to \(ParallelSpec.maxChunks), not \(value.kindDescription)")
                    ok = false
                    continue
                }
                spec.chunks = chunks
            case "shortest", "longest":
                guard let t = time(value, key) else { ok = false; continue }
                guard t > .zero else { error(value.mark, "'\(key)' must be longer than 0s, not \(value.kindDescription)"); ok = false; continue }
                if key == "shortest" { spec.shortest = t } else { spec.longest = t; longestMark = value.mark }
            default: break
            }
        }
        if ok, spec.longest < spec.shortest {
            error(longestMark ?? node.mark, "'longest' (\(spec.longest.secondsDescription)) must be at least 'shortest' (\(spec.shortest.secondsDescription))")
            ok = false
        }
        if ok { recipe.parallel = spec }
    }
}
