import Foundation
import Pipeline
import Recipe

/// How `plan` says a rung of `ladder: auto`: its size and rate, the specification's rung it
/// comes from, and why it is kept; the rungs dropped are the top rung's warnings.
enum LadderText {
    /// `ladder   rung 432p-730k: 576x432 at 730 kb/s (the specification's 768x432 at 730 kb/s), kept: …`, or
    /// nil for a rendition the recipe lists.
    static func line(_ p: ConversionPlan) -> String? {
        guard let rung = p.package?.rung else { return nil }
        return "ladder   rung \(rung.name): \(rung.summary)" + (rung.added ? " (not in the specification's table)" : " (the specification's \(rung.rung.box) at \(rung.rung.kbps) kb/s)")
            + ", kept: \(rung.reason)"
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard let member = p.package, let rung = member.rung else { return NSNull() }
        return ["rung": choice(rung), "rungs": member.rungs.map(choice)] as [String: Any]
    }

    static func choice(_ c: LadderChoice) -> [String: Any] {
        ["rendition": c.name, "width": c.width, "height": c.height, "bitrate": c.kbps * 1000, "kept": c.kept, "reason": c.reason,
         "specification": c.added ? NSNull() as Any : ["width": c.rung.width, "height": c.rung.height, "bitrate": c.rung.kbps * 1000] as [String: Any]]
    }
}
