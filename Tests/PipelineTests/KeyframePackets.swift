import Foundation
import Recipe
import Testing

/// The keyframe packets of a file's first video track, read with ffprobe: each one's exact
/// presentation time and the coded picture types its data holds.
struct KeyframePacket {
    let pts: MediaTime
    /// The NAL unit types of an H.264 or HEVC packet (length-prefixed, as MP4 stores them);
    /// empty for other codecs.
    let nalTypes: [Int]

    /// The packet opens a closed GOP: an H.264 IDR slice (5), an HEVC IDR (19, 20); VP9's and
    /// AV1's keyframes reference nothing before them.
    func isIDR(codec: VideoCodec) -> Bool {
        switch codec {
        case .h264: return nalTypes.contains(5)
        case .hevc: return nalTypes.contains { $0 == 19 || $0 == 20 }
        default: return true
        }
    }

    static func read(_ file: String, codec: VideoCodec) throws -> [KeyframePacket] {
        let base = try #require(try FFprobe.run(["-select_streams", "v:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", file]), "ffprobe is missing")
        let parts = base.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Int32($0) }
        try #require(parts.count == 2, "\(file): time base '\(base)'")
        let out = try #require(try FFprobe.run(["-select_streams", "v:0", "-show_data", "-show_entries", "packet=pts,flags,data", "-of", "json", file]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let packets = try #require(object["packets"] as? [[String: Any]], "\(file): no packets")
        return try packets.filter { ($0["flags"] as? String)?.hasPrefix("K") == true }.map { p in
            let pts = try #require(p["pts"] as? Int, "\(file): a keyframe packet without pts")
            let bytes = hexDump(p["data"] as? String ?? "")
            let nal = codec == .h264 || codec == .hevc ? nalTypes(bytes, hevc: codec == .hevc) : []
            return KeyframePacket(pts: MediaTime(value: Int64(pts) * Int64(parts[0]), timescale: parts[1]), nalTypes: nal)
        }
    }

    /// ffprobe's `00000000: 0000 0002 0910 …  ascii` lines as bytes.
    private static func hexDump(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let hex = line[line.index(after: colon)...].prefix(41).split(separator: " ").joined()
            var i = hex.startIndex
            while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex, let b = UInt8(hex[i..<j], radix: 16) {
                bytes.append(b)
                i = j
            }
        }
        return bytes
    }

    /// The types of 4-byte length-prefixed NAL units.
    private static func nalTypes(_ b: [UInt8], hevc: Bool) -> [Int] {
        var types: [Int] = [], at = 0
        while at + 5 <= b.count {
            let length = b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let header = Int(b[at + 4])
            types.append(hevc ? (header >> 1) & 0x3f : header & 0x1f)
            at += 4 + max(length, 1)
        }
        return types
    }
}
