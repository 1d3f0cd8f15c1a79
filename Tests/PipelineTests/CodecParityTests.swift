import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Each codec added as a row of the codec table (issue 25), against the ffmpeg command line with
/// the same settings: the same stream (codec, profile, pixel format, colour tags, size), the same
/// frames and duration, and the same fidelity to the source (PSNR within 0.1 dB).
@Suite("New codecs against ffmpeg with the same settings")
struct CodecParityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let codec: VideoCodec
        let container: String
        let pixelFormat: String?
        /// The fastest speed each library has: the machine is shared.
        let options: [String: String]
        /// What the assistant gives the encoder here, as ffmpeg's arguments (quality: the row's
        /// default; GOP: 2 s at 25 fps).
        let ffmpeg: [String]
        var testDescription: String { "\(codec.rawValue) \(pixelFormat ?? "auto") in \(container)" }
    }

    static let cases: [Case] = [
        Case(codec: .av1, container: "mkv", pixelFormat: nil, options: ["preset": "12"],
             ffmpeg: ["-c:v", "libsvtav1", "-preset", "12", "-crf", "35", "-g", "50", "-pix_fmt", "yuv420p"]),
        Case(codec: .av1, container: "mp4", pixelFormat: "yuv420p10le", options: ["preset": "12"],
             ffmpeg: ["-c:v", "libsvtav1", "-preset", "12", "-crf", "35", "-g", "50", "-pix_fmt", "yuv420p10le"]),
        Case(codec: .vp9, container: "mkv", pixelFormat: nil, options: ["cpu-used": "8"],
             ffmpeg: ["-c:v", "libvpx-vp9", "-cpu-used", "8", "-crf", "31", "-b:v", "0", "-row-mt", "1", "-tile-columns", "0", "-g", "50", "-pix_fmt", "yuv420p"]),
        Case(codec: .vp9, container: "mp4", pixelFormat: "yuv420p10le", options: ["cpu-used": "8"],
             ffmpeg: ["-c:v", "libvpx-vp9", "-cpu-used", "8", "-crf", "31", "-b:v", "0", "-row-mt", "1", "-tile-columns", "0", "-g", "50", "-pix_fmt", "yuv420p10le"]),
    ]

    static let fields = "codec_name,profile,pix_fmt,width,height,color_range,color_space,color_transfer,color_primaries"

    @Test("reencode's output and ffmpeg's: same stream, frames, duration; PSNR against the source within 0.1 dB",
          arguments: cases)
    func matchesFFmpeg(_ c: Case) throws {
        let dir = Scratch()
        let src = dir.file("src.mp4"), ours = dir.file("ours.\(c.container)"), theirs = dir.file("ffmpeg.\(c.container)")
        try Media.make(src, video: GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 25)), frames: 25)
        let settings = VideoSettings(codec: c.codec, pixelFormat: c.pixelFormat, codecOptions: c.options)
        try runConversion(ConversionRequest(source: src, output: ours, tracks: [TrackRequest(.type(.video, 0), .video(settings))]))
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0"] + c.ffmpeg + [theirs]))

        let row = try #require(VideoFamily.of(c.codec))
        let keys = Self.fields.split(separator: ",").map(String.init)
        func stream(_ file: String) throws -> [String: String] {
            let all = try #require(try FFprobe.stream(file, "v:0", Self.fields))
            return all.filter { keys.contains($0.key) }
        }
        let mine = try stream(ours)
        #expect(mine["codec_name"] == row.streamCodec && mine["pix_fmt"] == (c.pixelFormat ?? "yuv420p"))
        #expect(mine == (try stream(theirs)))
        #expect(try FFprobe.frameCount(ours, "v:0") == 25)
        #expect(try FFprobe.frameCount(theirs, "v:0") == 25)
        #expect(try FFprobe.format(ours)?["duration"] == (try FFprobe.format(theirs)?["duration"]))
        let psnr = try #require(try FFmpegCLI.psnr(ours, against: src)), reference = try #require(try FFmpegCLI.psnr(theirs, against: src))
        #expect(abs(psnr - reference) <= 0.1, "reencode \(psnr) dB, ffmpeg \(reference) dB")
    }
}

/// Encodes the reference way, and measures.
extension FFmpegCLI {
    /// ffmpeg `args`, quiet (SVT-AV1's banner too), overwriting: whether it succeeded.
    static func encode(_ args: [String]) throws -> Bool {
        try quiet(["-v", "error", "-y"] + args).status == 0
    }

    /// The average PSNR (dB) of `file`'s pictures against `source`'s, by the `psnr` filter (at
    /// the end of `filter`, a graph of the two).
    static func psnr(_ file: String, against source: String, filter: String = "[0:v][1:v]psnr") throws -> Double? {
        let r = try quiet(["-v", "info", "-i", file, "-i", source, "-lavfi", filter, "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
              let at = line.range(of: "average:") else { return nil }
        return Double(line[at.upperBound...].prefix { $0 != " " })
    }

    private static func quiet(_ args: [String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path ?? "/usr/bin/ffmpeg")
        p.arguments = ["-hide_banner", "-nostdin"] + args
        p.environment = ["SVT_LOG": "0"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }
}
