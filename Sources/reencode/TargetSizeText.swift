import Foundation
import Pipeline
import Recipe

/// How a target-sized output's video bitrate was derived, as `plan` shows it (docs/recipes.md,
/// "Target size").
enum TargetSizeText {
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let t = p.targetSize else { return [] }
        var lines = ["", "target   \(ByteCount.describe(t.target)), the whole file (±3 %)",
                     "  video  \(t.formula)"]
        for o in t.others {
            lines.append("  track \(o.output)  \(padded("\(o.bytes) bytes", 16)) \(o.basis.rawValue): \(o.detail)")
        }
        lines.append("  container \(t.overhead) bytes (header, index, sample framing)")
        for v in t.video {
            lines.append("  track \(v.output)  \(v.bitrate) b/s, \(passes(p, v.output))")
        }
        return lines
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard let t = p.targetSize else { return NSNull() }
        return ["bytes": t.target, "seconds": t.seconds, "otherBytes": t.othersBytes, "overhead": t.overhead,
                "videoBitrate": t.videoBitrate, "floor": t.floor, "formula": t.formula,
                "others": t.others.map { ["output": $0.output, "bytes": $0.bytes, "basis": $0.basis.rawValue, "detail": $0.detail] as [String: Any] },
                "video": t.video.map { ["output": $0.output, "bitrate": $0.bitrate, "passes": p.lanes[$0.output - 1].passes] as [String: Any] }] as [String: Any]
    }

    private static func passes(_ p: ConversionPlan, _ output: Int) -> String {
        p.lanes[output - 1].passes == 2 ? "2 passes (a statistics pass, then the encode)" : "1 pass ('passes: 1')"
    }
}
