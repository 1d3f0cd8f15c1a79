import Foundation

/// Where an output stops before its source's end (AVAssetExportSession's `fileLengthLimit`, and
/// a longest duration): `output: { file-length-limit: 50MB, max-duration: 90s }`.
public struct OutputLimits: Sendable {
    /// The most bytes the whole file may have, its index included.
    public var fileLength: Located<Int64>?
    /// The longest the output may be.
    public var maxDuration: Located<MediaTime>?
    /// The size the whole file is aimed at (±3 %), its container included: the video bitrate is
    /// derived from it and coded in two passes (`TargetSizePass`).
    public var targetSize: Located<Int64>?
    public init() {}

    public var isEmpty: Bool { fileLength == nil && maxDuration == nil }
}

/// Byte counts as a recipe writes them and messages say them.
public enum ByteCount {
    /// The units a size may have: decimal (kB = 1000) and binary (KiB = 1024), any case.
    static let units: [(suffix: String, bytes: Int64)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40),
        ("kb", 1_000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("tb", 1_000_000_000_000),
        ("k", 1_000), ("m", 1_000_000), ("g", 1_000_000_000), ("b", 1),
    ]

    /// `50MB`, `1.5 GB`, `700KiB`, `1000000` (bytes) → bytes; nil when not a size (or too large
    /// to count).
    public static func parse(_ text: String) -> Int64? {
        var s = text.lowercased().filter { $0 != " " }
        var scale: Int64 = 1
        if let unit = units.first(where: { s.hasSuffix($0.suffix) }) {
            scale = unit.bytes
            s.removeLast(unit.suffix.count)
        }
        guard let t = TimeParsing.decimal(s, scale: 1), t.value >= 0 else { return nil }
        return WideArithmetic.checkedMulDiv(t.value, scale, Int64(t.timescale), rounding: .down)
    }

    /// `52428800 bytes (52.4 MB)`: the exact count, and its size in decimal units.
    public static func describe(_ bytes: Int64) -> String {
        bytes < 1000 ? "\(bytes) bytes" : "\(bytes) bytes (\(rounded(bytes)))"
    }

    /// `52.4 MB`, `812.0 kB`, `640 B`: what `run` and `plan` say a file weighs.
    public static func rounded(_ bytes: Int64) -> String {
        if bytes >= 1_000_000 { return String(format: "%.1f MB", Double(bytes) / 1e6) }
        if bytes >= 1_000 { return String(format: "%.1f kB", Double(bytes) / 1e3) }
        return "\(bytes) B"
    }
}
