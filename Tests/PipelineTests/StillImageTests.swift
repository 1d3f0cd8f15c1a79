import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Still images of frame-stamped sources: each still shows the frame on display at its time
/// (`exact`) or the nearest sync sample (`keyframe`), read back from the decoded image; the time
/// reported is that frame's presentation time; nothing is decoded past it; the size keeps the
/// display aspect and rotation; a failure leaves nothing.
@Suite("Still images (AVAssetImageGenerator)")
struct StillImageTests {
    /// A source of `times.count` stamped frames (frame i at `times[i]`), and its sync samples.
    struct Source {
        let path: String
        let times: [MediaTime]
        let syncTimes: [MediaTime]
        /// Every packet's presentation time and whether it is a sync sample, in decode order.
        let decodeOrder: [(pts: MediaTime, isSync: Bool)]

        init(_ path: String, video: GeneratedVideoFormat, times: [MediaTime]) throws {
            try Media.make(path, video: video, frames: times.count, times: times)
            try self.init(existing: path, times: times)
        }

        /// A stamped source made already, frame i at `times[i]`.
        init(existing path: String, times: [MediaTime]) throws {
            self.path = path
            self.times = times
            let samples = try PacketScan.samples(path).values.first ?? []
            decodeOrder = samples.map { ($0.pts ?? .invalid, $0.isSync) }
            syncTimes = samples.filter(\.isSync).compactMap(\.pts).sorted()
        }

        /// The frame on display at `t` (from the file's start): the last starting at or before it.
        func frameShown(at t: MediaTime) -> Int { times.lastIndex { $0 <= t } ?? 0 }

        /// The sync sample nearest `t`, ties to the earlier.
        func nearestSync(to t: MediaTime) -> MediaTime {
            syncTimes.min { a, b in
                let da = a > t ? a - t : t - a, db = b > t ? b - t : t - b
                return da < db || (da == db && a < b)
            }!
        }
    }

    static func plan(_ source: Source, _ times: [String], tolerance: StillTolerance = .exact, box: (Int, Int)? = nil,
                     pattern: String) throws -> StillPlan {
        var r = StillRequest(source: source.path, times: .at(times.map { StillTime($0)! }))
        r.tolerance = tolerance
        r.box = box.map { (width: $0.0, height: $0.1) }
        r.pattern = pattern
        return try StillPlanner.plan(r)
    }

    /// The stamp of a still; `quarterTurned`: the still shows a source turned 90° clockwise, read
    /// back turned the other way (stored (x, y) is shown at column w − 1 − y, row x).
    static func stamp(_ file: String, quarterTurned: Bool = false) throws -> (stamp: Int?, width: Int, height: Int) {
        let r = try SampleReader(path: file, track: .type(.video, 0))
        guard let p = try r.nextPicture() else { return (nil, 0, 0) }
        guard quarterTurned else { return (p.stamp, p.width, p.height) }
        let (w, h) = (p.width, p.height)
        var stored = [UInt8](repeating: 0, count: w * h)
        for y in 0..<w { for x in 0..<h { stored[y * h + x] = p.luma[x * w + (w - 1 - y)] } }
        let s = stored.withUnsafeBufferPointer { TestPattern.read(luma: $0, width: h, height: w, lineSize: h) }
        return (s, w, h)
    }

    /// Every still of `plan`: its stamp is the frame it says it shows, at that frame's time, and
    /// that frame is the one on display at the instant (exact) or the nearest sync sample (keyframe).
    static func checkStills(_ plan: StillPlan, _ source: Source, tolerance: StillTolerance, quarterTurned: Bool = false) throws {
        for s in plan.stills {
            let wanted: Int
            if tolerance == .keyframe {
                let k = source.nearestSync(to: s.requested)
                wanted = source.times.firstIndex(of: k)!
                #expect(s.isKeyframe == (wanted != source.frameShown(at: s.requested)), "still \(s.number)")
            } else {
                wanted = source.frameShown(at: s.requested)
                #expect(!s.isKeyframe, "still \(s.number)")
            }
            #expect(s.shown == source.times[wanted], "still \(s.number) at \(s.asked): reported \(s.shown), frame \(wanted) is at \(source.times[wanted])")
            let read = try stamp(s.path, quarterTurned: quarterTurned)
            #expect(read.stamp == wanted, "still \(s.number) at \(s.asked) shows frame \(read.stamp.map(String.init) ?? "none"), want \(wanted)")
        }
    }

