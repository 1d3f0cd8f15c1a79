import Recipe

/// A cross-fade of the video track: into segment `segment` (1-based), over `[start, end)`.
public struct CrossFade: Sendable, Hashable {
    /// As the recipe counts: the video list's segment number.
    public let segment: Int
    /// As `plan` counts: the incoming segment's place on the timeline (1-based).
    public let timelineSegment: Int
    public let start: MediaTime
    public let end: MediaTime
    /// The incoming segment is on the upper roll (else the outgoing one is).
    let intoUpperRoll: Bool

    /// The sound of a video track that cross-fades: its two rolls' volumes, each 1 while its
    /// segment plays alone and an equal-power ramp across each cross-fade (out for the outgoing
    /// segment, in for the incoming one), so the power stays level through it.
    static func soundVolumes(_ fades: [CrossFade]) -> (lower: Keyframes, upper: Keyframes) {
        var lower: [Ramp] = [], upper: [Ramp] = []
        for f in fades {
            let incoming = Ramp(start: f.start, end: f.end, from: 0, to: 1, curve: .equalPower)
            let outgoing = Ramp(start: f.start, end: f.end, from: 1, to: 0, curve: .equalPower)
            lower.append(f.intoUpperRoll ? outgoing : incoming)
            upper.append(f.intoUpperRoll ? incoming : outgoing)
        }
        return (Keyframes(ramps: lower), Keyframes(ramps: upper))
    }
}

/// A composition's pictures as layers, bottom to top: the video track, then (when it
/// cross-fades) its second roll, then each of `layers:`.
///
/// A cross-fade shows two segments at once, so the video track's segments alternate between two
/// rolls (as film editors' A/B rolls): a cut keeps the roll, a cross-fade moves to the other one.
/// Around a cross-fade's cut, over its duration, the outgoing segment plays on past its end and
/// the incoming one starts before its start — from their files when the files have pictures
/// there (handles), else holding their edge picture — and the upper roll's opacity ramps
/// (0 → 1 when the incoming segment is on it, 1 → 0 when the outgoing one is), so the blend is
/// `outgoing·(1 − x) + incoming·x` with x linear over the cross-fade. The timeline's length
/// and every other segment's place are unchanged.
enum VideoLayerPlan {
    struct Result {
        var layers: [VideoLayer]
        /// Per timeline segment, its layer (0 for sound segments).
        var segmentLayers: [Int]
        /// Timeline segments lengthened for a cross-fade, as the video lanes read them.
        var lengthened: [Int: TimeSegment]
        /// The cross-fades, in order.
        var crossFades: [CrossFade]
    }

    /// `render`: the render frame the recipe's rectangles are in; `output`: the video lane's
    /// picture size they are drawn at.
    static func plan(_ request: VideoCompositionRequest, composed: CompositionTimeline.Result, requests: [SegmentRequest],
                     render: (width: Int, height: Int), output: (width: Int, height: Int), file: String) throws(MediaError) -> Result {
        let segments = composed.timeline.segments
        // The video track's requests in order, each with its timeline segments (pieces) in time order.
        let main = requests.indices.filter { requests[$0].list == .video && requests[$0].layer == 0 }
        var pieces: [Int: [Int]] = [:]
        for k in segments.indices where composed.lists[k] == .video && composed.layers[k] == 0 {
            pieces[composed.requests[k], default: []].append(k)
        }
        var roll: [Int: Int] = [:]
        var current = 0
        var lengthened: [Int: TimeSegment] = [:]
        var crossFades: [CrossFade] = []
        var spans: [(number: Int, start: MediaTime, end: MediaTime, kind: Transition.Kind)] = []
        for (p, i) in main.enumerated() {
            let number = p + 1
            if let t = requests[i].transition {
                if let first = pieces[i]?.first {
                    let cut = segments[first].targetStart, half = t.duration.half
                    spans.append((number, cut - half, cut + half, t.kind))
                }
                if t.kind == .crossFade, p > 0 {
                    let before = current
                    current ^= 1
                    guard let kIn = pieces[i]?.first, let kOut = pieces[main[p - 1]]?.last else { continue }
                    let span = try crossFade(t, number: number, into: kIn, from: kOut, segments: segments, lengthened: &lengthened, file: file)
                    crossFades.append(CrossFade(segment: number, timelineSegment: kIn + 1, start: span.start, end: span.end, intoUpperRoll: before == 0))
                }
            }
            roll[i] = current
        }
        // Transitions centred on cuts never overlap: which one a picture shows would be a guess.
        let sorted = spans.sorted { $0.start < $1.start }
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.start < a.end {
            throw MediaError(.invalidSettings, "the \(a.kind.rawValue) into segment \(a.number) (\(a.start.secondsDescription) to \(a.end.secondsDescription)) overlaps the \(b.kind.rawValue) into segment \(b.number) (\(b.start.secondsDescription) to \(b.end.secondsDescription)) on the timeline: shorten one",
                             file: file, segment: SegmentField(max(a.number, b.number), .transition))
        }
        let rolls = crossFades.isEmpty ? 1 : 2
        let styles = request.styles
        let base = styles.first ?? VideoLayerStyle()
        var layers = [layer("video", base, opacity: base.opacity, render: render, output: output)]
        if rolls == 2 {
            layers[0].roll = 0
            // The video track's own opacity, a constant, scales its cross-fades; ramps of its own
            // and cross-fades would multiply two timelines of ramps.
            if let own = base.opacity, !own.isConstant, let first = main.first(where: { requests[$0].transition?.kind == .crossFade }) {
                let n = (main.firstIndex(of: first) ?? 0) + 1
                throw MediaError(.invalidSettings, "the video track's 'opacity' ramps and its cross-fades cannot both be drawn: give the video track a constant opacity, or put the segments in a layer",
                                 file: file, segment: SegmentField(n, .transition))
            }
            // The upper roll's opacity: up as an incoming segment comes in on it, down as an outgoing one leaves it.
            let c = base.opacity?.constant ?? 1
            let ramps = crossFades.map { f in Ramp(start: f.start, end: f.end, from: f.intoUpperRoll ? 0 : c, to: f.intoUpperRoll ? c : 0) }
            var upper = layer("video (cross-fades)", base, opacity: Keyframes(ramps: ramps), render: render, output: output)
            upper.roll = 1
            layers.append(upper)
        }
        for j in styles.indices.dropFirst() {
            layers.append(layer("layer \(j)", styles[j], opacity: styles[j].opacity, render: render, output: output))
        }
        let segmentLayers = segments.indices.map { k -> Int in
            guard composed.lists[k] == .video else { return 0 }
            let j = composed.layers[k]
            return j == 0 ? roll[composed.requests[k]] ?? 0 : j - 1 + rolls
        }
        return Result(layers: layers, segmentLayers: segmentLayers, lengthened: lengthened, crossFades: crossFades)
    }

