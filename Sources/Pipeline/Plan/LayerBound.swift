import Recipe

/// How many of a composition's `layers:` may show at once. A layer is opened when its first
/// picture is due and let go when it ends (`VideoCompositor.Layer.firstSlot`), but while it
/// shows it holds a reader, a decoder (its threads and reference pictures) and its pictures:
/// 4–5 MB at 640x360, many times that at 1080p. A composition's memory therefore follows the
/// most layers on screen at one instant, and `plan` refuses more than the limit there, at the
/// segment that goes over it (exit 65), rather than letting the run run out of memory.
public enum LayerBound {
    /// The limit when the recipe sets no `layer-limit:` (docs/recipes.md says the same).
    public static let defaultLimit = 16

    /// Throws `.invalidSettings` at the first instant more than `limit` layers show, naming the
    /// segment that starts there (its `at`, else the segment).
    static func check(_ composed: CompositionTimeline.Result, requests: [SegmentRequest], limit: Int) throws(MediaError) {
        let segments = composed.timeline.segments
        // (time, starts, timeline segment): at one instant an ending layer goes before a starting one.
        var events: [(time: MediaTime, starts: Bool, segment: Int)] = []
        for k in segments.indices where composed.lists[k] == .video && composed.layers[k] > 0 {
            let range = segments[k].targetRange
            guard range.end > range.start else { continue }
            events.append((range.start, true, k))
            events.append((range.end, false, k))
        }
        events.sort { $0.time != $1.time ? $0.time < $1.time : !$0.starts && $1.starts }
        // A layer's pieces (a phone's slow motion) follow one another: count each layer once.
        var showing: [Int: Int] = [:]
        for e in events {
            let layer = composed.layers[e.segment]
            guard e.starts else {
                showing[layer, default: 1] -= 1
                if showing[layer] == 0 { showing[layer] = nil }
                continue
            }
            showing[layer, default: 0] += 1
            guard showing.count > limit else { continue }
            let i = composed.requests[e.segment], r = requests[i]
            let n = requests[...i].filter { $0.list == r.list && $0.layer == r.layer }.count
            throw MediaError(.invalidSettings, "\(showing.count) layers show at once at \(e.time.secondsDescription) (\(named(showing.keys.sorted()))), "
                             + "more than the limit of \(limit): each layer that shows holds its own decoder and pictures; "
                             + "show fewer at once, or raise 'layer-limit' under 'composition:' (at most \(RecipeParser.layerLimits.upperBound))",
                             segment: SegmentField(n, .at, list: .video, layer: layer))
        }
    }

    /// `layers 1–3, 5`: runs of consecutive layers as ranges.
    static func named(_ layers: [Int]) -> String {
        var runs: [String] = []
        var k = 0
        while k < layers.count {
            var end = k
            while end + 1 < layers.count && layers[end + 1] == layers[end] + 1 { end += 1 }
            runs.append(end == k ? "\(layers[k])" : "\(layers[k])–\(layers[end])")
            k = end + 1
        }
        return (layers.count == 1 ? "layer " : "layers ") + runs.joined(separator: ", ")
    }
}
