import Foundation
import Pipeline
import Recipe

/// The size estimate as `plan` shows it (docs/recipes.md, "Size estimate").
enum EstimateText {
    static func lines(_ e: SizeEstimate) -> [String] {
        let how = e.sampled.map { "sample encode of \($0)" }
            ?? (e.tracks.contains { $0.basis == .assumed } ? "fast: quality-coded tracks assumed, nothing encoded" : "bit rates")
        var lines = ["", "size     ≈ \(ByteCount.rounded(e.bytes)) (\(ByteCount.rounded(e.low))–\(ByteCount.rounded(e.high))), \(how)"
                     + (e.sourceBytes > 0 ? "; the source is \(ByteCount.rounded(e.sourceBytes))" : "")]
        for t in e.tracks {
            lines.append("  track \(t.output)  \(padded(ByteCount.rounded(t.bytes), 10)) \(t.basis.rawValue): \(t.detail)")
        }
        lines.append("  container \(ByteCount.rounded(e.overhead)) (header, index, sample framing)")
        return lines
    }

    static func object(_ e: SizeEstimate) -> [String: Any] {
        ["method": e.method.rawValue, "bytes": e.bytes, "low": e.low, "high": e.high, "overhead": e.overhead,
         "sourceBytes": e.sourceBytes, "exceedsSource": e.exceedsSource, "sampled": e.sampled ?? NSNull(),
         "tracks": e.tracks.map { ["output": $0.output, "bytes": $0.bytes, "basis": $0.basis.rawValue, "spread": $0.spread, "detail": $0.detail] as [String: Any] }]
    }

    /// The estimate is larger than the source: said before the time is spent. Not for a
    /// composition: it draws on several files (or parts of one), and `source` is only the first.
    static func warnings(_ e: SizeEstimate, plan: ConversionPlan) -> [[String: Any]] {
        guard e.exceedsSource, !plan.isComposed else { return [] }
        return [["kind": "size", "item": "estimate", "track": NSNull(), "file": plan.source.path,
                 "message": "the output is estimated at \(ByteCount.rounded(e.bytes)), larger than the source (\(ByteCount.rounded(e.sourceBytes)))"]]
    }
}

/// An output's limits as `plan` shows them.
enum LimitText {
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let limit = p.fileLengthLimit else { return [] }
        return ["", "limit    file-length-limit \(limit.description): the run ends the file at the last whole point that fits"]
    }

    static func object(_ p: ConversionPlan) -> [String: Any] {
        ["fileLength": p.fileLengthLimit?.bytes ?? NSNull()]
    }
}
