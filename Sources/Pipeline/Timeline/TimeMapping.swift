import Recipe

/// Where source material goes on the output's timeline: segments, each a range of one source
/// track put at a target start and played at a rational scale (AVMutableComposition's
/// insertTimeRange and scaleTimeRange). A plain conversion is one segment: the (snapped) time
/// range at target 0, scale 1.
///
/// Every lane's time arithmetic is done here, exactly: times are rationals (`MediaTime`), a
/// scale is a fraction, and counts (samples, ticks) are derived from absolute positions on the
/// target timeline, never by adding up rounded pieces, so a timeline of many segments ends where
/// the rational sum of its segments says.
struct TimeMapping: Sendable, Hashable {
    let segments: [TimeSegment]

    init(_ segments: [TimeSegment]) { self.segments = segments }

    /// Today's trim: the range of source 0, every track the plan takes, at target 0, scale 1.
    static func trim(_ range: TimeRange, source: Int = 0) -> TimeMapping {
        TimeMapping([TimeSegment(source: source, track: nil, sourceRange: range, targetStart: .zero, scale: .identity)])
    }

    /// Pieces put end to end from target 0, each starting exactly where the one before ends.
    static func sequence(_ pieces: [(source: Int, track: Int?, range: TimeRange, scale: TimeScale)]) throws(MediaError) -> TimeMapping {
        var segments: [TimeSegment] = []
        var at = MediaTime.zero
        for p in pieces {
            let s = TimeSegment(source: p.source, track: p.track, sourceRange: p.range, targetStart: at, scale: p.scale)
            segments.append(s)
            at = try s.targetEnd()
        }
        return TimeMapping(segments)
    }

    /// The same segments, taking `track` of their source (a plan's timeline names no track: each
    /// lane takes its own).
    func forTrack(_ track: Int) -> TimeMapping {
        TimeMapping(segments.map { $0.track == nil ? $0.withTrack(track) : $0 })
    }

    /// The first segment whose source range holds `t` of `source`.
    func segment(containingSource t: MediaTime, source: Int = 0) -> Int? {
        segments.firstIndex { $0.source == source && $0.sourceRange.contains(t) }
    }

    /// The segment whose target range holds `t`, and the source time shown there.
    func sourceTime(ofTarget t: MediaTime) -> (segment: Int, time: MediaTime)? {
        for (i, s) in segments.enumerated() where s.targetRange.contains(t) {
            return (i, s.sourceTime(ofTarget: t))
        }
        return nil
    }

    /// Where `t` of segment `i`'s source is shown.
    func targetTime(ofSource t: MediaTime, segment i: Int) -> MediaTime {
        segments[i].targetTime(ofSource: t)
    }

    /// The end of the last segment on the target timeline (+infinity: a source read to its end).
    var targetDuration: MediaTime {
        segments.map(\.targetRange.end).max() ?? .zero
    }

    /// The number of samples at `rate` in `range` of the target timeline: sample n is at n/rate,
    /// and a sample belongs to the range its time lies in. Counted from absolute positions, so
    /// the counts of adjacent ranges add up to the count of their union.
    static func sampleCount(in range: TimeRange, rate: Int32) -> Int64? {
        guard let a = samplePosition(atOrAfter: range.start, rate: rate),
              let b = samplePosition(atOrAfter: range.end, rate: rate) else { return nil }
        return b - a
    }

    /// The output slots of a constant-rate timeline ending at `end`: slot n (at n·D) exists when
    /// its midpoint is before the end, so the last frame is never a sliver — the same rule a
    /// single range's grid keeps. nil: no numeric end.
    static func slotCount(to end: MediaTime, frameDuration d: MediaTime) -> Int64? {
        guard end.isNumeric, d.isNumeric, d > .zero else { return nil }
        return max(0, MediaTime.count(of: d, from: d.half, to: end, rounding: .up) ?? 0)
    }

