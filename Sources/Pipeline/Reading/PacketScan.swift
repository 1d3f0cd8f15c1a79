import Recipe

/// Where each stream's samples lie on the file's timeline, from the packets alone (no decode):
/// `[earliest pts, latest pts + duration)`. What containers declare is often wrong; this is not.
public enum PacketScan {
    public static func extents(_ path: String) throws(MediaError) -> [Int: TimeRange] {
        let input = try InputContainer(path: path)
        var lo: [Int: MediaTime] = [:], hi: [Int: MediaTime] = [:]
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            let tb = input.stream(i).timeBase
            let ts = packet.pts != FFmpeg.noPTS ? packet.pts : packet.dts
            let start = MediaTime(ts: ts, timeBase: tb)
            guard start.isNumeric else { continue }
            let end = start + MediaTime(ts: max(packet.duration, 0), timeBase: tb)
            if lo[i] == nil || start < lo[i]! { lo[i] = start }
            if hi[i] == nil || end > hi[i]! { hi[i] = end }
        }
        var out: [Int: TimeRange] = [:]
        for (i, s) in lo { out[i] = TimeRange(start: s, end: hi[i]!) }
        return out
    }
}

extension PacketScan {
    /// One sample as the file states it.
    public struct Sample: Sendable, Hashable {
        /// nil where the file states none.
        public let pts: MediaTime?
        public let dts: MediaTime?
        public let duration: MediaTime
        public let isSync: Bool
    }

    /// Every stream's samples in file (decode) order, from the packets alone (no decode).
    public static func samples(_ path: String) throws(MediaError) -> [Int: [Sample]] {
        let input = try InputContainer(path: path)
        var out: [Int: [Sample]] = [:]
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            let tb = input.stream(i).timeBase
            func time(_ ts: Int64) -> MediaTime? { ts == FFmpeg.noPTS ? nil : MediaTime(ts: ts, timeBase: tb) }
            out[i, default: []].append(Sample(pts: time(packet.pts), dts: time(packet.dts),
                                                  duration: MediaTime(ts: max(packet.duration, 0), timeBase: tb), isSync: packet.isKeyframe))
        }
        return out
    }
}
