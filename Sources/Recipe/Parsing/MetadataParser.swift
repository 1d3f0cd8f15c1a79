/// `metadata:` of `output:` or of an entry of `outputs:` (model: Model/Metadata.swift).
extension Parser {
    static let metadataKeys = MetadataSpec.textKeys + ["creation-date", "location", "keep", "custom"]

    mutating func parseMetadata(_ node: Node) -> MetadataSpec? {
        guard let pairs = mapping(node, "metadata", keys: Self.metadataKeys) else { return nil }
        var spec = MetadataSpec(mark: node.mark)
        for (key, value, keyMark) in pairs {
            switch key {
            case "keep":
                guard let s = value.scalar, let k = MetadataSpec.Keep(rawValue: s) else {
                    error(value.mark, "'keep' must be one of \(MetadataSpec.Keep.allCases.map(\.rawValue).joined(separator: ", ")), not \(value.kindDescription)")
                    continue
                }
                spec.keep = k
            case "creation-date":
                guard let s = value.scalar?.trimmingWhitespace() else {
                    error(value.mark, "'creation-date' must be source, now or a date like 2024-05-01 or 2024-05-01T10:00:00Z, not \(value.kindDescription)")
                    continue
                }
                if s == "source" { spec.creationDate = .source; continue }
                if s == "now" { spec.creationDate = .now; continue }
                guard let utc = Self.utcDate(s) else {
                    error(value.mark, "'creation-date' must be source, now or a date like 2024-05-01 or 2024-05-01T10:00:00Z (a time without a zone is UTC), not \(value.kindDescription)")
                    continue
                }
                spec.creationDate = .date(utc)
            case "location":
                guard let s = value.scalar?.trimmingWhitespace() else {
                    error(value.mark, "'location' must be keep, remove or an ISO 6709 place like +48.8577+002.2950/, not \(value.kindDescription)")
                    continue
                }
                if s == "keep" { spec.location = .keep; continue }
                if s == "remove" { spec.location = .remove; continue }
                guard let place = Self.iso6709(s) else {
                    error(value.mark, "'location' must be keep, remove or an ISO 6709 place like +48.8577+002.2950/ (latitude ±DD.D up to 90, longitude ±DDD.D up to 180, an optional altitude ±A.A, then /), not \(value.kindDescription)")
                    continue
                }
                spec.location = .place(place)
            case "custom":
                guard case .mapping(let custom, _) = value else {
                    error(value.mark, "'custom' must be a mapping of key names to text, not \(value.kindDescription)")
                    continue
                }
                for (k, v) in custom {
                    guard let name = customKey(k) else { continue }
                    guard let text = v.scalar else { error(v.mark, "custom key '\(name)' must be text, not \(v.kindDescription)"); continue }
                    spec.items.append(MetadataSpec.Item(key: name, value: text, custom: true, mark: k.mark))
                }
            default:
                if let text = metadataText(value, key) {
                    spec.items.append(MetadataSpec.Item(key: key, value: text, custom: false, mark: keyMark))
                }
            }
        }
        return spec
    }

    /// A named key's text; `keywords` may also be a list, written as one item joined by ", ".
    mutating func metadataText(_ node: Node, _ key: String) -> String? {
        if key == "keywords", case .sequence(let words, _) = node {
            var out: [String] = []
            for w in words {
                guard let s = w.scalar, !s.isEmpty else { error(w.mark, "each of 'keywords' must be text, not \(w.kindDescription)"); return nil }
                out.append(s)
            }
            return out.joined(separator: ", ")
        }
        guard let s = node.scalar else {
            error(node.mark, "'\(key)' must be text\(key == "keywords" ? " or a list of text" : ""), not \(node.kindDescription)")
            return nil
        }
        return s
    }

