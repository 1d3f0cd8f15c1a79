import Recipe

/// The groups of pictures of a stretch of a video stream, read from its packets alone (nothing
/// decoded): where smart rendering may copy and where it must encode. A copy can start at a sync
/// sample that restarts decoding (an IDR, `Droppability`) and whose group is closed (nothing
/// decoded after it is shown before it), and can end just before such a sample.
enum GroupScan {
    /// The reordering of pictures in decode order: per picture, how many decoded before it are
    /// shown after it; the most.
    static func depth(_ decoded: [MediaTime]) -> Int {
        let order = decoded.indices.sorted { decoded[$0] < decoded[$1] }
        var shownAt = Array(repeating: 0, count: decoded.count)
        for (rank, i) in order.enumerated() { shownAt[i] = rank }
        return decoded.indices.map { $0 - shownAt[$0] }.max() ?? 0
    }

    struct Result: Sendable {
        /// Sync samples in the stretch (start and end included) that restart decoding and open a
        /// closed group, in time order.
        var entries: [MediaTime] = []
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
    /// seeks to the sync sample at or before `start`; a file that cannot seek is read from its start.
    static func scan(path: String, stream: Int, from start: MediaTime, to end: MediaTime) throws(MediaError) -> Result {
        let input = try InputContainer(path: path, streamInformation: false)
        guard stream >= 0, stream < input.streamCount else { throw MediaError(.processing, "\(path) has no track #\(stream)", file: path) }
        input.readOnly(stream: stream)
        // A start with no microsecond stamp, or a seek that fails: read from the file's start (slower, as exact).
        if let ts = try? start.ts(in: .microseconds, rounding: .down) {
            do throws(MediaError) { try input.seek(to: ts, stream: -1) } catch { _ = input.seekToFirstByte() }
        }
        let tb = input.stream(stream).timeBase
        let pictures = Droppability(codecName: input.stream(stream).codecName, extradata: input.stream(stream).codecSetup)
        var result = Result()
        /// Candidates: sync samples that restart decoding, with the samples decoded after them so far.
        var open: [(time: MediaTime, after: Int, isOpen: Bool)] = []
        var closed: [MediaTime] = []
        var pastEnd = 0
        var decoded: [MediaTime] = []
        let packet = try Packet()
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream else { continue }
            let pts = packet.shownTime(in: tb)
            guard pts.isNumeric else { continue }
            for i in open.indices {
                open[i].after += 1
                if pts < open[i].time { open[i].isOpen = true }
            }
            // A candidate is decided once reordering cannot reach back past it any more.
            while let first = open.first, first.after >= CopyCutScan.reorderWindow {
                if !first.isOpen { closed.append(first.time) }
                open.removeFirst()
            }
            if pts >= start && pts < end { result.pictures.append(pts) }
            decoded.append(pts)
            if packet.isKeyframe, pts >= start, pts <= end, pictures?.restartsDecoding(packet.bytes) ?? false {
                open.append((pts, 0, false))
            }
            if pts > end { pastEnd += 1 }
            if pastEnd >= CopyCutScan.reorderWindow && open.isEmpty { break }
        }
        // The file's end: nothing more can be decoded after the last candidates.
        closed += open.filter { !$0.isOpen }.map(\.time)
        result.entries = closed.sorted()
        result.pictures.sort()
        result.reorderDepth = depth(decoded)
        return result
    }
}
