import Recipe

/// Where a chunked encode splits the output's pictures (`ChunkPass`): only on its keyframe grid
/// (every `gop` pictures from the first), preferring scene cuts (`SceneCuts`). Walking from the
/// start, each chunk's end is first placed as if no cut were looked for — at the grid place
/// its target length reaches (`auto`: four chunks per worker within the bounds; a count: the
/// output split evenly), or the last before `longest` would be passed — then moved to the grid
/// place near it that shows the plainest cut, if one does: `auto` looks at the places that
/// give the chunk from half to twice its target length within the bounds (and leave the rest
/// at least `shortest`), a count at those within a quarter of a chunk's share of its even
/// place. Ties go to the earlier place. The measure depends on the file alone and the target
/// on the recipe, the output's length and the workers `auto` counts, so the same source and
/// recipe split alike wherever the plan is made.
enum ChunkSplits {
    /// Why a chunk ends where it does.
    enum Reason: Equatable {
        /// A scene cut, with its difference (`SceneCuts.Change`).
        case sceneCut(difference: Int)
        /// The grid place its target length reached (no cut near it).
        case grid
        /// The last grid place before the chunk would pass `longest`.
        case lengthBound
        case end
    }

    /// A chunk: its first picture, and why it ends.
    struct Split: Equatable {
        let first: Int
        var reason: Reason
    }

    /// The most places measured for one split (evenly spread over its window): bounds the
    /// plan's cost where the grid is dense beside long bounds.
    static let placesPerSplit = 12

    /// The chunks, in order (the first starts at picture 0). `change`: the scene-cut measure at
    /// the grid place that starts with picture `k` (nil: not measured).
    static func choose(times: [MediaTime], gop: Int, duration: MediaTime, parallel: ParallelSpec, workers: Int,
                       change: (Int) -> SceneCuts.Change?) -> [Split] {
        let grid = Array(stride(from: gop, to: times.count, by: gop))
        guard !grid.isEmpty, duration.isNumeric, duration > .zero else { return [Split(first: 0, reason: .end)] }
        let seconds = grid.map { times[$0].seconds }
        let total = duration.seconds
        var chunks: [Split]
        switch parallel.chunks {
        case .count(let n):
            chunks = counted(n, grid: grid, seconds: seconds, total: total, change: change)
        case .auto:
            let share = total / Double(4 * max(1, workers))
            let target = min(max(share, parallel.shortest.seconds), parallel.longest.seconds)
            chunks = bounded(target: target, times: times, grid: grid, seconds: seconds, total: total, parallel: parallel, change: change)
        }
        chunks[chunks.count - 1].reason = .end
        return chunks
    }

    /// `n` chunks, evenly in time: each split at the grid place nearest its share (the shares
    /// rise, so one pass over the grid finds them all), or a plainer cut within a quarter share.
    private static func counted(_ n: Int, grid: [Int], seconds: [Double], total: Double, change: (Int) -> SceneCuts.Change?) -> [Split] {
        var chunks = [Split(first: 0, reason: .end)], g = 0, low = 0
        let reach = total / Double(max(1, n)) / 4
        for j in 1..<max(1, min(n, grid.count + 1)) {
            let ideal = total * Double(j) / Double(n)
            while g + 1 < grid.count, abs(seconds[g + 1] - ideal) <= abs(seconds[g] - ideal) { g += 1 }
            guard g < grid.count, grid[g] > chunks.last!.first else { g += 1; continue }
            while low < grid.count, seconds[low] < ideal - reach - 1e-9 || grid[low] <= chunks.last!.first { low += 1 }
            let window = Array((low..<grid.count).prefix { seconds[$0] <= ideal + reach + 1e-9 })
            let (place, reason) = preferred(window, otherwise: g, grid: grid, change: change)
            chunks[chunks.count - 1].reason = reason
            chunks.append(Split(first: grid[place], reason: .end))
            g = max(g, place) + 1
            if g >= grid.count { break }
        }
        return chunks
    }

    /// `auto`: chunks of about `target` seconds, from `shortest` to `longest` where the grid
    /// allows; a last chunk shorter than `shortest` joins the one before.
    private static func bounded(target: Double, times: [MediaTime], grid: [Int], seconds: [Double], total: Double,
                                parallel: ParallelSpec, change: (Int) -> SceneCuts.Change?) -> [Split] {
        let shortest = parallel.shortest.seconds, longest = parallel.longest.seconds
        var chunks = [Split(first: 0, reason: .end)]
        var g = 0
        while g < grid.count {
            let start = times[chunks.last!.first].seconds
            // Where it ends with no cut looked for: the chunk reached its length, or the next place would pass the longest.
            var plain: (Int, Reason)?
            for k in g..<grid.count {
                let since = seconds[k] - start
                let reachesLongest = k + 1 < grid.count && seconds[k + 1] - start > longest
                if since >= target { plain = (k, .grid); break }
                if reachesLongest && since >= shortest { plain = (k, .lengthBound); break }
            }
            guard let found = plain else { break }
            let (k, plainReason) = found
            let low = max(shortest, target / 2), high = min(longest, target * 2)
            let window = (g..<grid.count).filter {
                let length = seconds[$0] - start
                return length >= low - 1e-9 && length <= high + 1e-9 && total - seconds[$0] >= shortest - 1e-9
            }
            let (place, reason) = preferred(window, otherwise: k, plainReason: plainReason, grid: grid, change: change)
            chunks[chunks.count - 1].reason = reason
            chunks.append(Split(first: grid[place], reason: .end))
            g = place + 1
        }
        // A last chunk shorter than the shortest joins the one before.
        if chunks.count > 1, total - times[chunks.last!.first].seconds < shortest - 1e-9 { chunks.removeLast() }
        return chunks
    }

    /// Of the grid places in `window`, the one with the plainest cut (the largest difference of
    /// those that are cuts, the earliest of equals); `otherwise` where none is a cut. At most
    /// `placesPerSplit` places are measured, evenly spread.
    private static func preferred(_ window: [Int], otherwise: Int, plainReason: Reason = .grid, grid: [Int],
                                  change: (Int) -> SceneCuts.Change?) -> (Int, Reason) {
        var best: (place: Int, difference: Int)?
        for place in spread(window, most: placesPerSplit) {
            guard let c = change(grid[place]), c.isCut else { continue }
            if best == nil || c.difference > best!.difference { best = (place, c.difference) }
        }
        guard let best else { return (otherwise, plainReason) }
        return (best.place, .sceneCut(difference: best.difference))
    }

    /// At most `most` of `places`, evenly spread, in order (all where there are no more).
    static func spread(_ places: [Int], most: Int) -> [Int] {
        guard places.count > most else { return places }
        return (0..<most).map { places[$0 * (places.count - 1) / max(1, most - 1)] }
    }
}
