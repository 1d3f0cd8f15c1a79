/// " (did you mean 'frame-rate'?)" when a close name exists, else "".
public func suggestion(_ word: String, among candidates: [String]) -> String {
    let w = word.lowercased()
    var best: (String, Int)? = nil
    for c in candidates {
        let d = editDistance(w, c.lowercased())
        let normalised = c.lowercased().replacingOccurrences(of: "-", with: "") == w.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        let score = normalised ? 0 : d
        if score <= max(2, c.count / 4), best == nil || score < best!.1 { best = (c, score) }
    }
    return best.map { " (did you mean '\($0.0)'?)" } ?? ""
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    for i in 1...a.count {
        var cur = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        prev = cur
    }
    return prev[b.count]
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
