import Foundation

/// The order of a master playlist's variants. Apple's players start with the first variant
/// listed (among variants of compatible audio), and the HLS Authoring Specification for Apple
/// Devices advises (item 1.32) that this default be the 2000 kb/s (average bit rate) variant: a
/// start that looks good on a typical connection without stalling on a slow one. So the video
/// variant whose average rate is nearest 2000 kb/s is listed first, the others after it in the
/// recipe's order (a ladder's: smallest rung first).
enum HLSVariantOrder {
    /// The specification's default variant's average bit rate, in bits per second.
    static let defaultAverage = 2_000_000.0

    /// `variants` with the default first. A variant's rate is the video bit rate its encoder was
    /// asked for (`asked[name]`: a ladder rung's, a `bitrate`), else the average measured on its
    /// segments (constant quality asks none). Nearest by ratio (1000 and 4000 kb/s are as near);
    /// of two as near, the lower, the safer start.
    static func ordered(_ variants: [RenditionSegments], asked: [String: Int]) -> [RenditionSegments] {
        guard variants.count > 1 else { return variants }
        func rate(_ r: RenditionSegments) -> Double { asked[r.name].map(Double.init) ?? r.averageBitrate }
        func distance(_ r: RenditionSegments) -> Double { abs(log(max(rate(r), 1) / defaultAverage)) }
        guard let first = variants.indices.min(by: { a, b in
            let (da, db) = (distance(variants[a]), distance(variants[b]))
            return da != db ? da < db : rate(variants[a]) < rate(variants[b])
        }) else { return variants }
        var rest = variants
        let chosen = rest.remove(at: first)
        return [chosen] + rest
    }
}
