import Foundation
import Pipeline
import Recipe

/// HDR sources made with the project's own writer: 10-bit HEVC tagged BT.2020 with HLG or PQ,
/// optionally with HDR10 mastering-display and content-light-level metadata.
enum HDRMedia {
    /// A mastering display unlike any default (P3 primaries, D65, 0.005–1000 cd/m²): the values
    /// a test finds in the output can only have come from the source.
    static let mastering = MasteringDisplay(red: .init(34000, 16000), green: .init(13250, 34500), blue: .init(7500, 3000),
                                            whitePoint: .init(15635, 16450), minLuminance: 50, maxLuminance: 10_000_000)
    static let light = ContentLightLevel(maxCLL: 1000, maxFALL: 400)

    /// 10-bit limited-range luma code of an HLG signal level (0…1).
    static func code(_ signal: Double) -> Int { Int((64 + signal * 876).rounded()) }

    /// `frames` pictures of 64x64: the left half one grey level, the right half another (10-bit
    /// codes), neutral chroma.
    static func make(_ path: String, transfer: String, left: Int, right: Int, frames: Int = 6,
                     mastering: MasteringDisplay? = nil, light: ContentLightLevel? = nil,
                     codecOptions: [String: String] = [:]) throws {
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "yuv420p10le"
        v.colorPrimaries = "bt2020"
        v.colorTransfer = transfer
        v.colorMatrix = "bt2020nc"
        v.masteringDisplay = mastering
        v.contentLightLevel = light
        v.quality = 4
        v.codecOptions = ["preset": "ultrafast"].merging(codecOptions) { _, new in new }
        let source = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<frames {
            try source.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 32, height: 64, sample: left)
                p.fill(plane: 0, x: 32, y: 0, width: 32, height: 64, sample: right)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, sample: 512)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, sample: 512)
            }
        }
        try source.finish()
    }

    /// Mean 8-bit luma code (the raw Y' samples, as the ffmpeg command line decodes them) of a
    /// square in the middle of the left and right halves of the first picture.
    static func patchLuma(_ path: String) throws -> (left: Double, right: Double) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let y = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        p.waitUntilExit()
        guard y.count >= 64 * 64 * 3 / 2 else { return (.nan, .nan) }
        func mean(_ x0: Int) -> Double {
            var sum = 0, n = 0
            for row in 24..<40 { for x in x0..<(x0 + 16) { sum += Int(y[row * 64 + x]); n += 1 } }
            return Double(sum) / Double(n)
        }
        return (mean(8), mean(40))
    }

    /// ffprobe's mastering-display and content-light entries from the stream (`stream`) or the
    /// first picture (`frame`), as key → reduced fraction or number (Matroska's reader reduces
    /// fractions and lists the items in another order than MP4's: the values are what counts).
    static func sideData(_ path: String, _ level: String) throws -> [String: String] {
        let args = level == "stream"
            ? ["-select_streams", "v:0", "-show_entries", "stream_side_data", "-of", "default=nw=1", path]
            : ["-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame_side_data", "-of", "default=nw=1", path]
        var out: [String: String] = [:]
        for line in (try FFprobe.run(args) ?? "").split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            if kv[0] == "side_data_type" {
                if kv[1].hasPrefix("Mastering") || kv[1].hasPrefix("Content light") { out[kv[1]] = "present" }
                continue
            }
            out[kv[0]] = reduced(kv[1])
        }
        return out
    }

    static func reduced(_ v: String) -> String {
        let parts = v.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] != 0 else { return v }
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let g = gcd(abs(parts[0]), parts[1])
        return parts[1] / g == 1 ? "\(parts[0] / g)" : "\(parts[0] / g)/\(parts[1] / g)"
    }

    /// What ffprobe shows for `mastering` and `light`.
    static let expectedSideData: [String: String] = {
        var d = ["Mastering display metadata": "present", "Content light level metadata": "present",
                 "max_content": "1000", "max_average": "400"]
        for (k, v) in [("red_x", "34000/50000"), ("red_y", "16000/50000"), ("green_x", "13250/50000"), ("green_y", "34500/50000"),
                       ("blue_x", "7500/50000"), ("blue_y", "3000/50000"), ("white_point_x", "15635/50000"),
                       ("white_point_y", "16450/50000"), ("min_luminance", "50/10000"), ("max_luminance", "10000000/10000")] {
            d[k] = reduced(v)
        }
        return d
    }()
}
