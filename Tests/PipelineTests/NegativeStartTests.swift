import Foundation
import Pipeline
import Recipe
import Testing

/// Sources whose timestamps start before 0 or far from it: Matroska muxed with negative
/// timestamps (FFmpeg's reader gives the blocks before 0 no time), Matroska and MP4 starting at
/// 10 s (their stated length counts from 0), a transport stream whose clock wraps mid-file. Every
/// source picture reaches the output once and in order, the sound stays with the pictures, the
/// output is as long as the source, and trims (inside the untimed pictures too) convert.
@Suite("Negative and offset start times")
struct NegativeStartTests {
    static let rate = FrameRate(frames: 25)
    static let frames = 75
    /// The tone burst marks frame 30 (1.2 s).
    static let marker = 30

    /// 3 s of frame-stamped 160x120 25 fps H.264 with B-frames (which give MP4 and Matroska
    /// timestamps below the first picture's), 48 kHz audio with a burst at frame 30.
    static func source(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast", "bf": "2", "x264-params": "b-adapt=0"]
        try Media.make(path, video: v, frames: frames, audio: true, markers: Media.Markers(firstMarker: marker, markerEvery: 1000))
    }

    /// ffmpeg's remuxes: name → extra arguments.
    static let variants: [(name: String, args: [String])] = [
        ("negative.mkv", ["-output_ts_offset", "-0.5", "-avoid_negative_ts", "disabled"]),
        ("bframes.mkv", ["-avoid_negative_ts", "disabled"]),
        ("late.mkv", ["-output_ts_offset", "10"]),
        ("late.mp4", ["-output_ts_offset", "10"]),
        ("wrap.ts", ["-output_ts_offset", "95441"]),
    ]

    static func remux(_ src: String, _ v: (name: String, args: [String]), in dir: Scratch) throws -> String {
        let out = dir.file(v.name)
        try #require(try FFmpegCLI.run(["-i", src, "-c", "copy"] + v.args + [out]), "ffmpeg (scripts/setup.sh installs it) could not make \(v.name)")
        return out
    }

    static func convert(_ src: String, _ out: String, range: TimeRange? = nil, copy: Bool = false) throws {
        var r = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), copy ? .passthrough : .video(.fast())),
            TrackRequest(.type(.audio, 0), copy ? .passthrough : .audio(AudioSettings())),
        ])
        r.timeRange = range
        try runConversion(r)
    }

    /// Seconds from the marked picture to the burst, in `path`.
    static func avOffset(_ path: String) throws -> Double {
        let shown = try #require(try Media.stamps(path).first { $0.stamp == marker }, "frame \(marker) in \(path)")
        let burst = try #require(try Media.burstOnsets(path).first, "the burst in \(path)")
        return burst - shown.pts.seconds
    }

    @Test("re-encoded and remuxed: every picture once, in order; the burst on its picture; as long as the source",
          arguments: variants.map(\.name))
    func whole(name: String) throws {
        let dir = Scratch()
        let original = dir.file("original.mp4")
        try Self.source(original)
        try Self.convert(original, dir.file("reference.mp4"))
        let reference = try Self.avOffset(dir.file("reference.mp4"))
        let src = try Self.remux(original, Self.variants.first { $0.name == name }!, in: dir)
        let length = try Asset.load(src).duration.seconds
        #expect(abs(length - 3.0) < 0.05, "\(name): \(length) s")
        // Copied, the pictures Matroska gives no time keep none that says their order (B-frames):
        // ffmpeg's remux shows them out of order too. Decoded, they are ordered and timed.
        for copy in name == "negative.mkv" ? [false] : [false, true] {
            let out = dir.file("out-\(copy).mp4")
            try Self.convert(src, out, copy: copy)
            let stamps = try Media.stamps(out).map(\.stamp)
            #expect(stamps == (0..<Self.frames).map { Optional($0) }, "\(name) copy \(copy): \(stamps)")
            let offset = try Self.avOffset(out)
            #expect(abs(offset - reference) < 0.03, "\(name) copy \(copy): burst \(offset) s after its picture, \(reference) s in the reference")
            let outLength = try Asset.load(out).duration.seconds
            #expect(abs(outLength - 3.0) < 0.05, "\(name) copy \(copy): \(outLength) s")
        }
    }

    @Test("trims: from 0.2 s (inside the negative file's untimed pictures) and from 1 s, 1 s long, consecutive pictures from the right one",
          arguments: variants.map(\.name))
    func trims(name: String) throws {
        let dir = Scratch()
        let original = dir.file("original.mp4")
        try Self.source(original)
        let src = try Self.remux(original, Self.variants.first { $0.name == name }!, in: dir)
        for start in [1, 5] {
            let out = dir.file("trim\(start).mp4")
            let s = MediaTime(value: Int64(start), timescale: 5)
            try Self.convert(src, out, range: TimeRange(start: s, duration: MediaTime(value: 1, timescale: 1)))
            let stamps = try Media.stamps(out).compactMap(\.stamp)
            // The picture nearest the start (25 per second): the file's start is its sound's,
            // 21 ms before its first picture, so the one before it where the start falls nearer.
            let first = start * 5
            #expect(stamps.first.map { $0 == first || $0 == first - 1 } == true, "\(name) from \(s.seconds) s: \(stamps)")
            #expect(stamps == Array((stamps.first ?? 0)..<(stamps.first ?? 0) + stamps.count), "\(name): \(stamps)")
            #expect((24...26).contains(stamps.count), "\(name) from \(s.seconds) s: \(stamps.count) pictures")
        }
    }
}
