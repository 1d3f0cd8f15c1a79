/// Parsing of the time and rate forms people write in recipes and on the command line.
public enum TimeParsing {
    /// `2`, `1.5s`, `250ms`, `00:01:02.500`, `01:02`, `1001/30000` (seconds as a rational).
    /// Exact: `1.5` is 3/2, never a float. nil for text that is not a time or does not fit in a
    /// MediaTime; ranges (what a recipe may ask for) are the recipe parser's job.
    public static func time(_ text: String) -> MediaTime? {
        let s = text.trimmingWhitespace()
        guard !s.isEmpty else { return nil }
        if s.hasSuffix("ms") { return decimal(String(s.dropLast(2)), scale: 1000) }
        if s.hasSuffix("s") { return decimal(String(s.dropLast()), scale: 1) }
        if s.contains(":") { return clock(s) }
        if s.contains("/") {
            let parts = s.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int64(parts[0]), let d = Int32(parts[1]), d > 0 else { return nil }
            return MediaTime(value: n, timescale: d)
        }
        return decimal(s, scale: 1)
    }

    /// `30`, `29.97` (→ 30000/1001), `30000/1001`, `25.5` (→ 51/2).
    public static func frameRate(_ text: String) -> FrameRate? {
        let s = text.trimmingWhitespace()
        if s.contains("/") {
            let parts = s.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int32(parts[0]), let d = Int32(parts[1]), n > 0, d > 0 else { return nil }
            return FrameRate(frames: n, seconds: d)
        }
        guard let t = decimal(s, scale: 1), t.value > 0, t.value <= Int64(Int32.max) else { return nil }
        // The NTSC family is written rounded (23.976, 29.97, 59.94, 119.88): snap to n*1000/1001.
        for base: Int64 in [24, 30, 48, 60, 120, 240] {
            let ntsc = MediaTime(value: base * 1000, timescale: 1001)
            let diff = t - ntsc
            if t != MediaTime(value: base, timescale: 1), diff.isNumeric,
               MediaTime.compare(diff.value < 0 ? diff.negated : diff, MediaTime(value: 1, timescale: 100)) < 0 {
                return FrameRate(frames: Int32(base * 1000), seconds: 1001)
            }
        }
        return FrameRate(frames: Int32(t.value), seconds: t.timescale)
    }

    /// A decimal number of `1/scale` seconds, exact, up to 9 fractional digits; nil when it does
    /// not fit (never a trap).
    static func decimal(_ text: String, scale: Int64) -> MediaTime? {
        var s = Substring(text)
        var negative = false
        if s.first == "-" { negative = true; s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let intPart = parts.first, !intPart.isEmpty || parts.count == 2,
              intPart.allSatisfy(\.isASCIIDigit) else { return nil }
        let fracPart = parts.count == 2 ? parts[1] : ""
        guard fracPart.allSatisfy(\.isASCIIDigit), fracPart.count <= 9, parts.count == 1 || !fracPart.isEmpty else { return nil }
        var ts: Int64 = scale
        for _ in 0..<fracPart.count { ts *= 10 }
        guard ts <= Int64(Int32.max), let whole = Int64(intPart.isEmpty ? "0" : String(intPart)) else { return nil }
        let frac = fracPart.isEmpty ? 0 : Int64(fracPart)!
        var fracScale: Int64 = 1
        for _ in 0..<fracPart.count { fracScale *= 10 }
        let (w, o1) = whole.multipliedReportingOverflow(by: fracScale)
        let (value, o2) = w.addingReportingOverflow(frac)
        guard !o1, !o2 else { return nil }
        return MediaTime(value: negative ? -value : value, timescale: Int32(ts))
    }

    /// `HH:MM:SS(.fff)` or `MM:SS(.fff)`.
    static func clock(_ s: String) -> MediaTime? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        guard let secs = decimal(parts[parts.count - 1], scale: 1), secs.value >= 0,
              secs < MediaTime(seconds: 60) else { return nil }
        var total: Int64 = 0
        for p in parts.dropLast() {
            guard !p.isEmpty, p.allSatisfy(\.isASCIIDigit), let v = Int64(p) else { return nil }
            let (t, o1) = total.multipliedReportingOverflow(by: 60)
            let (sum, o2) = t.addingReportingOverflow(v)
            guard !o1, !o2 else { return nil }
            total = sum
        }
        if parts.count == 3, let m = Int64(parts[1]), m >= 60 { return nil }
        return try? MediaTime(seconds: total).multiplied(by: 60).adding(secs)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
