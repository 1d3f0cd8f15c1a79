/// An audio track's `loudness: { integrated: -16 LUFS, true-peak: -1 dBTP }`.
extension RecipeParser {
    static let loudnessKeys = ["integrated", "true-peak"]
}

extension Parser {
    /// The target `node` states; nil (said at its line) when it is not one.
    mutating func loudness(_ node: Node) -> LoudnessTarget? {
        guard let pairs = mapping(node, "'loudness'", keys: RecipeParser.loudnessKeys) else { return nil }
        var integrated: Double?, truePeak = LoudnessTarget.defaultTruePeak
        var ok = true
        for (key, value, _) in pairs {
            switch key {
            case "integrated":
                integrated = level(value, key, unit: "LUFS", range: LoudnessTarget.integratedRange)
                ok = ok && integrated != nil
            default:
                if let v = level(value, key, unit: "dBTP", range: LoudnessTarget.truePeakRange) { truePeak = v } else { ok = false }
            }
        }
        guard ok else { return nil }
        guard let integrated else {
            error(node.mark, "'loudness' needs 'integrated', the loudness to bring the sound to (-16 LUFS, -23 LUFS)")
            return nil
        }
        return LoudnessTarget(integrated: integrated, truePeak: truePeak)
    }

    /// `-16 LUFS`, `-16LUFS` or `-16` (the unit may be left out), within `range`.
    private mutating func level(_ node: Node, _ key: String, unit: String, range: ClosedRange<Double>) -> Double? {
        var s = Substring(node.scalar?.trimmingWhitespace() ?? "")
        if s.lowercased().hasSuffix(unit.lowercased()) { s = s.dropLast(unit.count) }
        let number = String(s).trimmingWhitespace()
        let text = number.hasPrefix("+") ? String(number.dropFirst()) : number
        guard node.scalar != nil, text.looksLikeNumber, !text.hasSuffix("s"), let v = Double(text), range.contains(v) else {
            let bounds = "\(LoudnessTarget.decibels(range.lowerBound)) to \(LoudnessTarget.decibels(range.upperBound)) \(unit)"
            error(node.mark, "'\(key)' must be a level from \(bounds) (like \(unit == "LUFS" ? "-16 LUFS" : "-1 dBTP")), not \(node.kindDescription)")
            return nil
        }
        return v
    }
}
