import Foundation
import Pipeline
import Recipe

/// A streaming package as a test reads it back: its playlists parsed, its segments on disk.
struct WrittenPackage {
    struct MediaPlaylist {
        let lines: [String]
        let durations: [Double]
        let segments: [String]
        var targetDuration: Int? { tag("#EXT-X-TARGETDURATION:").flatMap { Int($0) } }
        func tag(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } }
        /// Where each segment starts: the durations before it.
        var starts: [Double] { durations.indices.map { durations[..<$0].reduce(0, +) } }
    }

    let folder: String

    func file(_ name: String) -> String { folder + "/" + name }
    func text(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

    func media(_ rendition: String) throws -> MediaPlaylist {
        let lines = try text("\(rendition)/playlist.m3u8").split(separator: "\n").map(String.init)
        var durations: [Double] = [], segments: [String] = []
        for (k, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") {
            durations.append(Double(line.dropFirst(8).split(separator: ",")[0])!)
            segments.append(lines[k + 1])
        }
        return MediaPlaylist(lines: lines, durations: durations, segments: segments)
    }

    /// The master playlist's `EXT-X-STREAM-INF` attributes and URI, in order.
    func variants() throws -> [(attributes: [String: String], uri: String)] {
        let lines = try text("master.m3u8").split(separator: "\n").map(String.init)
        return lines.enumerated().filter { $0.1.hasPrefix("#EXT-X-STREAM-INF:") }.map { k, line in
            (Self.attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count))), lines[k + 1])
        }
    }

    /// `A=1,B="x,y"` → [A: 1, B: x,y].
    static func attributes(_ s: String) -> [String: String] {
        var out: [String: String] = [:], key = "", value = "", inKey = true, quoted = false
        for c in s + "," {
            if inKey { if c == "=" { inKey = false } else { key.append(c) }; continue }
            if c == "\"" { quoted.toggle(); continue }
            if c == "," && !quoted { out[key] = value; key = ""; value = ""; inKey = true; continue }
            value.append(c)
        }
        return out
    }

    /// `init.mp4` and the given segments of a rendition, end to end in one file at `path`.
    func joined(_ rendition: String, segments: [Int], into path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: file("\(rendition)/init.mp4")))
        for k in segments { data += try Data(contentsOf: URL(fileURLWithPath: file("\(rendition)/seg-\(k).m4s"))) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    func bytes(_ name: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file(name))[.size] as? NSNumber)?.intValue ?? 0
    }
}

enum PackageTools {
    static let ffmpeg = "/usr/bin/ffmpeg", ffprobe = "/usr/bin/ffprobe"

    /// ffprobe's csv lines for `entries` of the first video (or `stream`) stream's packets.
    static func packets(_ file: String, stream: String = "v:0") throws -> [[String]] {
        let r = try Binary.runTool(ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,flags",
                                            "-of", "csv=p=0", file])
        return r.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    }

    /// The H.264 SPS's profile_idc, constraint flags and level_idc as `avc1.PPCCLL`, read from the
    /// Annex B stream ffmpeg copies out of `file` (not from the avcC the package's CODECS read).
    static func avcFromSPS(_ file: String) throws -> String? {
        let r = try Binary.runToolData(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v:0", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"])
        let b = [UInt8](r)
        for i in 0..<(max(0, b.count - 7)) where b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 && b[i + 3] & 0x1F == 7 {
            return "avc1." + b[(i + 4)...(i + 6)].map { String(format: "%02x", $0) }.joined()
        }
        return nil
    }

    /// The HEVC SPS's profile_tier_level as `hvc1.P.C.TL.B…` (ISO/IEC 14496-15 E.3), read from the
    /// Annex B stream ffmpeg copies out of `file` (emulation prevention removed), not from the hvcC.
    static func hevcFromSPS(_ file: String) throws -> String? {
        let b = [UInt8](try Binary.runToolData(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v:0", "-c", "copy", "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", "-"]))
        guard let at = (0..<max(0, b.count - 40)).first(where: { b[$0] == 0 && b[$0 + 1] == 0 && b[$0 + 2] == 1 && b[$0 + 3] >> 1 & 0x3F == 33 }) else { return nil }
        var rbsp: [UInt8] = [], zeros = 0
        for byte in b[(at + 5)...].prefix(40) {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        // rbsp[0]: vps id, max sub layers, nesting; then the general profile_tier_level.
        let p = Array(rbsp[1...12])
        var flags: UInt32 = 0
        for k in 0..<32 where (UInt32(p[1]) << 24 | UInt32(p[2]) << 16 | UInt32(p[3]) << 8 | UInt32(p[4])) >> UInt32(31 - k) & 1 == 1 { flags |= 1 << UInt32(k) }
        var constraints = Array(p[5...10])
        while constraints.last == 0 { constraints.removeLast() }
        return "hvc1." + ["", "A", "B", "C"][Int(p[0] >> 6)] + "\(p[0] & 0x1F)." + String(flags, radix: 16, uppercase: true) + "."
            + (p[0] & 0x20 != 0 ? "H" : "L") + "\(p[11])" + constraints.map { "." + String($0, radix: 16, uppercase: true) }.joined()
    }

    /// The AAC object type ffprobe names (`LC` → 2) as `mp4a.40.N`.
    static func aacCodec(_ file: String) throws -> String? {
        let r = try Binary.runTool(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,profile", "-of", "csv=p=0", file])
        let fields = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        guard fields.first == "aac" else { return nil }
        return ["LC": "mp4a.40.2", "HE-AAC": "mp4a.40.5", "HE-AACv2": "mp4a.40.29"][String(fields.last ?? "")]
    }

    /// A 30 fps frame-stamped 640x360 H.264 source with 48 kHz stereo sound, `seconds` long.
    static func source(_ path: String, seconds: Int) throws {
        let rate = FrameRate(frames: 30)
        let s = try FrameSource(path: path, video: .droppableH264(width: 640, height: 360, frameRate: rate), audio: GeneratedAudioFormat())
        for i in 0..<(seconds * 30) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            if i % 30 == 29 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.05)) * 0.3 } }
        }
        try s.finish()
    }
}

extension Binary {
    /// Runs another command line and returns its standard output as bytes.
    static func runToolData(_ tool: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data
    }
}
