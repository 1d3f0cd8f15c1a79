import Recipe

/// Where the output's pictures fade towards a colour and its sound towards silence: the
/// composition's `fade-in` and `fade-out` (black), and each `dip` transition (its colour, half
/// before the cut and half after). Ramps of the timeline, in order, never overlapping.
public struct PictureFade: Sendable, Hashable {
    /// The amount of the picture shown (1: all of it, 0: only the colour) along the ramp.
    public let ramp: Ramp
    public let color: RecipeColor
    /// The segment of the video list whose transition made it (1-based); nil: the output's fades.
    public let segment: Int?
    /// That segment's place on the timeline (1-based), as `plan` numbers segments.
    public var timelineSegment: Int?

    /// What `plan` calls it: `in`, `out`, or `dip`.
    public var name: String { segment != nil ? "dip" : ramp.from < ramp.to ? "in" : "out" }

    /// The fades of a plan: the output's `in`/`out` over `[0, end)`, and a dip of `duration`
    /// centred on each cut that asks for one (`cuts`: video-list segment number, cut time,
    /// transition); cut to the timeline. Overlapping fades are refused: which of them wins would
    /// be a guess.
    static func plan(fadeIn: MediaTime?, fadeOut: MediaTime?, end: MediaTime,
                     cuts: [(segment: Int, at: MediaTime, transition: Transition)], file: String) throws(MediaError) -> [PictureFade] {
        guard end.isNumeric, end > .zero else { return [] }
        var fades: [PictureFade] = []
        for r in AudioMix.fadeRamps(in: fadeIn, out: fadeOut, start: .zero, end: end)?.ramps ?? [] {
            fades.append(PictureFade(ramp: r, color: .black, segment: nil))
        }
        for cut in cuts where cut.transition.kind == .dip {
            let half = cut.transition.duration.half
            let a = MediaTime.max(.zero, cut.at - half), b = MediaTime.min(end, cut.at + half)
            if a < cut.at { fades.append(PictureFade(ramp: Ramp(start: a, end: cut.at, from: 1, to: 0), color: cut.transition.color, segment: cut.segment)) }
            if cut.at < b { fades.append(PictureFade(ramp: Ramp(start: cut.at, end: b, from: 0, to: 1), color: cut.transition.color, segment: cut.segment)) }
        }
        fades.sort { $0.ramp.start < $1.ramp.start }
        for (x, y) in zip(fades, fades.dropFirst()) where y.ramp.start < x.ramp.end {
            let later = [x, y].compactMap(\.segment).max()
            func describe(_ f: PictureFade) -> String {
                (f.segment.map { "the dip into segment \($0)" } ?? "the fade-\(f.name)") + " (\(f.ramp.start.secondsDescription) to \(f.ramp.end.secondsDescription))"
            }
            throw MediaError(.invalidSettings, "\(describe(x)) overlaps \(describe(y)) on the timeline: shorten one", file: file,
                             segment: later.map { SegmentField($0, .transition) })
        }
        return fades
    }
}

extension Array where Element == PictureFade {
    /// The amount shown and the colour at `t` seconds (1 outside every fade).
    func amount(atSeconds t: Double) -> (amount: Double, color: RecipeColor) {
        for f in self where t >= f.ramp.start.seconds && t < f.ramp.end.seconds {
            let x = (t - f.ramp.start.seconds) / (f.ramp.end.seconds - f.ramp.start.seconds)
            return (f.ramp.curve.value(from: f.ramp.from, to: f.ramp.to, at: x), f.color)
        }
        return (1, .black)
    }
}
