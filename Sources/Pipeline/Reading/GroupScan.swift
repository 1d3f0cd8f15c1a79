import Recipe

/// The groups of pictures of a stretch of a video stream, read from its packets alone (nothing
/// decoded): where smart rendering may copy and where it must encode. A copy can start at a sync
/// sample that is a random access point (H.264 IDR; HEVC IDR, BLA or CRA: `Droppability`),
/// leaving out its leading pictures (decoded after it, shown before it: an open GOP's); it can
/// end just before such a sample's first leading picture (or the sample itself, where it has
/// none), where every picture decoded before the sample is shown before that.
enum GroupScan {
    /// The reordering of pictures in decode order: per picture, how many decoded before it are
    /// shown after it; the most.
    static func depth(_ decoded: [MediaTime]) -> Int {
        let order = decoded.indices.sorted { decoded[$0] < decoded[$1] }
        var shownAt = Array(repeating: 0, count: decoded.count)
        for (rank, i) in order.enumerated() { shownAt[i] = rank }
        return decoded.indices.map { $0 - shownAt[$0] }.max() ?? 0
    }

    /// A random access point: where a copy can start, and where a copy before it can end.
    struct Entry: Sendable, Equatable {
        /// Its sync sample's time: a copy from here shows what is decoded from the sample on and
        /// shown from its time on (its leading pictures left out: the run before shows them).
        var time: MediaTime
        /// Where a copy before it can end: its first leading picture's time (its own time when it
        /// has none); nil where a picture decoded before it is shown at or after that (the copy,
        /// ending at the sample, would lose it).
        var copyEnd: MediaTime?
    }

    struct Result: Sendable {
        /// Random access points in the stretch (start and end included, and those just past its
        /// end), in time order.
        var entries: [Entry] = []
        /// Every picture's time in the stretch [start, end), in time order: what `plan` counts.
        var pictures: [MediaTime] = []
        /// The most pictures a picture of the stretch is decoded after, of those shown after it
        /// (0: no reordering; x264's B-pyramid: 2).
        var reorderDepth = 0

        /// Pictures shown in [from, to).
        func pictureCount(from: MediaTime, to: MediaTime) -> Int {
            pictures.count { $0 >= from && $0 < to }
        }
    }

    /// The stream's samples shown in [start, end] and the reordering just past it. The demuxer
    /// seeks to the sync sample at or before `start`; where it cannot, or lands after it (an
    /// MPEG-TS seek can land past the first keyframe: its index is a guess from the bytes), the
    /// file is read from its start (slower, as exact).
    static func scan(path: String, stream: Int, from start: MediaTime, to end: MediaTime) throws(MediaError) -> Result {
        if let sought = try scan(path: path, stream: stream, from: start, to: end, seeking: true) { return sought }
        return try scan(path: path, stream: stream, from: start, to: end, seeking: false) ?? Result()
    }

    /// One reading; nil where `seeking` landed on the stream anywhere but a sync sample at or before `start`.
    private static func scan(path: String, stream: Int, from start: MediaTime, to end: MediaTime, seeking: Bool) throws(MediaError) -> Result? {
        let input = try InputContainer(path: path, streamInformation: false)
        guard stream >= 0, stream < input.streamCount else { throw MediaError(.processing, "\(path) has no track #\(stream)", file: path) }
        input.readOnly(stream: stream)
        if seeking {
            // A start with no microsecond stamp, or a seek that fails: read from the file's start.
            guard let ts = try? start.ts(in: .microseconds, rounding: .down) else { return nil }
            do throws(MediaError) { try input.seek(to: ts, stream: -1) } catch { return nil }
        }
        let tb = input.stream(stream).timeBase
        let pictures = Droppability(codecName: input.stream(stream).codecName, extradata: input.stream(stream).codecSetup)
        var result = Result()
        /// Candidates: random access points, with the samples decoded after them so far, the
        /// first time shown by one of those before it, and the last time shown before it in decode order.
        var open: [(time: MediaTime, after: Int, leading: MediaTime?, shownBefore: MediaTime?)] = []
        var entries: [Entry] = []
        var pastEnd = 0
        var decoded: [MediaTime] = []
        var latest: MediaTime?
        let packet = try Packet()
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream else { continue }
            let pts = packet.shownTime(in: tb)
            guard pts.isNumeric else { continue }
            if seeking, decoded.isEmpty, !packet.isKeyframe || pts > start { return nil }
            for i in open.indices {
                open[i].after += 1
                if pts < open[i].time { open[i].leading = min(open[i].leading ?? pts, pts) }
            }
            // A candidate is decided once reordering cannot reach back past it any more.
            while let first = open.first, first.after >= CopyCutScan.reorderWindow {
                entries.append(entry(first))
                open.removeFirst()
            }
            if pts >= start && pts < end { result.pictures.append(pts) }
            decoded.append(pts)
            // Just past the end too: an open GOP's first leading picture may be shown before it.
            if packet.isKeyframe, pts >= start, pts <= end || pastEnd < CopyCutScan.reorderWindow,
               pictures?.isRandomAccessPoint(packet.bytes) ?? false {
                open.append((pts, 0, nil, latest))
            }
            latest = max(latest ?? pts, pts)
            if pts > end { pastEnd += 1 }
            if pastEnd >= CopyCutScan.reorderWindow && open.isEmpty { break }
        }
        // The file's end: nothing more can be decoded after the last candidates.
        entries += open.map(entry)
        result.entries = entries.sorted { $0.time < $1.time }
        result.pictures.sort()
        result.reorderDepth = depth(decoded)
        return result
    }

    /// A decided candidate as an entry: a copy before it ends at its first leading picture, if
    /// every picture decoded before it is shown before that.
    private static func entry(_ c: (time: MediaTime, after: Int, leading: MediaTime?, shownBefore: MediaTime?)) -> Entry {
        let end = c.leading ?? c.time
        if let before = c.shownBefore, before >= end { return Entry(time: c.time, copyEnd: nil) }
        return Entry(time: c.time, copyEnd: end)
    }
}
