import Recipe

/// Which pictures of a video lane start a closed GOP (`KeyframeGrid`): the first picture at or
/// after each instant, so that every output with the grid and frame rate has its keyframes on the
/// same source frames. A picture that reaches past several instants (a rate slower than the grid)
/// starts one GOP for them all.
struct GridKeyframes {
    let grid: KeyframeGrid
    /// The pictures' time base (the encoder's).
    let timeBase: TimeBase
    /// The next instant no picture has started a GOP for.
    private var next: Int64 = 0

    init(_ grid: KeyframeGrid, timeBase: TimeBase) {
        self.grid = grid
        self.timeBase = timeBase
    }

    /// Whether the picture at `pts` (in `timeBase`, pictures in presentation order) starts a GOP.
    mutating func startsGOP(at pts: Int64) -> Bool {
        guard pts >= tick(next) else { return false }
        repeat { next += 1 } while tick(next) <= pts
        return true
    }

    /// Instant `k` in ticks, rounded up: a picture at or after it has a pts at least this.
    private func tick(_ k: Int64) -> Int64 {
        let t = grid.instant(k)
        // Past the end of time (saturated): no picture reaches it.
        guard t.isNumeric else { return .max }
        // value/timescale seconds in ticks of num/den.
        return WideArithmetic.mulDiv(t.value, Int64(timeBase.den), Int64(t.timescale) * Int64(timeBase.num), rounding: .up)
    }
}