    /// The slots of segment `i` on a constant-rate timeline: those whose time lies in its target
    /// range, below `slotCount` of the timeline's end.
    func slots(ofSegment i: Int, frameDuration d: MediaTime) -> Int64? {
        let range = segments[i].targetRange
        guard let total = Self.slotCount(to: targetDuration, frameDuration: d),
              let a = MediaTime.count(of: d, from: .zero, to: range.start, rounding: .up),
              let b = MediaTime.count(of: d, from: .zero, to: range.end, rounding: .up) else { return nil }
        return max(0, min(b, total) - min(a, total))
    }

    /// The samples segment `i` contributes at `rate`.
    func sampleCount(ofSegment i: Int, rate: Int32) -> Int64? {
        Self.sampleCount(in: segments[i].targetRange, rate: rate)
    }

    /// The index of the first sample at `rate` at or after `t` on the target timeline (sample n
    /// is at n/rate): ⌈t·rate⌉, exact. nil when `t` is not numeric or the index does not fit.
    static func samplePosition(atOrAfter t: MediaTime, rate: Int32) -> Int64? {
        guard rate > 0 else { return nil }
        return MediaTime.count(of: MediaTime(value: 1, timescale: rate), from: .zero, to: t, rounding: .up)
    }
}

/// A target duration per source duration, as a fraction: 8 plays a range 8 times slower (every
/// frame of 240 fps footage at 30 fps), 1/2 twice as fast.
struct TimeScale: Sendable, Hashable, CustomStringConvertible {
    /// Reduced, both positive.
    let num: Int64
    let den: Int64

    static let identity = TimeScale(uncheckedNum: 1, den: 1)

    /// nil unless both terms are positive.
    init?(_ num: Int64, _ den: Int64) {
        guard num > 0, den > 0 else { return nil }
        let g = Self.gcd(num, den)
        self.init(uncheckedNum: num / g, den: den / g)
    }

    private init(uncheckedNum num: Int64, den: Int64) { self.num = num; self.den = den }

    var isIdentity: Bool { num == den }

    /// gcd of `den` (positive) and any value: positive, at most `den`, so it fits.
    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return Int64(clamping: x)
    }
    var inverse: TimeScale { TimeScale(uncheckedNum: den, den: num) }

    var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }

    /// `t · num/den`, exact where the result's timescale fits (else to the nearest tick of `t`'s
    /// own timescale). Non-numeric times stay what they are; a result beyond 64 bits saturates
    /// to ±infinity, as MediaTime's operators do.
    func apply(_ t: MediaTime) -> MediaTime {
        do { return try checkedApply(t) } catch { return error.saturated }
    }

    /// As `apply`, reporting a result beyond 64 bits.
    func checkedApply(_ t: MediaTime) throws(MediaTimeOverflow) -> MediaTime {
        guard t.isNumeric, !isIdentity else { return t }
        let ts = Int64(t.timescale)
        // value·num / (ts·den): exact in the timescale ts·den/g when that fits in Int32.
        let g = Self.gcd(t.value == 0 ? den : t.value, den)
        let exactTimescale = ts * (den / g)
        if exactTimescale <= Int64(Int32.max),
           let v = WideArithmetic.checkedMulDiv(t.value / g, num, 1, rounding: .nearest) {
            return MediaTime(value: v, timescale: Int32(exactTimescale))
        }
        guard let v = WideArithmetic.checkedMulDiv(t.value, num, den, rounding: .nearest) else {
            throw MediaTimeOverflow(saturated: t.value < 0 ? .negativeInfinity : .positiveInfinity, expression: "\(t) × \(self)")
        }
        return MediaTime(value: v, timescale: t.timescale)
    }
}

/// One range of one source track on the target timeline.
struct TimeSegment: Sendable, Hashable {
    /// Which of the plan's sources.
    let source: Int
    /// The source's track index; nil: every track the plan takes (a plain conversion).
    let track: Int?
    /// On the source file's own timeline (absolute, as its timestamps are).
    let sourceRange: TimeRange
    let targetStart: MediaTime
    let scale: TimeScale
    /// A piece of a `slow-motion: from-source` segment: its video shows only the frames the
    /// phone's flattening keeps, each at the flattening's time (`SlowMotionPicker`).
    var slowMotion: SlowMotionPiece? = nil

