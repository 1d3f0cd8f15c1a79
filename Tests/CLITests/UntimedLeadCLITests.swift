import Foundation
import Pipeline
import Recipe
import Testing

/// Full encodes of sources whose timestamps start before or after 0: Matroska muxed with a
/// negative offset keeping its negative timestamps (FFmpeg's reader gives those blocks no time,
/// and its start for the track is the first timed block's: the untimed pictures were dropped, 48
/// of 75 shown), with and without sound, a positive offset, an MP4 and a MOV whose edit list hides
/// the pictures before 0, a transport stream. Every picture the source shows is in the output once,
/// at its own time from the file's start, and the sound stays where it was against the pictures.
@Suite("Sources starting before or after 0: every picture shown at its time", .serialized)
struct UntimedLeadCLITests {
    static let rate = FrameRate(frames: 25)
    static let frames = 75
    /// The tone burst marks frame 40 (1.6 s).
    static let marker = 40

    /// A source shape: the remux of the stamped source that makes it.
    struct Shape: CustomStringConvertible {
        let description: String
        let ext: String
        /// ffmpeg's arguments (besides the inputs and copying) that make it.
        let remux: [String]
        /// It has sound, a second later against the pictures than in the stamped source.
        var soundLater = false
        /// Pictures in the stamped source.
        var frames = 75
    }

    static let keepNegative = ["-avoid_negative_ts", "disabled"]
    static let shapes = [
        Shape(description: "Matroska, video only, from -1 s", ext: "mkv", remux: ["-output_ts_offset", "-1"] + keepNegative),
        Shape(description: "Matroska, video only, from -0.5 s", ext: "mkv", remux: ["-output_ts_offset", "-0.5"] + keepNegative),
        Shape(description: "Matroska, video only, from 0.5 s", ext: "mkv", remux: ["-output_ts_offset", "0.5"]),
        Shape(description: "Matroska, pictures from -1 s, sound from 0", ext: "mkv", remux: ["-output_ts_offset", "-1"] + keepNegative,
              soundLater: true),
        // More untimed pictures than the decoding side holds waiting for a timed one (120).
        Shape(description: "Matroska, video only, 200 pictures from -5 s", ext: "mkv", remux: ["-output_ts_offset", "-5"] + keepNegative,
              frames: 200),
        Shape(description: "MP4, video only, from -1 s (edit list)", ext: "mp4", remux: ["-output_ts_offset", "-1"]),
        Shape(description: "MOV, video only, from -0.5 s (edit list)", ext: "mov", remux: ["-output_ts_offset", "-0.5"] + keepNegative),
        Shape(description: "MPEG-TS, video only, from -1 s", ext: "ts", remux: ["-output_ts_offset", "-1"]),
    ]

    /// `frames` frame-stamped 160x120 25 fps H.264 pictures with B-frames (their timestamps lie below the
    /// first picture's in Matroska), with 48 kHz sound bursting at frame `marker` where asked.
    static func makeStamped(_ path: String, sound: Bool, frames: Int) throws {
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast", "bf": "2", "x264-params": "b-adapt=0"]
        let s = try FrameSource(path: path, video: v, audio: sound ? GeneratedAudioFormat() : nil)
        let burst = Double(marker) / 25
        var samplesDone = 0
        for i in 0..<frames {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            guard sound else { continue }
            let until = (i + 1) * 48000 / 25
            try s.appendAudio(count: until - samplesDone) { _, n in
                let t = Double(n) / 48000
                return t >= burst && t < burst + 0.08 ? Float(0.5 * sin(2 * Double.pi * 1000 * (t - burst))) : 0
            }
            samplesDone = until
        }
        try s.finish()
    }

    /// `shape`'s source in `dir`, with the stamped source it was made from.
    static func source(_ shape: Shape, in dir: Scratch) throws -> (path: String, stamped: String) {
        let stamped = dir.file("stamped.mp4")
        try makeStamped(stamped, sound: shape.soundLater, frames: shape.frames)
        let path = dir.file("source.\(shape.ext)")
        let inputs = shape.soundLater
            ? ["-i", stamped, "-itsoffset", "1", "-i", stamped, "-map", "0:v", "-map", "1:a"]
            : ["-i", stamped, "-map", "0:v"]
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error"] + inputs + ["-c", "copy"] + shape.remux + [path])
        try #require(r.status == 0, "\(r.stderr)")
        return (path, stamped)
    }

