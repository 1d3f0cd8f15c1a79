import Foundation
import Recipe

/// The readers of one run: one per reading of a source file — a plain conversion's one, or one
/// per segment of a composition (several files, or ranges of one file in any order) — each opened
/// when the first lane reaches it, positioned at its start, and let go when every output reading
/// it is done. So a timeline of hundreds of segments holds a reader or two at a time, a segment
/// never waits on another segment's reader, and one file's readers never wait on another's.
/// A lane that runs ahead (sound decodes faster than pictures encode) opens a segment's reader
/// only once the segment `window` before it is done by every lane: short segments would
/// otherwise leave a reader open for each one it passed (within one reader, its bounded buffers
/// hold it back; between readers nothing would).
// SAFETY: every mutable field is guarded by `lock`. Opening a reader (a file open and a seek)
// happens under it, so two lanes reaching the same segment share one reader.
final class ReaderPool: @unchecked Sendable {
    /// One reading of a source: its file, the streams it hands out and to which lanes.
    struct Group: Sendable {
        let source: Asset
        /// Output i reads stream `streams[i]` for lane `lanes[i]`.
        let streams: [Int]
        let lanes: [Int]
        /// Where reading starts (the file is positioned there); nil: the file's start.
        let start: MediaTime?
        /// Which composition track's segments it is among (the window counts within one: a
        /// mix input's long music segment stays open while the speech beside it moves on).
        var track = 0
    }

    private let groups: [Group]
    private let lock = NSCondition()
    /// How many segments' readers may be open from the first one not done by every lane. The
    /// lanes reading that first one never wait, so the run always moves on.
    static let window = 2
    /// Lanes are running (not negotiating): a tap too far ahead waits for the others.
    private var running = false
    private var readers: [AssetReader?]
    /// Per group, outputs not yet done; the reader goes when none is left.
    private var remaining: [Int]
    private var opened: [Bool]
    private var failure: MediaError?
    private var damaged = false
    /// The most readers open at once (for tests: flat however many segments).
    private var mostOpen = 0
    private let takingProbe: Bool
    private let borrowingProbe: Bool
    private let positions: Bool

    /// `takingProbe`: the first reader of each file takes over the demuxer its asset was probed
    /// with (so each file of a composition has its stream information read once, as ffmpeg's
    /// command line does; a later reading of the same file opens it again);
    /// `positions`: readers are positioned at their starts. A rehearsal, which only opens the
    /// decoders, does neither: its readers borrow the probed demuxers (`borrowingProbe`).
    init(groups: [Group], takingProbe: Bool = true, positions: Bool = true, borrowingProbe: Bool = false) {
        self.groups = groups
        self.takingProbe = takingProbe
        self.borrowingProbe = borrowingProbe
        self.positions = positions
        readers = Array(repeating: nil, count: groups.count)
        remaining = groups.map(\.streams.count)
        opened = Array(repeating: false, count: groups.count)
        var counts: [Int: Int] = [:]
        rank = groups.map { g in
            defer { counts[g.track, default: 0] += 1 }
            return counts[g.track, default: 0]
        }
    }

    /// Each group's place among its track's groups.
    private let rank: [Int]

    /// Whether group `g` is more than `window` of its track's groups beyond the first of them
    /// not done by every lane.
    private func isTooFarAhead(_ g: Int) -> Bool {
        let track = groups[g].track
        guard let oldest = groups.indices.first(where: { groups[$0].track == track && remaining[$0] > 0 }) else { return false }
        return rank[g] >= rank[oldest] + Self.window
    }

    /// Output `output` of group `group`, its reader opened (and positioned) if this is the first use.
    func tap(group: Int, output: Int) throws(MediaError) -> PacketTap {
        lock.lock(); defer { lock.unlock() }
        if let failure { throw failure }
        guard groups.indices.contains(group), groups[group].streams.indices.contains(output) else {
            throw MediaError(.processing, "the plan reads no source for this input")
        }
        if let reader = readers[group] { return PacketTap(reader: reader, output: output, group: group, pool: self) }
        while running && failure == nil && isTooFarAhead(group) {
            lock.wait()
        }
        if let failure { throw failure }
        if let reader = readers[group] { return PacketTap(reader: reader, output: output, group: group, pool: self) }
        guard !opened[group] else { throw MediaError(.processing, "a source's reading was asked for again after it ended") }
        let g = groups[group]
        let reader = try AssetReader(asset: g.source, streams: g.streams, consumers: g.lanes,
                                     takingProbe: takingProbe, borrowingProbe: borrowingProbe)
        if positions, let start = g.start, start > g.source.startTime { try reader.seek(to: start, fileStart: g.source.startTime) }
        readers[group] = reader
        opened[group] = true
        mostOpen = max(mostOpen, readers.lazy.filter { $0 != nil }.count)
        return PacketTap(reader: reader, output: output, group: group, pool: self)
    }

    /// The lanes have started: from now on a tap too far ahead waits (while negotiating, each
    /// lane's first reading opens at once: nothing else would move).
    func lanesStarted() {
        lock.lock(); defer { lock.unlock() }
        running = true
    }

    /// Output `output` of `group` is done; its reader goes when all of the group's are.
    fileprivate func release(group: Int, output: Int) {
        lock.lock(); defer { lock.unlock() }
        lock.broadcast()
        remaining[group] -= 1
        if remaining[group] <= 0, let r = readers[group] {
            if r.isDamaged { damaged = true }
            readers[group] = nil
        }
    }

    /// Stops every open reader (their lanes' next read throws) and every later opening.
    func stop(_ error: MediaError) {
        lock.lock()
        if failure == nil { failure = error }
        let open = readers.compactMap { $0 }
        lock.broadcast()
        lock.unlock()
        for r in open { r.stop(error) }
    }

    /// Every open reader ends where it is, as at its file's end (`AssetReader.end`).
    func end() {
        lock.lock()
        let open = readers.compactMap { $0 }
        lock.unlock()
        for r in open { r.end() }
    }

    /// The most readers that were open at once.
    var mostOpenReaders: Int {
        lock.lock(); defer { lock.unlock() }
        return mostOpen
    }

    /// Whether any reader met a sample it could not read whole.
    var isDamaged: Bool {
        lock.lock()
        let open = readers.compactMap { $0 }
        let seen = damaged
        lock.unlock()
        return seen || open.contains { $0.isDamaged }
    }
}

/// One reader output as the stage that reads it sees it: its stream, its packets, and the end.
final class PacketTap {
    let reader: AssetReader
    let output: Int
    private let group: Int
    private let pool: ReaderPool?
    private var released = false

    fileprivate init(reader: AssetReader, output: Int, group: Int, pool: ReaderPool?) {
        self.reader = reader; self.output = output; self.group = group; self.pool = pool
    }

    /// A tap on a reader that no pool owns (tests that drive a reader directly).
    init(reader: AssetReader, output: Int) {
        self.reader = reader; self.output = output; group = 0; pool = nil
    }

    deinit { detach() }

    var stream: SourceStream { reader.stream(forOutput: output) }
    /// The file it reads.
    var file: String { reader.path }

    func next() throws(MediaError) -> Packet? { try reader.next(output) }

    /// No more packets are wanted; once every output of its reading is done, the reader goes.
    func detach() {
        guard !released else { return }
        released = true
        reader.detach(output)
        pool?.release(group: group, output: output)
    }
}