    func withTrack(_ t: Int) -> TimeSegment {
        TimeSegment(source: source, track: t, sourceRange: sourceRange, targetStart: targetStart, scale: scale, slowMotion: slowMotion)
    }

    /// The source range's length on the target timeline (+infinity for a source read to its end).
    var targetDuration: MediaTime { scale.apply(sourceRange.duration) }

    var targetRange: TimeRange { TimeRange(start: targetStart, duration: targetDuration) }

    /// The target end, checked (a sequence starts the next segment there).
    func targetEnd() throws(MediaError) -> MediaTime {
        do throws(MediaTimeOverflow) {
            return try targetStart.adding(try scale.checkedApply(sourceRange.duration))
        } catch { throw MediaError(error) }
    }

    /// Where source time `t` is shown: targetStart + (t − source start)·scale. Saturates as
    /// MediaTime's operators do (a hostile file's stamps near the 64-bit ends become ±infinity,
    /// which converting to ticks then reports).
    func targetTime(ofSource t: MediaTime) -> MediaTime {
        guard t.isNumeric else { return t }
        return targetStart + scale.apply(t - sourceRange.start)
    }

    /// As `targetTime(ofSource:)`, reporting a result beyond 64 bits.
    func checkedTargetTime(ofSource t: MediaTime) throws(MediaTimeOverflow) -> MediaTime {
        guard t.isNumeric else { return t }
        return try targetStart.adding(try scale.checkedApply(try t.subtracting(sourceRange.start)))
    }

    /// The source time shown at target time `t` (the inverse of `targetTime(ofSource:)`).
    func sourceTime(ofTarget t: MediaTime) -> MediaTime {
        guard t.isNumeric else { return t }
        return sourceRange.start + scale.inverse.apply(t - targetStart)
    }

    /// How much of the source range is left from `t` on (source time; `end − t`).
    func sourceRemaining(from t: MediaTime) -> MediaTime { sourceRange.end - t }

    /// The source length from `a` to `b` shown on the target timeline ((b − a)·scale).
    func targetLength(from a: MediaTime, to b: MediaTime) -> MediaTime { scale.apply(b - a) }

    /// A source length `d` on the target timeline (d·scale).
    func targetLength(of d: MediaTime) -> MediaTime { scale.apply(d) }

    /// Which samples of a decoded run (`count` samples at `rate` from source time `start`) lie in
    /// the source range: sample i is at start + i/rate, kept when source start ≤ t < source end.
    func sourceSampleWindow(runStart start: MediaTime, count: Int64, rate: Int64) -> Range<Int64> {
        let from = max(0, Self.samples(from: start, to: sourceRange.start, rate: rate))
        let to = sourceRange.end.isNumeric ? min(count, Self.samples(from: start, to: sourceRange.end, rate: rate)) : count
        return from < to ? from..<to : from..<from
    }

    /// Whole samples at `rate` from `a` to `b`, rounded up; a count beyond 64 bits is clamped (it
    /// only bounds a frame's few thousand samples).
    private static func samples(from a: MediaTime, to b: MediaTime, rate: Int64) -> Int64 {
        guard b.isNumeric else { return b.isPositiveInfinity ? .max : 0 }
        guard rate > 0, rate <= Int64(Int32.max),
              let n = MediaTime.count(of: MediaTime(value: 1, timescale: Int32(rate)), from: a, to: b, rounding: .up) else {
            return b > a ? .max : .min
        }
        return n
    }

    /// The output slots of a constant-rate conversion of this segment, on the source timeline,
    /// and the output slot number of its slot 0. Output slot n is at target time n·D; the
    /// segment's first is the first at or after its target start, and its slot k shows source
    /// time (that slot's source time) + k·D/scale.
    func sourceGrid(frameDuration: MediaTime) -> (grid: FrameGrid, firstSlot: Int64) {
        let first = MediaTime.count(of: frameDuration, from: .zero, to: targetStart, rounding: .up) ?? 0
        let start = first == 0 && targetStart == .zero ? sourceRange.start : sourceTime(ofTarget: frameDuration * first)
        return (FrameGrid(start: start, end: sourceRange.end, frameDuration: scale.inverse.apply(frameDuration)), first)
    }
}
