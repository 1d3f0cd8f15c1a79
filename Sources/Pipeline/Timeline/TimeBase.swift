import Recipe

/// The unit a stream, an encoder or a packet counts its timestamps in: `num/den` seconds
/// (FFmpeg's time base, as a value of ours; FFmpeg/TimeBase+FFmpeg.swift converts).
struct TimeBase: Sendable, Hashable, CustomStringConvertible {
    var num: Int32
    var den: Int32

    init(num: Int32, den: Int32) { self.num = num; self.den = den }

    /// One tick per frame of `rate`.
    init(framesOf rate: FrameRate) { self.init(num: rate.seconds, den: rate.frames) }

    /// FFmpeg's internal unit, microseconds (`AV_TIME_BASE`): seek targets, container durations.
    static let microseconds = TimeBase(num: 1, den: 1_000_000)

    /// One tick as a time.
    var time: MediaTime { MediaTime(value: Int64(num), timescale: den) }

    var description: String { "\(num)/\(den)" }
}

extension MediaTime {
    /// A timestamp in a time base (`AV_NOPTS_VALUE` or an unusable base → invalid). A
    /// timestamp whose `ts · num` does not fit saturates to ±infinity (a hostile file's stamps).
    init(ts: Int64, timeBase tb: TimeBase) {
        if ts == FFmpeg.noPTS || tb.den <= 0 || tb.num <= 0 {
            self = .invalid
        } else {
            self = MediaTime(value: ts, timescale: tb.den) * Int64(tb.num)
        }
    }

    /// This time as a timestamp in a time base, rounded as asked (`.invalid` → NOPTS).
    /// Throws when it does not fit in 64 bits or the base is unusable.
    func ts(in tb: TimeBase, rounding: Rounding = .nearest) throws(MediaError) -> Int64 {
        guard isNumeric else { return FFmpeg.noPTS }
        // value/timescale seconds in units of num/den: value*den / (timescale*num)
        guard tb.num > 0, let ts = WideArithmetic.checkedMulDiv(value, Int64(tb.den), Int64(timescale) * Int64(tb.num), rounding: rounding) else {
            throw MediaError(MediaTimeOverflow(saturated: value < 0 ? .negativeInfinity : .positiveInfinity,
                                               expression: "\(self) in time base \(tb.num)/\(tb.den)"))
        }
        return ts
    }
}
