import Recipe

/// How long the last decoded picture really lasts. A picture is on screen until the next one
/// starts, and what its sample states of its length need not be that: a muxer may write every
/// sample as 1 tick (a MOV at 1/600 whose pictures are 20 ticks apart), a Matroska DefaultDuration
/// is cut to its time base (41 ms where 24000/1001 fps pictures are 41 or 42 ms apart), a
/// fragmented MP4 may state less than the gap (1920 ticks where pictures are 2400 apart). Trusted
/// at a segment's end, such a length left a hole there, which a join filled with an extra frame.
/// So a picture followed by another lasts until it; only the last one, with nothing after it,
/// needs this guess: its stated length, unless the gap before it is longer.
struct PictureSpacing {
    /// The presentation time of the last picture seen.
    private var last: MediaTime = .invalid
    /// How far apart the last two pictures are (invalid before the second).
    private var gap: MediaTime = .invalid
    /// The last picture's stated length (invalid where it states none).
    private var stated: MediaTime = .invalid

    /// A picture shown from `pts`, its sample stating `stated` (invalid: none). One not after the
    /// last is not shown, and changes nothing.
    mutating func saw(_ pts: MediaTime, stated: MediaTime) {
        guard pts.isNumeric else { return }
        if last.isNumeric {
            guard pts > last else { return }
            gap = pts - last
        }
        last = pts
        self.stated = stated.isNumeric && stated > .zero ? stated : .invalid
    }

    /// The last picture's length: the longer of its stated length and the gap before it; with no
    /// picture before it, the longer of its stated length and the track's `average` frame length
    /// (a lone picture stating 1 tick is not a 1-tick picture). Invalid when nothing is known.
    func lastLength(average: MediaTime?) -> MediaTime {
        let other = gap.isNumeric ? gap : average ?? .invalid
        switch (stated.isNumeric, other.isNumeric && other > .zero) {
        case (true, true): return MediaTime.max(stated, other)
        case (true, false): return stated
        case (false, true): return other
        case (false, false): return .invalid
        }
    }
}
