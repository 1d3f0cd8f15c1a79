import Foundation
import Pipeline
import Recipe

/// How `plan` says a rung of `ladder: auto`: its size and rate, the specification's rung it
/// comes from, and why it is kept; its frame rate against the specification's frame-rate
/// column; the rungs dropped are the top rung's warnings.
enum LadderText {
    /// `ladder   rung 432p-730k: 576x432 at 730 kb/s (the specification's 768x432 at 730 kb/s), kept: …`
    /// and `ladder   rung 432p-730k: 30 fps (the specification's rung: at most 30 fps; the source: 60 fps)`,
    /// or none for a rendition the recipe lists.
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let rung = p.package?.rung else { return [] }
        var lines = ["ladder   rung \(rung.name): \(rung.summary)" + (rung.added ? " (not in the specification's table)" : " (the specification's \(rung.rung.box) at \(rung.rung.kbps) kb/s)")
            + ", kept: \(rung.reason)"]
        if let rate = frameRates(p) {
            lines.append("ladder   rung \(rung.name): \(rate.output.decimalDescription) fps (the specification's rung: \(column(rung))"
                         + (rate.source.map { "; the source: \($0.decimalDescription) fps" } ?? "") + ")")
        }
        return lines
    }

    /// The specification's frame-rate column for the rung: `at most 30 fps`, `the source's rate`.
    static func column(_ rung: LadderChoice) -> String {
        rung.rung.maxFrameRate.map { "at most \($0) fps" } ?? "the source's rate"
    }

    /// The rate the rung's video is encoded at, and its source's, from the plan's first video lane.
    static func frameRates(_ p: ConversionPlan) -> (output: FrameRate, source: FrameRate?)? {
        for lane in p.lanes {
            guard case .video(let s) = lane.kind else { continue }
            let source = lane.track.format.averageFrameRate
            return (s.frameRate ?? source).map { ($0, source) }
        }
        return nil
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard let member = p.package, let rung = member.rung else { return NSNull() }
        var this = choice(rung)
        this["frameRate"] = frameRates(p).map { $0.output.description as Any } ?? NSNull()
        return ["rung": this, "rungs": member.rungs.map(choice)] as [String: Any]
    }

    static func choice(_ c: LadderChoice) -> [String: Any] {
        ["rendition": c.name, "width": c.width, "height": c.height, "bitrate": c.kbps * 1000, "kept": c.kept, "reason": c.reason,
         "maxFrameRate": c.rung.maxFrameRate.map { $0 as Any } ?? NSNull(),
         "specification": c.added ? NSNull() as Any : ["width": c.rung.width, "height": c.rung.height, "bitrate": c.rung.kbps * 1000] as [String: Any]]
    }
}