    /// The cross-fade `t` into segment `number`: the outgoing timeline segment `kOut` played on
    /// for half its duration past the cut, the incoming `kIn` started half its duration before;
    /// returns the span of the timeline the two overlap.
    private static func crossFade(_ t: Transition, number: Int, into kIn: Int, from kOut: Int, segments: [TimeSegment],
                                  lengthened: inout [Int: TimeSegment], file: String) throws(MediaError) -> (start: MediaTime, end: MediaTime) {
        let incoming = lengthened[kIn] ?? segments[kIn], outgoing = lengthened[kOut] ?? segments[kOut]
        let cut = segments[kIn].targetStart, half = t.duration.half
        let outEnd = try segments[kOut].targetEnd()
        func refuse(_ why: String) -> MediaError {
            MediaError(.invalidSettings, "the cross-fade into segment \(number): \(why)", file: file, segment: SegmentField(number, .transition))
        }
        guard outEnd == cut else {
            throw refuse("segment \(number - 1) ends at \(outEnd.secondsDescription) and segment \(number) starts at \(cut.secondsDescription); a cross-fade joins two segments that meet (leave out 'at', or use 'kind: dip')")
        }
        for (k, n) in [(kOut, number - 1), (kIn, number)] where segments[k].targetDuration < half {
            throw refuse("half its duration (\(half.secondsDescription)) is longer than segment \(n) (\(segments[k].targetDuration.secondsDescription)); a cross-fade is centred on the cut")
        }
        let outRange = outgoing.sourceRange, inRange = incoming.sourceRange
        lengthened[kOut] = TimeSegment(source: outgoing.source, track: outgoing.track,
                                       sourceRange: TimeRange(start: outRange.start, end: outRange.end + outgoing.scale.inverse.apply(half)),
                                       targetStart: outgoing.targetStart, scale: outgoing.scale)
        let lead = incoming.scale.inverse.apply(half)
        lengthened[kIn] = TimeSegment(source: incoming.source, track: incoming.track,
                                      sourceRange: TimeRange(start: inRange.start - lead, end: inRange.end),
                                      targetStart: incoming.targetStart - half, scale: incoming.scale)
        return (cut - half, cut + half)
    }

    /// A layer drawn with `style`: its rectangle from render pixels to output pixels.
    private static func layer(_ name: String, _ style: VideoLayerStyle, opacity: Keyframes?,
                              render: (width: Int, height: Int), output: (width: Int, height: Int)) -> VideoLayer {
        var placement = LayerPlacement(rect: nil, fit: style.fit ?? .fit)
        if let r = style.rect {
            let px = r.pixels(width: render.width, height: render.height)
            func scaled(_ v: Int, _ out: Int, _ whole: Int) -> Int32 {
                Int32(clamping: Int((Double(v) * Double(out) / Double(max(whole, 1))).rounded(.toNearestOrAwayFromZero)))
            }
            // By its edges: one at the render frame's edge stays at the output's, two that meet still meet.
            let x = scaled(px.x, output.width, render.width), y = scaled(px.y, output.height, render.height)
            placement.rect = PixelRect(x: x, y: y,
                                       width: max(1, scaled(px.x + px.width, output.width, render.width) - x),
                                       height: max(1, scaled(px.y + px.height, output.height, render.height) - y))
        }
        return VideoLayer(name: name, placement: placement, crop: style.crop, opacity: opacity)
    }
}
