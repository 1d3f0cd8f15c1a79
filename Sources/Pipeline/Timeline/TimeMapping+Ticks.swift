import Recipe

/// Target times as a stream's ticks: what lanes stamp frames, samples and packets with.
extension TimeSegment {
    /// Source time `t` on the target timeline, in ticks of `timeBase`.
    func targetTicks(ofSource t: MediaTime, in timeBase: TimeBase, rounding: MediaTime.Rounding = .nearest) throws(MediaError) -> Int64 {
        try targetTime(ofSource: t).ts(in: timeBase, rounding: rounding)
    }

    /// The source length from `a` to `b` on the target timeline, in ticks of `timeBase`.
    func targetLengthTicks(from a: MediaTime, to b: MediaTime, in timeBase: TimeBase) throws(MediaError) -> Int64 {
        try targetLength(from: a, to: b).ts(in: timeBase)
    }

    /// A source length `d` on the target timeline, in ticks of `timeBase`.
    func targetLengthTicks(of d: MediaTime, in timeBase: TimeBase) throws(MediaError) -> Int64 {
        try targetLength(of: d).ts(in: timeBase)
    }

    /// What a copied track's stamps are moved by, in ticks of `timeBase` (rounded down): the
    /// source start less the segment's place on the timeline — the same instant for every
    /// track, so tracks keep their offsets; 0 on the timeline for a plain conversion.
    func sourceOrigin(in timeBase: TimeBase) throws(MediaError) -> Int64 {
        try (sourceRange.start - targetStart).ts(in: timeBase, rounding: .down)
    }

    /// Source time `t` on the target timeline as a sample index at `rate` (nearest).
    func targetSample(ofSource t: MediaTime, rate: Int32) throws(MediaError) -> Int64 {
        do throws(MediaTimeOverflow) {
            return try checkedTargetTime(ofSource: t).converted(to: rate).value
        } catch { throw MediaError(error) }
    }
}
