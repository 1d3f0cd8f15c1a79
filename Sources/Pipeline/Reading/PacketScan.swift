import CFFmpeg
import Recipe

/// Where each stream's samples lie on the file's timeline, from the packets alone (no decode):
/// `[earliest pts, latest pts + duration)`. What containers declare is often wrong; this is not.
public enum PacketScan {
    public static func extents(_ path: String) throws(MediaError) -> [Int: TimeRange] {
        let input = try InputContainer(path: path)
        var lo: [Int: MediaTime] = [:], hi: [Int: MediaTime] = [:]
        let packet = Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            let tb = input.stream(i).pointee.time_base
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
