import Recipe

/// Cuts a fragmented MP4 on a grid (`KeyframeGrid`): fragment k holds each track's packets from
/// its first at or after instant k (a video track's IDR there: `GridKeyframes`) up to, not
/// including, its first at or after instant k+1. The lanes append on their own queues, so a
/// packet past the fragment's end is held until every steady track (video, audio) has reached
/// that end or the output is finished: then the fragment is flushed whole and the held packets
/// start the next one. Sparse tracks (subtitles) are not waited for: their packets go into the
/// fragment open when they come.
// Not Sendable: its one owner, AssetWriter, uses it under its lock.
final class FragmentCutter {
    private let grid: KeyframeGrid
    /// Per input: the time base its packets reach the muxer in, and whether a fragment waits for it.
    private let timeBases: [TimeBase]
    private let steady: [Bool]
    /// Per input, its packets at or past the end of the open fragment, in the order they came.
    private var held: [[Packet]]
    /// The open fragment ends at instant `end` of the grid.
    private var end: Int64 = 1
    /// Fragments flushed before the trailer (which flushes the last).
    private(set) var cuts = 0

    init(_ grid: KeyframeGrid, timeBases: [TimeBase], steady: [Bool]) {
        self.grid = grid
        self.timeBases = timeBases
        self.steady = steady
        held = Array(repeating: [], count: timeBases.count)
    }

    /// Writes `packet` (stamped in its stream's time base) into the open fragment, or holds it
    /// for the next; cuts when every steady track has reached the open fragment's end.
    func take(_ packet: Packet, input: Int, into container: OutputContainer) throws(MediaError) {
        if held[input].isEmpty && !reachesEnd(packet, input) {
            try container.write(packet)
            return
        }
        held[input].append(packet)
        while held.indices.allSatisfy({ !steady[$0] || !held[$0].isEmpty }) && held.contains(where: { !$0.isEmpty }) {
            try cut(container)
        }
    }

    /// Every track has ended: the held packets are written, cut at each instant they pass.
    func finish(_ container: OutputContainer) throws(MediaError) {
        while held.contains(where: { !$0.isEmpty }) { try cut(container) }
    }

    /// Flushes the open fragment (the interleaver's queue first) and opens the next at the first
    /// instant some held packet is before, with the held packets before it.
    private func cut(_ container: OutputContainer) throws(MediaError) {
        try container.flushFragment()
        // The first flush writes only the index (moov, delayed until the tracks' start is known:
        // AssetWriter); the fragment needs another, as FFmpeg's own automatic flush does.
        if cuts == 0 { try container.flushFragment() }
        cuts += 1
        repeat { end += 1 } while held.indices.allSatisfy { i in held[i].first.map { reachesEnd($0, i) } ?? true }
        for i in held.indices {
            while let p = held[i].first, !reachesEnd(p, i) {
                held[i].removeFirst()
                try container.write(p)
            }
        }
    }

    /// The packet is at or after the open fragment's end (a packet without a time never is).
    private func reachesEnd(_ packet: Packet, _ input: Int) -> Bool {
        let t = MediaTime(ts: packet.pts, timeBase: timeBases[input])
        return t.isNumeric && t >= grid.instant(end)
    }
}
