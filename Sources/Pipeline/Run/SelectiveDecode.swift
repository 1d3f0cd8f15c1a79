import Recipe

/// Decides, in decode order, which packets the decoder never needs to see: a droppable picture
/// (nothing references it) that no output slot will show: the output is the same as with every
/// picture decoded. Packets go out in the
/// order they came; a droppable one waits until its presentation neighbours are known.
///
/// Its answers agree with `ConstantRateRetimer`: a picture is skipped only when no filled slot
/// lies in its cell `((prev+pts)/2, (pts+next)/2]`, so the frames shown are the same on and off.
struct SelectiveDecode<Item> {
    struct Entry {
        let item: Item
        let pts: MediaTime
        let droppable: Bool
    }

    let grid: FrameGrid
    /// Packets held while a droppable head waits for its neighbours; past this, decode anyway.
    let maxPending = 64

    private var pending: [Entry] = []
    private var pendingHead = 0
    /// Presentation times seen, sorted; old ones are pruned.
    private var seen: [MediaTime] = []
    private var maxDTS: MediaTime = .negativeInfinity
    private var minPTS: MediaTime = .positiveInfinity
    private(set) var skipped = 0

    init(grid: FrameGrid) { self.grid = grid }

    /// Items to send to the decoder now, in order.
    mutating func push(_ item: Item, pts: MediaTime, dts: MediaTime, droppable: Bool) -> [Item] {
        let usable = pts.isNumeric
        pending.append(Entry(item: item, pts: pts, droppable: droppable && usable))
        if usable {
            insertSeen(pts)
            minPTS = MediaTime.min(minPTS, pts)
        }
        // Without dts (some Matroska files) nothing settles early: the pending window decides.
        if dts.isNumeric { maxDTS = MediaTime.max(maxDTS, dts) }
        return drain(atEnd: false)
    }

    mutating func finish() -> [Item] { drain(atEnd: true) }

    private mutating func drain(atEnd: Bool) -> [Item] {
        var out: [Item] = []
        while pendingHead < pending.count {
            let e = pending[pendingHead]
            if e.droppable {
                let next = successor(of: e.pts)
                // No later packet can present before maxDTS (pts ≥ dts): once maxDTS reaches the
                // next presentation time, this picture's neighbours are final.
                let settled = atEnd || (next != nil && maxDTS >= next!)
                if !settled && pending.count - pendingHead < maxPending { break }
                if settled && !isShown(e.pts, prev: predecessor(of: e.pts), next: next) {
                    skipped += 1
                    pendingHead += 1
                    continue
                }
            }
            out.append(e.item)
            pendingHead += 1
        }
        if pendingHead > 256 {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
        pruneSeen()
        return out
    }

    /// Whether a filled slot lies in the picture's cell. Slots are counted generously at the end
    /// (the source's end is not known yet): showing too much only costs a decode.
    private func isShown(_ pts: MediaTime, prev: MediaTime?, next: MediaTime?) -> Bool {
        let half = grid.frameDuration.half
        var k = grid.firstSlot(atOrAfter: MediaTime.max(grid.start, minPTS - half))
        if let prev { k = max(k, grid.firstSlot(after: (prev + pts).half)) }
        guard grid.inSession(k) else { return false }
        if let next { return grid.time(k) <= (pts + next).half }
        return true
    }

    private mutating func insertSeen(_ t: MediaTime) {
        var lo = 0, hi = seen.count
        while lo < hi { let mid = (lo + hi) / 2; if seen[mid] < t { lo = mid + 1 } else { hi = mid } }
        if lo < seen.count && seen[lo] == t { return }
        seen.insert(t, at: lo)
    }

    private func successor(of t: MediaTime) -> MediaTime? {
        var lo = 0, hi = seen.count
        while lo < hi { let mid = (lo + hi) / 2; if seen[mid] <= t { lo = mid + 1 } else { hi = mid } }
        return lo < seen.count ? seen[lo] : nil
    }

    private func predecessor(of t: MediaTime) -> MediaTime? {
        var lo = 0, hi = seen.count
        while lo < hi { let mid = (lo + hi) / 2; if seen[mid] < t { lo = mid + 1 } else { hi = mid } }
        return lo > 0 ? seen[lo - 1] : nil
    }

    /// Keeps the times still needed: everything from the predecessor of the oldest pending packet.
    private mutating func pruneSeen() {
        guard seen.count > 512 else { return }
        let oldest = pending[pendingHead...].compactMap { $0.pts.isNumeric ? $0.pts : nil }.min() ?? seen[seen.count - 1]
        guard let keepFrom = predecessor(of: oldest) ?? seen.first,
              let idx = seen.firstIndex(of: keepFrom), idx > 0 else { return }
        seen.removeFirst(idx)
    }
}