    /// Packets decoded for one still: from its sync sample up to its frame in decode order, at most.
    static func packetsUpTo(_ shown: MediaTime, from sync: MediaTime, in source: Source) -> Int {
        let start = source.decodeOrder.firstIndex { $0.pts == sync }!
        let end = source.decodeOrder.firstIndex { $0.pts == shown }!
        return end - start + 1
    }

    @Test("120 fps with a pixel aspect of 4:3: exact stills show the frame on display, at its time; its end shows the last frame; --size keeps the display aspect")
    func highRate() throws {
        let dir = Scratch()
        var v = GeneratedVideoFormat(width: 240, height: 180, frameRate: FrameRate(frames: 120))
        v.gop = 48
        v.pixelAspect = Ratio(4, 3)
        let source = try Source(dir.file("hfr.mp4"), video: v, times: frameTimes(240, rate: FrameRate(frames: 120)))
        let times = ["0", "0.5s", "1.004s", "25%", "1.9999s", "100%", "00:00:01.0125"]
        let plan = try Self.plan(source, times, pattern: dir.file("s-{n}.png"))
        #expect(plan.stills.map(\.requested) == [.zero, MediaTime(value: 1, timescale: 2), MediaTime(value: 1004, timescale: 1000),
                                                   MediaTime(value: 1, timescale: 2), MediaTime(value: 19999, timescale: 10000),
                                                   MediaTime(value: 2, timescale: 1), MediaTime(value: 10125, timescale: 10000)])
        let stats = try ImageGenerator.run(plan)
        try Self.checkStills(plan, source, tolerance: .exact)
        // 240x180 at 4:3 is shown 320x180.
        #expect((plan.width, plan.height) == (320, 180))
        #expect(try Self.stamp(plan.stills[0].path).width == 320)
        // Nothing past a still's frame: at most the packets from its sync sample to it, per group.
        let bound = Dictionary(grouping: plan.stills, by: \.decodeFrom).values.map { group in
            group.map { Self.packetsUpTo($0.shown, from: $0.decodeFrom, in: source) }.max()!
        }.reduce(0, +)
        #expect(stats.packetsDecoded <= bound && stats.packetsDecoded > 0, "\(stats)")

        let boxed = try Self.plan(source, ["1s"], box: (100, 100), pattern: dir.file("b-{n}.jpg"))
        try ImageGenerator.run(boxed)
        #expect((boxed.width, boxed.height) == (100, 56), "16:9 inside 100x100")
        let probed = try FFprobe.stream(boxed.stills[0].path, "v:0", "width,height")
        if let probed { #expect(probed["width"] == "100" && probed["height"] == "56") }
        #expect(try Self.stamp(boxed.stills[0].path).stamp == 120)
        // Never upscaled: a box larger than the picture gives the display size.
        let large = try Self.plan(source, ["1s"], box: (1920, 1080), pattern: dir.file("l-{n}.jpg"))
        #expect((large.width, large.height) == (320, 180))
    }

    @Test("29.97 fps turned 90°: stills are upright at the display size (180x320, or fitted in a box), each the frame on display or the nearest keyframe")
    func rotated() throws {
        let dir = Scratch()
        let rate = FrameRate(frames: 30000, seconds: 1001)
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: rate)
        v.gop = 15
        v.rotation = 90
        let source = try Source(dir.file("portrait.mp4"), video: v, times: frameTimes(90, rate: rate))
        let times = ["0.1s", "1.5s", "50%", "2.9s"]
        let exact = try Self.plan(source, times, pattern: dir.file("e-{n}.jpg"))
        try ImageGenerator.run(exact)
        #expect((exact.width, exact.height) == (180, 320))
        try Self.checkStills(exact, source, tolerance: .exact, quarterTurned: true)

        let keyframes = try Self.plan(source, times, tolerance: .keyframe, box: (160, 160), pattern: dir.file("k-{n}.png"))
        let stats = try ImageGenerator.run(keyframes)
        #expect((keyframes.width, keyframes.height) == (90, 160), "portrait inside 160x160")
        try Self.checkStills(keyframes, source, tolerance: .keyframe, quarterTurned: true)
        #expect(keyframes.stills.contains { $0.isKeyframe })
        // A keyframe still decodes its sync sample alone.
        #expect(stats.packetsDecoded == Set(keyframes.stills.map(\.shown)).count, "\(stats)")
    }

    @Test("variable rate (frames of 1/30, 1/10 and 1/5 s): the frame on display at each instant, and the reported time is its own")
    func variableRate() throws {
        let dir = Scratch()
        var times: [MediaTime] = []
        var t = MediaTime.zero
        let lengths = [MediaTime(value: 1, timescale: 30), MediaTime(value: 1, timescale: 10), MediaTime(value: 1, timescale: 5)]
        for i in 0..<60 { times.append(t); t = t + lengths[(i / 7) % 3] }
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30))
        v.timescale = 90000
        v.gop = 20
        let source = try Source(dir.file("vfr.mp4"), video: v, times: times)
        let asked = [times[9], times[15] + MediaTime(value: 1, timescale: 20), times[40] - MediaTime(value: 1, timescale: 1000), times[59]]
        let plan = try Self.plan(source, asked.map { "\($0.value)/\($0.timescale)" }, pattern: dir.file("v-{n}.jpg"))
        try ImageGenerator.run(plan)
        try Self.checkStills(plan, source, tolerance: .exact)
        #expect(plan.stills.map(\.shown) == [times[9], times[15], times[39], times[59]])

        let window = try Self.plan(source, ["0.9s"], tolerance: .window(before: .zero, after: MediaTime(value: 5, timescale: 1)), pattern: dir.file("w-{n}.jpg"))
        let after = source.syncTimes.first { $0 >= MediaTime(value: 9, timescale: 10) }!
        #expect(window.stills[0].shown == after && window.stills[0].isKeyframe, "only a later sync sample is within 0s before, 5s after")
    }

    @Test("Matroska with a B-frame pyramid: exact stills on B-frames show the frame on display, decoded no further than it; keyframe stills the nearest sync sample")
    func matroskaPyramid() throws {
        let dir = Scratch()
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 25))
        v.gop = 24
        v.codecOptions = ["preset": "ultrafast", "bf": "3", "b-pyramid": "normal", "x264-params": "b-adapt=0:scenecut=0"]
        let source = try Source(dir.file("pyramid.mkv"), video: v, times: frameTimes(100, rate: FrameRate(frames: 25)))
        #expect(source.decodeOrder.map(\.pts) != source.decodeOrder.map(\.pts).sorted(), "the source reorders its pictures")
        let times = ["0.46s", "1.3s", "2.02s", "3.5s", "3.96s"]
        let exact = try Self.plan(source, times, pattern: dir.file("e-{n}.png"))
        let stats = try ImageGenerator.run(exact)
        try Self.checkStills(exact, source, tolerance: .exact)
        let bound = Dictionary(grouping: exact.stills, by: \.decodeFrom).values.map { group in
            group.map { Self.packetsUpTo($0.shown, from: $0.decodeFrom, in: source) }.max()!
        }.reduce(0, +)
        #expect(stats.packetsDecoded <= bound, "\(stats)")
        #expect(stats.decodedFrom == [0, 24, 48, 72, 96].map { MediaTime(value: $0, timescale: 25) }, "each still's GOP, from its sync sample")

        let keyframes = try Self.plan(source, times, tolerance: .keyframe, pattern: dir.file("k-{n}.jpg"))
        try ImageGenerator.run(keyframes)
        try Self.checkStills(keyframes, source, tolerance: .keyframe)
    }

    @Test("contact sheet and storyboard: one picture, each tile the frame on display at its still's time, the tile left over black; the WebVTT cues cover the source, each pointing at its tile")
    func sheetAndStoryboard() throws {
        let dir = Scratch()
        let source = try Source(dir.file("clip.mp4"), video: GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 25)),
                                times: frameTimes(125, rate: FrameRate(frames: 25)))
        var r = StillRequest(source: source.path, times: .every(MediaTime(value: 1, timescale: 1)))
        r.box = (160, 160)
        r.tiles = (3, 2)
        r.storyboard = true
        r.pattern = dir.file("board/{stem}.png")
        let plan = try StillPlanner.plan(r)
        try ImageGenerator.run(plan)
        #expect(plan.sheet?.path == dir.file("board/clip.png") && plan.sheet?.webVTT == dir.file("board/clip.vtt"))
        #expect(plan.stills.map(\.path) == Array(repeating: dir.file("board/clip.png"), count: 5))
        let sheet = try #require(try SampleReader(path: dir.file("board/clip.png"), track: .type(.video, 0)).nextPicture())
        #expect((sheet.width, sheet.height) == (480, 180), "3x2 tiles of 160x90")
        for (i, still) in plan.stills.enumerated() {
            let tile = try #require(still.tile)
            #expect((tile.x, tile.y, tile.width, tile.height) == (160 * (i % 3), 90 * (i / 3), 160, 90))
            #expect(sheet.stamp(x: tile.x, y: tile.y, width: tile.width, height: tile.height) == 25 * i, "tile \(i)")
        }
        let empty = (90..<180).allSatisfy { y in (320..<480).allSatisfy { sheet.luma[y * 480 + $0] <= 20 } }
        #expect(empty, "the sixth tile is black")
        let vtt = try String(contentsOfFile: dir.file("board/clip.vtt"), encoding: .utf8)
        #expect(vtt == """
            WEBVTT

            00:00:00.000 --> 00:00:01.000
            clip.png#xywh=0,0,160,90

            00:00:01.000 --> 00:00:02.000
            clip.png#xywh=160,0,160,90

            00:00:02.000 --> 00:00:03.000
            clip.png#xywh=320,0,160,90

            00:00:03.000 --> 00:00:04.000
            clip.png#xywh=0,90,160,90

            00:00:04.000 --> 00:00:05.000
            clip.png#xywh=160,90,160,90

            """)
    }

    @Test("PNG of BT.709 and BT.601 sources: RGB by each picture's own matrix (Y'CbCr 128/128/200 is green 92 in BT.709, 72 in BT.601)")
    func pngMatrix() throws {
        let dir = Scratch()
        for (matrix, green) in [("bt709", 92), ("smpte170m", 72)] {
            var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 25))
            v.colorMatrix = matrix
            let src = dir.file("\(matrix).mp4")
            let source = try FrameSource(path: src, video: v, audio: nil)
            for i in 0..<5 {
                try source.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                    p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 128)
                    p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, value: 128)
                    p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, value: 200)
                }
            }
            try source.finish()
            var r = StillRequest(source: src, times: .at([StillTime("0.1s")!]))
            r.pattern = dir.file("\(matrix).png")
            try ImageGenerator.run(try StillPlanner.plan(r))
            let ours = try #require(try Self.rgb(dir.file("\(matrix).png"), x: 32, y: 32))
            #expect(abs(ours.g - green) <= 2 && ours.r >= 240 && ours.b >= 125 && ours.b <= 135, "\(matrix): \(ours)")
        }
    }

    /// The RGB of one pixel of an image, decoded by the ffmpeg command line.
    static func rgb(_ image: String, x: Int, y: Int) throws -> (r: Int, g: Int, b: Int)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", image, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let width = 64, at = (y * width + x) * 3
        guard p.terminationStatus == 0, data.count > at + 2 else { return nil }
        return (Int(data[at]), Int(data[at + 1]), Int(data[at + 2]))
    }

    @Test("PQ HDR: the still is tone-mapped to SDR as a conversion is — 100 cd/m² grey at its BT.1886 code, in JPEG's full range")
    func hdrToneMapped() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4")
        // Code 509 is 99.9 cd/m² in PQ: 179.0 in limited range after tone mapping (HDRTests), so
        // (179.0 − 16) · 255/219 = 189.8 in full range. Not mapped, it would be about 129.
        try HDRMedia.make(src, transfer: "smpte2084", left: 509, right: 509, mastering: HDRMedia.mastering, light: HDRMedia.light)
        var r = StillRequest(source: src, times: .at([StillTime("0.1s")!]))
        r.pattern = dir.file("hdr.jpg")
        let plan = try StillPlanner.plan(r)
        #expect(plan.toneMapping?.transfer == .pq && plan.toneMapping?.peakLuminance == 1000)
        try ImageGenerator.run(plan)
        let planes = try #require(try SampleReader(path: dir.file("hdr.jpg"), track: .type(.video, 0)).nextPlanes())
        let grey = planes.mean(planes.y, x: 16, y: 16, width: 32, height: 32, planeWidth: planes.width)
        #expect(abs(grey - 189.8) <= 2.5, "100 cd/m² grey: \(grey)")
    }

    @Test("a still that cannot be written after others were: none is left, nor the folders the run made")
    func allOrNone() throws {
        let dir = Scratch()
        let source = try Source(dir.file("a.mp4"), video: GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 25)),
                                times: frameTimes(50, rate: FrameRate(frames: 25)))
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: false)
        let plan = try Self.plan(source, ["0.2s", "0.4s", "1s"], pattern: dir.file("d/{n}/still.jpg"))
        // After the plan, the third still's folder becomes a file.
        _ = FileManager.default.createFile(atPath: dir.file("d/3"), contents: Data())
        do throws(MediaError) {
            try ImageGenerator.run(plan)
            Issue.record("the run did not fail")
        } catch {
            #expect(error.kind == .cannotCreateOutput && error.file == dir.file("d/3/still.jpg"), "\(error)")
            #expect(error.message == "cannot create the still: Not a directory")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("d")) == ["3"])
    }
}
