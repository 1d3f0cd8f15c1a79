import Foundation
import Pipeline
import Recipe
import Testing

/// Full encodes of cut-outs and trims of sources whose samples state less than the time to the
/// next picture: a MOV at 1/600 and an MP4 at 1/60 whose every sample states 1 tick (a fragment
/// per picture: the tfdt places it, the trun states its length), a Matroska file at 1/1000 and
/// 24000/1001 fps (its DefaultDuration cut to whole milliseconds, its pictures 41 or 42 ms apart),
/// and the corpus's fragmented Big Buck Bunny (1920 ticks stated, 2400 apart). A picture lasts
/// until the next one: a segment's last picture reaches its end, so a join adds no black or
/// repeated frame, a trim's last picture is a whole frame long, and a constant-rate trim keeps
/// the file's last picture.
@Suite("Cut-outs and trims of sources stating short sample lengths: no extra frame at a join, every frame its length", .serialized)
struct JoinDurationCLITests {
    /// A source shape: its container, rate and time base, and how its samples' lengths are restated.
    struct Shape: CustomStringConvertible {
        let description: String
        let ext: String
        let rate: FrameRate
        /// The time base the file is written in.
        let timescale: Int32
        let frames: Int
        /// ffmpeg's arguments (besides copying) that rewrite the stamped file as the shape's muxer
        /// writes it.
        let restate: [String]
        /// Whether every sample then states 1 tick.
        var statesOneTick: Bool { restate.contains("setts=duration=1") }
    }

    static let shapes = [
        Shape(description: "MOV 1/600 30 fps, 1-tick samples", ext: "mov", rate: FrameRate(frames: 30), timescale: 600, frames: 150,
              restate: oneTickFragments(timescale: 600)),
        // ffmpeg's Matroska muxer states each picture's DefaultDuration, in whole milliseconds.
        Shape(description: "Matroska 1/1000 24000/1001 fps, 41 ms stated", ext: "mkv", rate: FrameRate(frames: 24000, seconds: 1001),
              timescale: 1000, frames: 120, restate: []),
        Shape(description: "MP4 1/60 30 fps, 1-tick samples", ext: "mp4", rate: FrameRate(frames: 30), timescale: 60, frames: 150,
              restate: oneTickFragments(timescale: 60)),
    ]

    /// Every sample rewritten to state 1 tick, each picture its own fragment (its tfdt keeps
    /// the picture's time).
    static func oneTickFragments(timescale: Int) -> [String] {
        ["-bsf:v", "setts=duration=1", "-video_track_timescale", "\(timescale)",
         "-movflags", "+frag_every_frame+empty_moov+default_base_moof"]
    }

    /// A picture of the output: its time and length (ffprobe's packets, in seconds as exact
    /// fractions of the stream's time base) and the source frame it shows.
    struct Shown: Equatable, CustomStringConvertible {
        let pts: MediaTime
        let duration: MediaTime
        let stamp: Int?
        var description: String { "\(stamp.map(String.init) ?? "none") at \(pts.secondsDescription) for \(duration.secondsDescription)" }
    }