    /// How many pictures ffprobe decodes from `file` (what the file shows: an edit list hides some).
    static func shownCount(_ file: String) throws -> Int {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                          "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
        // A transport stream lists the stream again under its program.
        let first = r.stdout.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
        return try #require(first.flatMap { Int($0) }, "ffprobe: '\(r.stdout)'")
    }

    static func recipe(output: String, sound: Bool, frameRate: String? = nil, session: String = "") -> String {
        let rate = frameRate.map { ", frame-rate: \($0)" } ?? ""
        return """
            recipe: 1
            output: "\(output)"
            \(session)reader:
              outputs:
                picture: { track: video }
            \(sound ? "    sound: { track: audio }\n" : "")writer:
              inputs:
                - { source: picture, settings: { codec: h264\(rate), codec-options: { preset: ultrafast } } }
            \(sound ? "    - { source: sound, settings: { codec: aac } }\n" : "")
            """
    }

    /// Converts `src` by `recipe` into out.mp4 in `dir`.
    static func run(_ recipe: String, on src: String, in dir: Scratch) throws -> String {
        let path = dir.file("r.yaml")
        try recipe.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", src, "--quiet", "--overwrite"], timeLimit: 300, cwd: dir.path)
        try #require(r.status == 0, "\(r.stderr)")
        return dir.file("out.mp4")
    }

    /// Seconds from the marked picture to the burst, in `path`.
    static func avOffset(_ path: String) throws -> Double {
        let shown = try #require(try CompositionRunCLITests.stamps(path).first { $0.stamp == marker }, "frame \(marker) in \(path)")
        let burst = try #require(try CompositionRunCLITests.burstOnsets(path).first, "the burst in \(path)")
        return burst - shown.pts.seconds
    }

    @Test("source timing: every picture the source shows once, in order, at its time from the file's start; the sound as far from the pictures as in the source",
          arguments: shapes)
    func sourceTiming(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, stamped) = try Self.source(shape, in: dir)
        // The pictures hidden (an edit list's) are the first ones: the source shows the last n,
        // its first from the file's start (the pictures start it, or the sound a second later).
        let n = try Self.shownCount(src)
        try #require(n > 40, "\(shape): ffprobe decodes \(n) pictures")
        let got = try JoinDurationCLITests.shown(Self.run(Self.recipe(output: dir.file("out.mp4"), sound: shape.soundLater), on: src, in: dir))
        let want = (0..<n).map { k in
            JoinDurationCLITests.Shown(pts: Self.rate.frameDuration * Int64(k), duration: Self.rate.frameDuration, stamp: shape.frames - n + k)
        }
        JoinDurationCLITests.compare(got, want, "\(shape)")
        if shape.soundLater {
            let later = try Self.avOffset(dir.file("out.mp4"))
            let reference = try Self.avOffset(Self.run(Self.recipe(output: dir.file("out.mp4"), sound: true), on: stamped, in: dir))
            #expect(abs(later - (reference + 1)) < 0.01, "\(shape): burst \(later) s after its picture, \(reference + 1) s expected")
        }
    }

    @Test("at 25 fps: every slot shows its own source picture, from the first one the source shows", arguments: [shapes[0], shapes[3]])
    func constantRate(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, _) = try Self.source(shape, in: dir)
        let got = try JoinDurationCLITests.shown(Self.run(Self.recipe(output: dir.file("out.mp4"), sound: shape.soundLater, frameRate: "25"),
                                                          on: src, in: dir))
        let want = (0..<Self.frames).map { k in
            JoinDurationCLITests.Shown(pts: Self.rate.frameDuration * Int64(k), duration: Self.rate.frameDuration, stamp: k)
        }
        JoinDurationCLITests.compare(got, want, "\(shape) at 25 fps")
    }

    @Test("a trim from 0.2 s (among the untimed pictures) to 1.2 s: source pictures 5 to 29, one frame apart from 0",
          arguments: [shapes[0], shapes[1]])
    func trim(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, _) = try Self.source(shape, in: dir)
        let session = "session:\n  time-range: { start: 0.2, end: 1.2 }\n"
        let got = try JoinDurationCLITests.shown(Self.run(Self.recipe(output: dir.file("out.mp4"), sound: false, session: session),
                                                          on: src, in: dir))
        let want = (0..<25).map { k in
            JoinDurationCLITests.Shown(pts: Self.rate.frameDuration * Int64(k), duration: Self.rate.frameDuration, stamp: 5 + k)
        }
        JoinDurationCLITests.compare(got, want, "\(shape) from 0.2 s to 1.2 s")
    }
}