    /// A custom key's name: printable, not a key of its own under `metadata:` or one the writer sets.
    mutating func customKey(_ node: Node) -> String? {
        guard let name = node.scalar, !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "=" }) else {
            error(node.mark, "a custom metadata key must be a name of printable characters without '=', not \(node.kindDescription)")
            return nil
        }
        let lower = name.lowercased()
        if MetadataSpec.textKeys.contains(lower) {
            error(node.mark, "'\(name)' is a metadata key of its own: write it as 'metadata: { \(lower): … }', not under 'custom'")
            return nil
        }
        if MetadataSpec.isCreationDate(lower) || MetadataSpec.isLocation(lower) {
            error(node.mark, "'\(name)' is set by 'metadata: { \(MetadataSpec.isLocation(lower) ? "location" : "creation-date"): … }', not under 'custom'")
            return nil
        }
        if MetadataSpec.writerKeys.contains(lower) {
            error(node.mark, "'\(name)' is written by the writer itself and cannot be set")
            return nil
        }
        return name
    }

    /// `2024-05-01`, `2024-05-01T10:00:00`, `2024-05-01 10:00:00.5+02:00`, `…Z` → UTC as
    /// `2024-05-01T08:00:00Z` (what FFmpeg's writers parse; fractions of a second are not
    /// stored); nil when not a real date and time from 1904 (the earliest an MP4 states) to 9999.
    static func utcDate(_ text: String) -> String? {
        var c = TextCursor(Array(text.utf8))
        guard let y = c.number(4), c.take("-"), let mo = c.number(2), c.take("-"), let d = c.number(2),
              (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d) else { return nil }
        var (h, mi, sec, offset) = (0, 0, 0, 0)
        if !c.atEnd {
            guard c.take("T") || c.take(" "), let hh = c.number(2), hh < 24, c.take(":"), let mm = c.number(2), mm < 60 else { return nil }
            (h, mi) = (hh, mm)
            if c.take(":") {
                guard let ss = c.number(2), ss < 60 else { return nil }
                sec = ss
                if c.take("."), c.digits() == 0 { return nil }
            }
            if !c.take("Z"), let sign = c.sign() {
                guard let oh = c.number(2), oh <= 14 else { return nil }
                var om = 0
                if !c.atEnd {
                    _ = c.take(":")
                    guard let m = c.number(2), m < 60 else { return nil }
                    om = m
                }
                offset = sign * (oh * 60 + om)
            }
            guard c.atEnd else { return nil }
        }
        let minutes = daysFromCivil(y, mo, d) * 1440 + h * 60 + mi - offset
        let day = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440
        let (uy, um, ud) = civil(fromDays: day)
        guard (1904...9999).contains(uy) else { return nil }
        let m = minutes - day * 1440
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(uy)-\(two(um))-\(two(ud))T\(two(m / 60)):\(two(m % 60)):\(two(sec))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, doy - (153 * mp + 2) / 5 + 1)
    }

    /// An ISO 6709 place in decimal degrees — `+48.8577+002.2950/`, with an optional altitude
    /// `+48.8577+002.2950+035.0/` — as written (a missing final `/` added); nil when malformed
    /// or off the globe.
    static func iso6709(_ text: String) -> String? {
        var c = TextCursor(Array(text.utf8))
        func coordinate(_ intDigits: Int, _ limit: Double) -> Bool {
            guard c.sign() != nil, let whole = c.number(intDigits) else { return false }
            var value = Double(whole)
            if c.take(".") {
                let start = c.at
                guard c.digits() > 0 else { return false }
                value += Double("0." + String(decoding: c.bytes[start..<c.at], as: UTF8.self)) ?? 0
            }
            return value <= limit
        }
        guard coordinate(2, 90), coordinate(3, 180) else { return nil }
        if !c.atEnd && !c.peek("/") {
            guard c.sign() != nil, c.digits() > 0 else { return nil }
            if c.take("."), c.digits() == 0 { return nil }
        }
        if c.atEnd { return text + "/" }
        guard c.take("/"), c.atEnd else { return nil }
        return text
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Reads ASCII text left to right, for the date and place parsers.
struct TextCursor {
    let bytes: [UInt8]
    var at = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { at == bytes.count }

    func peek(_ c: Character) -> Bool { !atEnd && bytes[at] == c.asciiValue }

    mutating func take(_ c: Character) -> Bool {
        guard peek(c) else { return false }
        at += 1
        return true
    }

    /// +1 or -1 for a `+` or `-`, nil (nothing read) otherwise.
    mutating func sign() -> Int? { take("+") ? 1 : take("-") ? -1 : nil }

    /// Exactly `n` digits as a number.
    mutating func number(_ n: Int) -> Int? {
        guard at + n <= bytes.count, bytes[at..<(at + n)].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        defer { at += n }
        return bytes[at..<(at + n)].reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// Skips digits; how many.
    mutating func digits() -> Int {
        let start = at
        while !atEnd, bytes[at] >= 48 && bytes[at] <= 57 { at += 1 }
        return at - start
    }
}
