import Foundation
import Pipeline
import Recipe

/// The containers that could hold a plan's output tracks, as `plan` shows them: the output's own
/// first, then the others that hold them, then those that do not, each with why.
enum ContainerText {
    static func lines(_ p: ConversionPlan) -> [String] {
        let fits = p.containerFits
        let holding = fits.filter(\.holds).map { $0.format == p.format ? "\($0.format.rawValue) (this output's)" : $0.format.rawValue }
        // Those refused for the same reason are named together (`flac, wav (2 tracks: it holds one)`),
        // in the order the first of each is listed.
        var refused: [(names: [String], why: String)] = []
        for f in fits where !f.holds {
            let why = f.refusal ?? ""
            if let i = refused.firstIndex(where: { $0.why == why }) { refused[i].names.append(f.format.rawValue) } else { refused.append(([f.format.rawValue], why)) }
        }
        var line = "containers \(holding.joined(separator: ", ")) hold these tracks"
        if !refused.isEmpty { line += "; not " + refused.map { "\($0.names.joined(separator: ", ")) (\($0.why))" }.joined(separator: ", ") }
        return ["", line]
    }

    static func object(_ p: ConversionPlan) -> [[String: Any]] {
        p.containerFits.map { ["format": $0.format.rawValue, "holds": $0.holds, "why": $0.refusal ?? NSNull()] as [String: Any] }
    }
}
