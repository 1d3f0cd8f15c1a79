import Recipe

/// Where one stream's frames start near given instants, from its packets alone (no decode): what
/// a trim snaps to before anything is converted. Only the packets around each instant are read.
enum FrameStartScan {
    /// The frames of a stream around an instant: the last start at or before it and the first
    /// start after it (or, past the last frame, where the last frame ends).
    struct Neighbours: Sendable, Equatable {
        var atOrBefore: MediaTime?
        var after: MediaTime?
        /// `after` is where the last frame ends, not a frame's start.
        var afterIsEnd = false
        /// The instant is at or after the end of the stream's last frame.
        var pastEnd = false

        /// The nearer of the two, ties to the earlier; nil where no frame is around the instant
        /// (before the first frame, after the last one ends: a track that starts late or ends
        /// early), so nothing is cut there and the instant stays. A start never goes to the
        /// stream's end: the last frame stays in the range.
        func nearest(to t: MediaTime, forStart: Bool = false) -> MediaTime? {
            if pastEnd { return nil }
            let after = forStart && afterIsEnd ? nil : self.after
            switch (atOrBefore, after) {
            case let (b?, a?): return t - b <= a - t ? b : a
            case let (b?, nil): return b
            case (nil, _): return nil
            }
        }
    }

    /// Reading stops this many packets after the first one shown after the instant at the
    /// latest: a frame's neighbours are never that far away in decode order.
    static let packetLimit = 4096
    /// Packets read on the way to the instant at most. A seek lands on the sync sample at or
    /// before it, so this is one GOP, which can be minutes long (screen recordings, keyint
    /// "infinite"); where it is longer still, the neighbours are unknown rather than guessed
    /// from wherever reading stopped.
    static let approachLimit = 65536

    /// The file opened for packet times alone: without its stream information where the header
    /// names the streams (reading it decodes pictures: on 1080p H.264 it was half of a 2 s
    /// trim's work, bench/README.md).
    static func open(_ path: String) throws(MediaError) -> InputContainer {
        try InputContainer(path: path, streamInformation: false)
    }

    /// An instant whose neighbours cannot be found (the file cannot be read or seeked there)
    /// gets none: the trim keeps that end as asked.
    static func neighbours(of instants: [MediaTime], path: String, stream: Int, fileStart: MediaTime) throws(MediaError) -> [Neighbours] {
        var out: [Neighbours] = []
        for t in instants {
            // A seek can land after `t` where the file has no index (MPEG-TS): go back until a
            // frame at or before `t` is seen; near the start, read from the start, unseeked (a
            // cut file may not seek at all).
            var back = MediaTime(value: 1, timescale: 1)
            var found = Neighbours()
            do throws(MediaError) {
                while true {
                    let target = t - back
                    let fromStart = target <= fileStart || back > MediaTime(value: 32, timescale: 1)
                    let input = try open(path)
                    guard stream >= 0, stream < input.streamCount else { break }
                    input.readOnly(stream: stream)
                    // A target with no microsecond stamp is read from the start: slower, still exact.
                    if !fromStart, let ts = try? target.ts(in: .microseconds, rounding: .down) {
                        try input.seek(to: ts, stream: -1)
                    }
                    guard let scanned = try scan(input, stream: stream, around: t) else { found = Neighbours(); break }
                    found = scanned
                    if found.atOrBefore != nil || fromStart { break }
                    back = back * 2
                }
            } catch {
                found = Neighbours()
            }
            out.append(found)
        }
        return out
    }

    /// Reads from the current position until no later packet can present before the first
    /// frame after `t`: packets come in decode order and none presents before it decodes.
    /// nil: `t` is more than `approachLimit` packets away.
    private static func scan(_ input: InputContainer, stream: Int, around t: MediaTime) throws(MediaError) -> Neighbours? {
        let tb = input.stream(stream).timeBase
        var n = Neighbours()
        var lastEnd: MediaTime?
        var read = 0, pastT = 0
        let packet = try Packet()
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream else { continue }
            read += 1
            if n.after != nil { pastT += 1 }
            // Stopped before the end of the stream, the last packet read is not its last frame.
            if pastT >= packetLimit { return n }
            if n.after == nil && read > approachLimit { return nil }
            let pts = MediaTime(ts: packet.pts, timeBase: tb)
            let dts = MediaTime(ts: packet.dts, timeBase: tb)
            guard pts.isNumeric else { continue }
            if pts <= t {
                if n.atOrBefore.map({ pts > $0 }) ?? true { n.atOrBefore = pts }
            } else if n.after.map({ pts < $0 }) ?? true {
                n.after = pts
            }
            let end = pts + MediaTime(ts: max(packet.duration, 0), timeBase: tb)
            if lastEnd.map({ end > $0 }) ?? true { lastEnd = end }
            // Without decode times (some Matroska files), half a second past is taken as settled.
            if let a = n.after, dts.isNumeric ? dts >= a : pts > a + MediaTime(value: 1, timescale: 2) { return n }
        }
        // The end of the stream: past the last frame, its end is the boundary.
        if n.after == nil, let e = lastEnd, e > (n.atOrBefore ?? e) {
            if e > t { n.after = e; n.afterIsEnd = true } else { n.pastEnd = true }
        }
        return n
    }
}

extension FrameStartScan {
    /// The median time between the first `limit` frames of a stream (in presentation order):
    /// the duration its frames mostly have, whatever gaps, bursts or slow-motion stretches lie
    /// between. nil when the stream has fewer than 2 frames with times or cannot be read.
    static func typicalFrameDuration(path: String, stream: Int, limit: Int = 600) -> MediaTime? {
        guard let input = try? open(path), stream >= 0, stream < input.streamCount else { return nil }
        input.readOnly(stream: stream)
        let tb = input.stream(stream).timeBase
        var times: [Int64] = []
        guard let packet = try? Packet() else { return nil }
        while times.count < limit, (try? input.read(into: packet)) == true {
            guard Int(packet.streamIndex) == stream, packet.pts != FFmpeg.noPTS else { continue }
            times.append(packet.pts)
        }
        times.sort()
        var gaps: [Int64] = []
        for i in 1..<max(1, times.count) {
            let (d, overflow) = times[i].subtractingReportingOverflow(times[i - 1])
            if !overflow && d > 0 { gaps.append(d) }
        }
        guard !gaps.isEmpty else { return nil }
        gaps.sort()
        return MediaTime(ts: gaps[(gaps.count - 1) / 2], timeBase: tb)
    }
}