    /// Makes `shape`'s stamped source in `dir` and returns it with its pictures' times (source
    /// frame k at `times[k]`, in the file's time base), checked to state less than the time to
    /// the next picture somewhere (what this suite is about).
    static func source(_ shape: Shape, in dir: Scratch) throws -> (path: String, times: [Int64]) {
        let stamped = dir.file("stamped.\(shape.ext)")
        // Without B frames: a fragment per picture keeps no composition offsets.
        var format = GeneratedVideoFormat(width: 320, height: 180, frameRate: shape.rate)
        format.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: stamped, video: format, audio: nil)
        for i in 0..<shape.frames {
            try s.appendPicture(at: shape.rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        }
        try s.finish()
        let path = dir.file("source.\(shape.ext)")
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", stamped, "-map", "0", "-c", "copy"] + shape.restate + [path])
        try #require(r.status == 0, "\(r.stderr)")
        let packets = try probe(path)
        try #require(packets.timeBase == (1, shape.timescale), "\(shape): time base \(packets.timeBase)")
        try #require(packets.list.count == shape.frames, "\(shape): \(packets.list.count) pictures")
        let times = packets.list.map(\.pts)
        var understated = 0
        for (p, next) in zip(packets.list, times.dropFirst()) where p.duration < next - p.pts { understated += 1 }
        try #require(understated > 0, "\(shape): no sample states less than the time to the next")
        if shape.statesOneTick { try #require(packets.list.allSatisfy { $0.duration == 1 }, "\(shape): not every sample states 1 tick") }
        return (path, times)
    }

    /// ffprobe's view of the first video stream's packets, in presentation order.
    static func probe(_ file: String) throws -> (timeBase: (num: Int32, den: Int32), list: [(pts: Int64, duration: Int64)]) {
        let tb = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base",
                                                           "-of", "csv=p=0", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = tb.split(separator: "/").compactMap { Int32($0) }
        try #require(parts.count == 2, "time base '\(tb)'")
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,duration",
                                                          "-of", "csv=p=0", file])
        try #require(r.status == 0, "\(r.stderr)")
        let list = r.stdout.split(separator: "\n").compactMap { line -> (Int64, Int64)? in
            let f = line.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count == 2, let pts = f[0], let d = f[1] else { return nil }
            return (pts, d)
        }
        return ((parts[0], parts[1]), list.sorted { $0.0 < $1.0 })
    }

    /// The output's pictures: ffprobe's times and lengths, with the stamp each decoded picture
    /// carries (checked to be at the same time).
    static func shown(_ file: String) throws -> [Shown] {
        let packets = try probe(file)
        let pictures = try CompositionRunCLITests.stamps(file)
        try #require(pictures.count == packets.list.count, "\(pictures.count) pictures decoded, \(packets.list.count) packets")
        return zip(packets.list, pictures).map { p, d in
            let pts = ticks(p.pts, packets.timeBase)
            #expect(d.pts == pts, "decoded at \(d.pts.secondsDescription), packet at \(pts.secondsDescription)")
            return Shown(pts: pts, duration: ticks(p.duration, packets.timeBase), stamp: d.stamp)
        }
    }

    /// `n` ticks of a time base.
    static func ticks(_ n: Int64, _ timeBase: (num: Int32, den: Int32)) -> MediaTime {
        MediaTime(value: n * Int64(timeBase.num), timescale: timeBase.den)
    }

    /// What source timing must give for `ranges` of source frames (each [first, end)) played one
    /// after the other from 0: each frame at its place, lasting until the next source frame.
    static func expected(_ ranges: [Range<Int>], times: [Int64], timescale: Int32) -> [Shown] {
        var out: [Shown] = []
        var at: Int64 = 0
        for r in ranges {
            for k in r {
                let length = times[k + 1] - times[k]
                out.append(Shown(pts: MediaTime(value: at, timescale: timescale), duration: MediaTime(value: length, timescale: timescale), stamp: k))
                at += length
            }
        }
        return out
    }

    /// Source frame k's time as a recipe time: an exact fraction of a second, from the source's
    /// start (its first picture).
    static func time(_ k: Int, _ times: [Int64], _ shape: Shape) -> String { "\(times[k] - times[0])/\(shape.timescale)" }

    static func recipe(_ body: String, output: String, settings: String = "{ codec: h264, codec-options: { preset: ultrafast } }") -> String {
        """
        recipe: 1
        output: "\(output)"
        \(body)
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: \(settings) }

        """
    }

    /// Runs `recipe` on `src`; the output's pictures.
    static func run(_ recipe: String, on src: String, in dir: Scratch) throws -> [Shown] {
        let path = dir.file("r.yaml")
        try recipe.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", path, "-i", src, "--quiet", "--overwrite"], timeLimit: 300, cwd: dir.path)
        try #require(r.status == 0, "\(r.stderr)")
        return try shown(dir.file("out.mp4"))
    }

    static func compare(_ got: [Shown], _ want: [Shown], _ what: String) {
        #expect(got.count == want.count, "\(what): \(got.count) frames, \(want.count) expected")
        for (k, (g, w)) in zip(got, want).enumerated() where g != w {
            Issue.record("\(what): output frame \(k) is \(g), expected \(w)")
        }
        if got.count > want.count { Issue.record("\(what): extra frames \(got[want.count...].map(\.description))") }
    }

    @Test("a cut-out (0–1 s, then 2–4 s): each source frame once, at its place, as long as the source shows it; no frame added at the join",
          arguments: shapes)
    func cutOut(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, times) = try Self.source(shape, in: dir)
        // Frame starts near 1 s, 2 s and 4 s (the file's own times: no snapping).
        let (a, b, c) = (Int(shape.rate.frames / shape.rate.seconds), 2 * Int(shape.rate.frames / shape.rate.seconds), 4 * Int(shape.rate.frames / shape.rate.seconds))
        let body = """
            composition:
              video:
                - { end: \(Self.time(a, times, shape)) }
                - { start: \(Self.time(b, times, shape)), end: \(Self.time(c, times, shape)) }
            """
        let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4")), on: src, in: dir)
        Self.compare(got, Self.expected([0..<a, b..<c], times: times, timescale: shape.timescale), "\(shape) cut-out")
    }

    @Test("a trim (time-range 1–3 s): each source frame once, as long as the source shows it, the last one too", arguments: shapes)
    func trim(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, times) = try Self.source(shape, in: dir)
        let fps = Int(shape.rate.frames / shape.rate.seconds)
        let body = """
            session:
              time-range: { start: \(Self.time(fps, times, shape)), end: \(Self.time(3 * fps, times, shape)) }
            """
        let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4")), on: src, in: dir)
        Self.compare(got, Self.expected([fps..<(3 * fps)], times: times, timescale: shape.timescale), "\(shape) trim")
    }

    @Test("at the source's rate, a trim to the file's end keeps its last picture, and a cut-out shows every slot's own source frame",
          arguments: shapes)
    func constantRate(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, times) = try Self.source(shape, in: dir)
        let fps = Int(shape.rate.frames / shape.rate.seconds)
        let rate = shape.rate.seconds == 1 ? "\(shape.rate.frames)" : "\(shape.rate.frames)/\(shape.rate.seconds)"
        let settings = "{ codec: h264, frame-rate: \(rate), codec-options: { preset: ultrafast } }"
        let cases: [(String, String, [Int])] = [
            ("trim to the end", "session:\n  time-range: { start: \(Self.time(fps, times, shape)) }", Array(fps..<shape.frames)),
            ("cut-out", """
                composition:
                  video:
                    - { end: \(Self.time(fps, times, shape)) }
                    - { start: \(Self.time(2 * fps, times, shape)), end: \(Self.time(4 * fps, times, shape)) }
                """, Array(0..<fps) + Array((2 * fps)..<(4 * fps))),
        ]
        for (what, body, frames) in cases {
            let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4"), settings: settings), on: src, in: dir)
            let want = frames.enumerated().map { k, f in
                Shown(pts: shape.rate.frameDuration * Int64(k), duration: shape.rate.frameDuration, stamp: f)
            }
            Self.compare(got, want, "\(shape) \(what) at \(rate) fps")
        }
    }

    /// How long the file's last picture lasts: the longer of what its sample states and the gap
    /// before it (nothing follows it to say).
    static func lastLength(_ src: String, times: [Int64]) throws -> Int64 {
        let last = try #require(try probe(src).list.last)
        return max(last.duration, times[times.count - 1] - times[times.count - 2])
    }

    @Test("a segment running to the file's end: its last picture lasts as long as the one before it (source timing), and keeps its slot (a constant rate)",
          arguments: shapes)
    func toFileEnd(_ shape: Shape) throws {
        let dir = Scratch()
        let (src, times) = try Self.source(shape, in: dir)
        let fps = Int(shape.rate.frames / shape.rate.seconds)
        let last = try Self.lastLength(src, times: times)
        // Source timing: each frame as long as the source shows it, the last one `last` long.
        func sourceTimed(_ ranges: [Range<Int>]) -> [Shown] {
            var ends = ranges
            ends[ends.count - 1] = ranges[ranges.count - 1].lowerBound..<(shape.frames - 1)
            var want = Self.expected(ends, times: times, timescale: shape.timescale)
            let at = want.last.map { $0.pts + $0.duration } ?? .zero
            want.append(Shown(pts: at, duration: MediaTime(value: last, timescale: shape.timescale), stamp: shape.frames - 1))
            return want
        }
        let cutOut = """
            composition:
              video:
                - { end: \(Self.time(fps, times, shape)) }
                - { start: \(Self.time(2 * fps, times, shape)) }
            """
        let trim = "session:\n  time-range: { start: \(Self.time(fps, times, shape)) }"
        for (what, body, ranges) in [("cut-out to the end", cutOut, [0..<fps, (2 * fps)..<shape.frames]),
                                     ("trim to the end", trim, [fps..<shape.frames])] {
            let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4")), on: src, in: dir)
            Self.compare(got, sourceTimed(ranges), "\(shape) \(what)")
        }
        let rate = shape.rate.seconds == 1 ? "\(shape.rate.frames)" : "\(shape.rate.frames)/\(shape.rate.seconds)"
        let settings = "{ codec: h264, frame-rate: \(rate), codec-options: { preset: ultrafast } }"
        let one = "composition:\n  video:\n    - { start: \(Self.time(fps, times, shape)) }"
        for (what, body, frames) in [("cut-out to the end", cutOut, Array(0..<fps) + Array((2 * fps)..<shape.frames)),
                                     ("one segment to the end", one, Array(fps..<shape.frames))] {
            let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4"), settings: settings), on: src, in: dir)
            let want = frames.enumerated().map { k, f in
                Shown(pts: shape.rate.frameDuration * Int64(k), duration: shape.rate.frameDuration, stamp: f)
            }
            Self.compare(got, want, "\(shape) \(what) at \(rate) fps")
        }
    }

    /// Interlaced sources whose every sample states 1 tick (`InterlacedCLITests.h264`'s 25 fps
    /// top-field-first H.264, rewritten a fragment per picture): a MOV at 1/600 (24 ticks apart)
    /// and an MP4 at 1/100 (4 apart).
    static let interlacedShapes = [(ext: "mov", timescale: 600), (ext: "mp4", timescale: 100)]

    /// Every output picture: its time and length (ffprobe's packets) and the field its kept rows
    /// carry (`InterlacedCLITests.pictures`: `parity` of picture n).
    static func fields(_ file: String, parity: (Int) -> Int) throws -> [(pts: MediaTime, duration: MediaTime, field: Int?)] {
        let packets = try probe(file)
        let pictures = try InterlacedCLITests.pictures(file, parity: parity)
        try #require(pictures.count == packets.list.count, "\(pictures.count) pictures decoded, \(packets.list.count) packets")
        return zip(packets.list, pictures).map { (ticks($0.pts, packets.timeBase), ticks($0.duration, packets.timeBase), $1.1) }
    }

    @Test("interlaced, 1-tick samples: a picture per field at 50 fps, each field once and its length, the last too; a trim to the end at 25 fps keeps its last frame",
          arguments: interlacedShapes.map(\.ext))
    func interlaced(_ ext: String) throws {
        let timescale = try #require(Self.interlacedShapes.first { $0.ext == ext }).timescale
        let dir = Scratch()
        let stamped = dir.file("stamped.mp4")
        try InterlacedCLITests.h264(stamped, order: .tt)
        let src = dir.file("source.\(ext)")
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", stamped, "-map", "0", "-c", "copy"] + Self.oneTickFragments(timescale: timescale) + [src])
        try #require(r.status == 0, "\(r.stderr)")
        let packets = try Self.probe(src)
        try #require(packets.timeBase == (1, Int32(timescale)) && packets.list.count == InterlacedCLITests.frames)
        try #require(packets.list.allSatisfy { $0.duration == 1 }, "not every sample states 1 tick")
        let n = InterlacedCLITests.frames
        let field = MediaTime(value: 1, timescale: 50), frame = MediaTime(value: 1, timescale: 25)
        // A picture per field: picture k keeps field k (the top rows for even k).
        let fieldRecipe = { (body: String) in
            Self.recipe(body, output: dir.file("out.mp4"), settings: "{ codec: h264, quality: 12, deinterlace: field-rate, codec-options: { preset: ultrafast } }")
        }
        for (what, body, kept) in [("whole", "", 0..<(2 * n)), ("trim 0.2–0.6 s", "session:\n  time-range: { start: 0.2s, end: 0.6s }", 10..<30),
                                   ("trim from 0.4 s", "session:\n  time-range: { start: 0.4s }", 20..<(2 * n))] {
            _ = try Self.run(fieldRecipe(body), on: src, in: dir)
            let got = try Self.fields(dir.file("out.mp4")) { k in (k + kept.lowerBound) % 2 }
            #expect(got.count == kept.count, "\(ext) field-rate \(what): \(got.count) pictures, \(kept.count) expected")
            for (k, g) in got.enumerated() where g.pts != field * Int64(k) || g.duration != field || g.field != kept.lowerBound + k {
                Issue.record("\(ext) field-rate \(what): picture \(k) at \(g.pts.secondsDescription) for \(g.duration.secondsDescription) shows field \(g.field.map(String.init) ?? "none"), expected \(kept.lowerBound + k)")
            }
        }
        // A picture per frame (its first field's rows): a trim to the end keeps the last frame, 1/25 s long.
        _ = try Self.run(Self.recipe("session:\n  time-range: { start: 0.4s }", output: dir.file("out.mp4"),
                                     settings: "{ codec: h264, quality: 12, codec-options: { preset: ultrafast } }"), on: src, in: dir)
        let got = try Self.fields(dir.file("out.mp4")) { _ in 0 }
        #expect(got.count == n - 10, "\(ext) frame-rate trim from 0.4 s: \(got.count) pictures, \(n - 10) expected")
        for (k, g) in got.enumerated() where g.pts != frame * Int64(k) || g.duration != frame || g.field != 2 * (10 + k) {
            Issue.record("\(ext) frame-rate trim from 0.4 s: picture \(k) at \(g.pts.secondsDescription) for \(g.duration.secondsDescription) shows field \(g.field.map(String.init) ?? "none"), expected \(2 * (10 + k))")
        }
    }

    @Test("corpus frag-buck-bunny.mp4 (1920 ticks stated, 2400 apart): a cut-out and a trim keep 1/24 s frames, each the source's own",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func corpusBuckBunny() throws {
        let src = (ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? "") + "/mediabunny/frag-buck-bunny.mp4"
        let packets = try Self.probe(src)
        try #require(packets.timeBase == (1, 57600) && packets.list.count == 120)
        try #require(packets.list.allSatisfy { $0.duration == 1920 }, "the file no longer states 1920 ticks")
        let source = try Self.lumas(src)
        let settings = "{ codec: h264, quality: 15, codec-options: { preset: ultrafast } }"
        let runs: [(String, String, [Int])] = [
            ("cut-out", "composition:\n  video:\n    - { end: 1s }\n    - { start: 2s, end: 4s }", Array(0..<24) + Array(48..<96)),
            ("trim", "session:\n  time-range: { start: 1s, end: 3s }", Array(24..<72)),
        ]
        for (what, body, frames) in runs {
            let dir = Scratch()
            let got = try Self.run(Self.recipe(body, output: dir.file("out.mp4"), settings: settings), on: src, in: dir)
            #expect(got.count == frames.count, "\(what): \(got.count) frames, \(frames.count) expected")
            for (k, g) in got.enumerated() {
                #expect(g.pts == MediaTime(value: Int64(k), timescale: 24) && g.duration == MediaTime(value: 1, timescale: 24),
                        "\(what): output frame \(k) at \(g.pts.secondsDescription) for \(g.duration.secondsDescription)")
            }
            // Which source frame each shows: none nearer than the one expected (a black or a
            // repeated frame at the join is nearer another, or none).
            let output = try Self.lumas(dir.file("out.mp4"))
            for (k, picture) in output.enumerated() where k < frames.count {
                let want = frames[k]
                let distance = Self.difference(picture, source[want])
                for other in max(0, want - 3)...min(source.count - 1, want + 3) where other != want {
                    #expect(distance <= Self.difference(picture, source[other]),
                            "\(what): output frame \(k) is nearer source frame \(other) than \(want)")
                }
                #expect(distance < 4, "\(what): output frame \(k) differs from source frame \(want) by \(distance) on average")
            }
        }
    }

    /// Every decoded picture's luma, in presentation order.
    static func lumas(_ file: String) throws -> [[UInt8]] {
        let r = try SampleReader(path: file, track: .type(.video, 0))
        var out: [[UInt8]] = []
        while let p = try r.nextPicture() { out.append(p.luma) }
        return out
    }

    /// The mean absolute difference of two pictures' luma.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0
        for i in a.indices { sum += abs(Int(a[i]) - Int(b[i])) }
        return Double(sum) / Double(a.count)
    }
}
