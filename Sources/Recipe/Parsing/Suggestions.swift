/// The most names a suggestion is looked for among. A hand-written recipe has a few dozen; a
/// generated one with thousands of names gets no suggestions, so that thousands of misspelt
/// references cannot cost thousands × thousands edit distances.
public let maxSuggestionCandidates = 1000

/// " (did you mean 'frame-rate'?)" when a close name exists, else "". Linear in the candidates:
/// a name whose length alone puts it out of reach costs no edit distance.
public func suggestion(_ word: String, among candidates: [String]) -> String {
    guard candidates.count <= maxSuggestionCandidates else { return "" }
    let w = Array(word.lowercased().unicodeScalars)
    let wNormal = w.filter { $0 != "-" && $0 != "_" }
    var best: (name: String, score: Int)? = nil
    var scratch: [Int] = []
    for c in candidates {
        let cl = Array(c.lowercased().unicodeScalars)
        let limit = max(2, cl.count / 4)
        let score: Int
        if cl.filter({ $0 != "-" }) == wNormal {
            score = 0
        } else if abs(cl.count - w.count) > limit {
            continue  // the distance is at least the difference in length
        } else {
            score = editDistance(w, cl, scratch: &scratch)
        }
        if score <= limit, best == nil || score < best!.score { best = (c, score) }
    }
    return best.map { " (did you mean '\($0.name)'?)" } ?? ""
}

/// Levenshtein distance with two rows of scratch space.
func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], scratch: inout [Int]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: 0...b.count)
    var cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(scratch[j] + 1, cur[j - 1] + 1, scratch[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&scratch, &cur)
    }
    return scratch[b.count]
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    func range(of target: String) -> Range<Substring.Index>? {
        guard !target.isEmpty, count >= target.count else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(target) { return i..<index(i, offsetBy: target.count) }
            i = index(after: i)
        }
        return nil
    }
}
