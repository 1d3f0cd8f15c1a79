import Recipe

/// A cheap scene-cut measure on a video stream's decoded pictures, at the places a chunked
/// encode may split (`ChunkSplits`): only the four pictures around each place asked about are
/// decoded — from the sync sample before them, the pictures nothing refers to left out — so a
/// plan of a two-hour file costs a few seeks and short decodes per chunk, never a decode of the
/// whole. Each picture is reduced to a 32×18 grid of mean luma levels (`Frame.lumaGrid`); the
/// difference at a place is the mean absolute difference of the grids of the picture there and
/// the one before it, in 8-bit levels (0–255). A place is a cut where that difference is at
/// least `threshold` and at least `contrast` times the differences just before and just after
/// it (the pictures' own motion: a fast pan or a strobe differs a lot from picture to picture
/// everywhere, a cut only once). Everything here is integer arithmetic on decoded samples, so
/// every machine finds the same cuts in the same file.
// Not Sendable: made and used by one planner, on one thread.
final class SceneCuts {
    static let columns = 32, rows = 18
    static let cells = columns * rows
    /// The least difference, in 8-bit levels, that can be a cut.
    static let threshold = 12
    /// How many times the neighbouring differences a cut's difference is at least.
    static let contrast = 4
    /// The most packets decoded for one place: a source whose sync samples are further apart
    /// than this before a place is not measured there (its grid place is then chosen as if
    /// no cut were looked for), which bounds a plan's cost on sources with sparse keyframes.
    static let decodeLimit = 300
    /// How far before a place the stream is positioned (at the sync sample at or before).
    static let lookBack = MediaTime(value: 1, timescale: 4)

    /// The change at one place.
    struct Change: Equatable {
        /// The mean absolute luma difference between the picture there and the one before it (0–255).
        let difference: Int
        let isCut: Bool
    }

    private let cursor: StreamCursor
    private var decoder: Decoder?
    /// Places measured, and places not measured (too far from a sync sample, or unreadable).
    private(set) var measured = 0, unmeasured = 0

    init(path: String, stream: Int) {
        cursor = StreamCursor(path: path, stream: stream)
    }

    /// The change where the picture shown at `time` (the file's timeline) or just after it
    /// begins; nil where it was not measured (the caller then splits as if no cut were looked for).
    func change(at time: MediaTime) -> Change? {
        do throws(MediaError) {
            guard let grids = try pictures(around: time) else { unmeasured += 1; return nil }
            measured += 1
            let before = Self.distance(grids[0], grids[1]), at = Self.distance(grids[1], grids[2]), after = Self.distance(grids[2], grids[3])
            let isCut = at >= Self.threshold * Self.cells && at >= Self.contrast * max(before, after)
            return Change(difference: (at + Self.cells / 2) / Self.cells, isCut: isCut)
        } catch {
            unmeasured += 1
            return nil
        }
    }

    /// Σ|a − b| over the grid's cells.
    static func distance(_ a: [Int], _ b: [Int]) -> Int {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) }
    }

    /// The luma grids of the two pictures shown before `time` and the two from it on, in time
    /// order; nil where the stream does not have them near, or they are too costly to decode.
    private func pictures(around time: MediaTime) throws(MediaError) -> [[Int]]? {
        guard let plan = try targets(around: time) else { return nil }
        guard let packets = try positioned(before: time, sync: plan.sync)?.0 else { return nil }
        if decoder == nil { decoder = try packets.decoder() }
        guard let decoder else { return nil }
        decoder.flush()
        var grids: [MediaTime: [Int]] = [:]
        var unsent = plan.targets
        let judge = packets.droppability
        func take() throws(MediaError) {
            while let f = try decoder.receive() {
                let t = packets.time(of: f)
                if plan.targets.contains(t), grids[t] == nil, let g = f.lumaGrid(columns: Self.columns, rows: Self.rows) { grids[t] = g }
            }
        }
        func send() throws(MediaError) {
            while try !decoder.send(packets.packet) { try take() }
            try take()
        }
        unsent.remove(plan.sync)
        try send()
        while !unsent.isEmpty {
            guard let timing = try packets.next() else { break }
            if unsent.remove(timing.pts) != nil || !packets.isDroppable(judge) { try send() }
        }
        _ = try decoder.send(nil)
        try take()
        let ordered = plan.targets.sorted().compactMap { grids[$0] }
        return ordered.count == 4 ? ordered : nil
    }

    /// The pictures to decode around `time` — the two shown last before it and the first two
    /// from it on — and the sync sample to decode them from, read from packets alone; nil where
    /// there are not four, or they lie more than `decodeLimit` decoded packets from the sync.
    private func targets(around time: MediaTime) throws(MediaError) -> (sync: MediaTime, targets: Set<MediaTime>)? {
        guard let found = try positioned(before: time, sync: nil) else { return nil }
        let (packets, sync) = found
        let judge = packets.droppability
        // In decode order: each packet's time and whether it must be decoded for the ones after it.
        var read: [(pts: MediaTime, needed: Bool)] = [(sync, true)]
        var from = 0, pastAfter = 0
        while read.count <= Self.decodeLimit + CopyCutScan.reorderWindow, let timing = try packets.next() {
            read.append((timing.pts, !packets.isDroppable(judge)))
            if timing.pts >= time { from += 1 }
            // Two from `time` on are known for sure once reordering cannot bring an earlier one any more.
            if from >= 2 { pastAfter += 1; if pastAfter > CopyCutScan.reorderWindow { break } }
        }
        let shown = read.map(\.pts).filter { $0 >= sync }.sorted()
        let before = shown.filter { $0 < time }.suffix(2), after = shown.filter { $0 >= time }.prefix(2)
        guard before.count == 2, after.count == 2 else { return nil }
        let targets = Set(before).union(after)
        guard let last = read.lastIndex(where: { targets.contains($0.pts) }) else { return nil }
        let cost = read[...last].count { $0.needed || targets.contains($0.pts) }
        guard cost <= Self.decodeLimit else { return nil }
        return (sync, targets)
    }

    /// The stream positioned at `lookBack` before `time`, its first sync sample read (`packet`),
    /// and that sample's time; nil where it has none there, or not the one `sync` names (a seek is a guess on files
    /// without an index: the two reads must agree).
    private func positioned(before time: MediaTime, sync: MediaTime?) throws(MediaError) -> (StreamPackets, MediaTime)? {
        let packets = try cursor.seeked(to: time - Self.lookBack)
        var read = 0
        while let p = try packets.next() {
            read += 1
            if p.isSync {
                guard p.pts <= time, sync == nil || p.pts == sync else { return nil }
                return (packets, p.pts)
            }
            if read > Self.decodeLimit { return nil }
        }
        return nil
    }
}
