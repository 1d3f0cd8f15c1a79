import Recipe

/// Which source sample `WSOLAKernel` plays at each output sample: `o × source / target`, bent
/// around each onset so that the onset sounds on its own sample and only once.
///
/// Around an onset at source sample t (due at output ts = round(t × scale)) the source plays at
/// its own speed for `before` output samples before ts and `after` after it, so every fragment
/// whose window holds t puts it at ts. A slow-down gets there by holding the source still before
/// that stretch (at t − before, until the plain mapping reaches it) and after it (at t + after,
/// until the mapping catches up): no fragment before ts reaches t, none after it goes back to t.
/// A speed-up jumps (it skips source anyway). Without that, WSOLA plays an onset in every
/// fragment that holds it, the first ones up to (scale − 1) × window/2 early.
struct OnsetWarp {
    let scale: TimeStretchScale
    /// Output samples played at the source's speed before and after each onset.
    let before: Int64
    let after: Int64
    /// Onsets as (source sample, output sample it is due at), in order.
    private(set) var onsets: [(source: Int64, target: Int64)] = []

    init(scale: TimeStretchScale, before: Int64, after: Int64) {
        self.scale = scale
        self.before = before
        self.after = after
    }

    var slows: Bool { scale.target > scale.source }

    /// How far from its due place an onset bends the mapping, in output samples.
    var reach: Int64 {
        slows ? WideArithmetic.mulDiv(max(before, after), scale.target, scale.source, rounding: .up) : max(before, after)
    }

    /// The plain mapping: the source sample due at output sample `o`.
    func nominal(_ o: Int64) -> Int64 { WideArithmetic.mulDiv(o, scale.source, scale.target, rounding: .nearest) }

    mutating func add(_ t: Int64) {
        onsets.append((t, WideArithmetic.mulDiv(t, scale.target, scale.source, rounding: .nearest)))
    }

    /// Drops the onsets that bend nothing at or after output sample `o`.
    mutating func forget(before o: Int64) {
        let reach = reach
        onsets.removeAll { $0.target + reach < o }
    }

    /// The source sample played at output sample `o`.
    func position(_ o: Int64) -> Int64 {
        var cap = Int64.max, floor = Int64.min
        for (t, ts) in onsets {
            let line = t + (o - ts)
            if slows {
                if o <= ts { cap = min(cap, max(t - before, line)) }
                if o >= ts { floor = max(floor, min(t + after, line)) }
            } else {
                if o >= ts - before, o <= ts { floor = max(floor, line) }
                if o >= ts, o <= ts + after { cap = min(cap, line) }
            }
        }
        // A hold before the next onset wins over one after the last: that one is already placed.
        return min(cap, max(floor, nominal(o)))
    }
}
