import Recipe

/// The output slots of a constant-frame-rate conversion: slot k is at `start + k·frameDuration`
/// and only slots before `end` exist; each shows the source picture nearest to it, ties to the
/// earlier one.
///
/// A slot is filled when its midpoint lies where the source has pictures, `[firstPTS, sourceEnd)`;
/// it shows the source frame nearest to its time, ties to the earlier frame.
struct FrameGrid: Sendable {
    let start: MediaTime
    /// The session end (+infinity: the source's end decides).
    let end: MediaTime
    let frameDuration: MediaTime

    func time(_ k: Int64) -> MediaTime { start + frameDuration * k }

    /// The smallest k ≥ 0 with `time(k) ≥ t`.
    func firstSlot(atOrAfter t: MediaTime) -> Int64 {
        slotIndex(t, rounding: .up)
    }

    /// The smallest k ≥ 0 with `time(k) > t`.
    func firstSlot(after t: MediaTime) -> Int64 {
        guard t.isNumeric else { return t.isNegativeInfinity ? 0 : .max }
        let k = slotIndex(t, rounding: .down)
        return time(k) > t || k == .max ? k : k + 1
    }

    /// Slots are counted exactly (128-bit); a count beyond 64 bits, or a grid without a positive
    /// frame duration, is past every slot: `.max`, which is never in the session.
    private func slotIndex(_ t: MediaTime, rounding: MediaTime.Rounding) -> Int64 {
        if t.isNegativeInfinity { return 0 }
        guard t.isNumeric else { return .max }
        if t <= start && rounding == .up { return 0 }
        guard let k = MediaTime.count(of: frameDuration, from: start, to: t, rounding: rounding) else {
            return t < start ? 0 : .max
        }
        return max(0, k)
    }

    /// True while slot k is before the session end.
    func inSession(_ k: Int64) -> Bool { time(k) < end }
}

/// Streams decoded frames (in presentation order) into constant-rate slots: every slot gets the
/// nearest source frame, so a gap repeats the last frame and nothing drifts.
struct ConstantRateRetimer<Picture> {
    let grid: FrameGrid
    private var held: (picture: Picture, pts: MediaTime)?
    private(set) var nextSlot: Int64 = 0

    /// The first picture fills the slots before it too, from slot 0 (a segment holding its edge
    /// picture where its file has none).
    private let fillsFromStart: Bool

    init(grid: FrameGrid, fillsFromStart: Bool = false) { self.grid = grid; self.fillsFromStart = fillsFromStart }

    /// Slots filled by everything before `picture`; `picture` itself is held until its successor
    /// (or the end) shows how far it reaches. Frames that do not advance in time are dropped.
    mutating func push(_ picture: Picture, pts: MediaTime) -> [(Picture, Int64)] {
        guard let current = held else {
            held = (picture, pts)
            nextSlot = fillsFromStart ? 0 : grid.firstSlot(atOrAfter: pts - grid.frameDuration.half)
            return []
        }
        guard pts > current.pts else { return [] }
        var out: [(Picture, Int64)] = []
        let boundary = current.pts + pts  // slot t belongs to `current` while 2t ≤ current + next
        while grid.inSession(nextSlot), grid.time(nextSlot) * 2 <= boundary {
            out.append((current.picture, nextSlot))
            nextSlot += 1
        }
        held = (picture, pts)
        return out
    }

    /// Fills the slots whose midpoint lies before `sourceEnd` with the last frame.
    mutating func finish(sourceEnd: MediaTime) -> [(Picture, Int64)] {
        guard let current = held else { return [] }
        var out: [(Picture, Int64)] = []
        while grid.inSession(nextSlot), grid.time(nextSlot) + grid.frameDuration.half < sourceEnd {
            out.append((current.picture, nextSlot))
            nextSlot += 1
        }
        held = nil
        return out
    }
}
