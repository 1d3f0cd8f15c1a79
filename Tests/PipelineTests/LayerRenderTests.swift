import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Video layers drawn into the output, checked by the code values each output frame holds: a
/// cross-fade's mix frame by frame (with handles from the files, and edge pictures held where
/// the files have none), a picture in the picture at its rectangle, an opacity over black, a
/// turned source upright; the timeline's length unchanged.
@Suite("Compositions: drawing video layers", .serialized)
struct LayerRenderTests {
    static let rate = FrameRate(frames: 30)

    static func video(_ codecOptions: [String: String] = ["preset": "ultrafast"]) -> TrackRequest {
        TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, quality: 1, codecOptions: codecOptions)))
    }

    /// `frames` pictures of one colour (Y', Cb, Cr code values), `width`×`height`.
    static func solid(_ path: String, _ ycc: [Int], frames: Int, width: Int = 64, height: Int = 64, rotation: Int = 0,
                      draw: ((borrowing PictureBuffer) -> Void)? = nil) throws {
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        v.quality = 1
        v.rotation = rotation
        let s = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<frames {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: width, height: height, value: ycc[0])
                p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: ycc[1])
                p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: ycc[2])
                draw?(p)
            }
        }
        try s.finish()
    }

    /// Stamped pictures (`TestPattern`), frame i carrying `first + i`.
    static func stamped(_ path: String, frames: Int, width: Int, height: Int, first: Int = 0) throws {
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        v.quality = 1
        let s = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<frames {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: first + i, into: $0) }
        }
        try s.finish()
    }

    static func planes(_ path: String) throws -> [DecodedPlanes] {
        let reader = try SampleReader(path: path, track: .type(.video, 0))
        var out: [DecodedPlanes] = []
        while let p = try reader.nextPlanes() { out.append(p) }
        return out
    }

    /// The mean Y', Cb, Cr of a picture's middle quarter.
    static func middle(_ p: DecodedPlanes) -> [Double] {
        [p.mean(p.y, x: p.width / 4, y: p.height / 4, width: p.width / 2, height: p.height / 2, planeWidth: p.width),
         p.mean(p.cb, x: p.chromaWidth / 4, y: p.chromaHeight / 4, width: p.chromaWidth / 2, height: p.chromaHeight / 2, planeWidth: p.chromaWidth),
         p.mean(p.cr, x: p.chromaWidth / 4, y: p.chromaHeight / 4, width: p.chromaWidth / 2, height: p.chromaHeight / 2, planeWidth: p.chromaWidth)]
    }

    static func crossFaded(_ second: SegmentRequest, seconds: Int64 = 1) -> SegmentRequest {
        var s = second
        s.transition = Transition(kind: .crossFade, duration: MediaTime(seconds: seconds))
        return s
    }

    @Test("a 1 s cross-fade from red to blue: every frame the linear mix of its time (±2 code values in Y', Cb, Cr), the midpoint 50/50, the first and last frames of the fade pure; 4 s, 120 frames")
    func redToBlue() throws {
        let dir = Scratch()
        let red = dir.file("red.mp4"), blue = dir.file("blue.mp4"), out = dir.file("out.mp4")
        let r = Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false)
        let b = Frame.components(of: RecipeColor("#0000FF")!, depth: 8, fullRange: false, sd: false)
        try Self.solid(red, r, frames: 60)
        try Self.solid(blue, b, frames: 60)
        var req = ConversionRequest(source: red, output: out, tracks: [Self.video()])
        req.sources = [blue]
        req.timeline = [SegmentRequest(source: 0), Self.crossFaded(SegmentRequest(source: 1))]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()])
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 4))
        try ExportSession(plan: plan).run()
        let frames = try Self.planes(out)
        #expect(frames.count == 120)
        #expect(frames.enumerated().allSatisfy { $0.element.pts == Self.rate.frameDuration * Int64($0.offset) }, "every frame at 1/30 s")
        var wrong: [String] = []
        for (k, f) in frames.enumerated() {
            let t = Double(k) / 30
            let x = min(1, max(0, t - 1.5))
            let expected = zip(r, b).map { Double($0) + (Double($1) - Double($0)) * x }
            let got = Self.middle(f)
            if zip(got, expected).contains(where: { abs($0 - $1) > 2 }) { wrong.append("frame \(k): \(got), expected \(expected)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(zip(Self.middle(frames[60]), [47.5, 171, 179]).allSatisfy { abs($0 - $1) <= 2 }, "the midpoint is the 50/50 mix")
        #expect(zip(Self.middle(frames[45]), r).allSatisfy { abs($0 - Double($1)) <= 2 } && zip(Self.middle(frames[75]), b).allSatisfy { abs($0 - Double($1)) <= 2 })
    }

    /// A stripe's shade in frame `i` of a `TestPattern` picture (stripe s: rows 8s … 8s+7 below the band).
    static func shade(stripe: Int, frame i: Int) -> Int { 48 + ((stripe * 37 + i * 11) % 160) }

    @Test("a cross-fade's handles: the outgoing clip plays on past its range, the incoming one starts before it, from their files; where a file has no more, its edge picture is held", arguments: [true, false])
    func handles(_ fromFiles: Bool) throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        // With handles: 3 s files, A's first 2 s then B from 1 s. Without: 2 s files, each whole.
        try Self.stamped(a, frames: fromFiles ? 90 : 60, width: 128, height: 96)
        try Self.stamped(b, frames: fromFiles ? 90 : 60, width: 128, height: 96, first: 500)
        var first = SegmentRequest(source: 0)
        first.end = MediaTime(seconds: 2)
        var second = SegmentRequest(source: 1)
        if fromFiles { second.start = MediaTime(seconds: 1) }
        second.end = fromFiles ? MediaTime(seconds: 3) : nil
        var req = ConversionRequest(source: a, output: out, tracks: [Self.video()])
        req.sources = [b]
        req.timeline = [first, Self.crossFaded(second)]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()])
        try ExportSession(plan: try Planner.plan(req)).run()
        let frames = try Self.planes(out)
        #expect(frames.count == 120)
        var wrong: [String] = []
        for k in 45..<75 {
            let x = Double(k - 45) / 30
            // A shows its frame k (past 59 only when its file has it); B its frame k − 60 of its range.
            let ia = fromFiles ? k : min(k, 59)
            let ib = fromFiles ? 30 + (k - 60) : max(0, k - 60)
            let f = frames[k]
            // Stripes start below the stamp band, 8 rows each; a stripe's shade goes by its first row.
            let band = max(2, (f.height / 8) & ~1)
            for m in [2, 4, 7] {
                let top = band + 8 * m, row = top + 3
                let got = f.mean(f.y, x: 8, y: row, width: f.width - 16, height: 1, planeWidth: f.width)
                let expected = (1 - x) * Double(Self.shade(stripe: top / 8, frame: ia)) + x * Double(Self.shade(stripe: top / 8, frame: 500 + ib))
                if abs(got - expected) > 3 { wrong.append("frame \(k) row \(row): \(got), expected \(expected)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // Outside the fade each clip shows itself: its stamp.
        #expect(SampleReaderStamp.stamp(frames[44]) == 44 && SampleReaderStamp.stamp(frames[75]) == 500 + (fromFiles ? 45 : 15))
    }

    @Test("a picture in the picture at an odd rectangle: inside it the small clip's frame (its stamp), placed from 0.5 s for 1 s; the large clip's everywhere else; 2 s")
    func pictureInPicture() throws {
        let dir = Scratch()
        let main = dir.file("main.mp4"), inset = dir.file("inset.mp4"), out = dir.file("out.mp4")
        try Self.stamped(main, frames: 60, width: 320, height: 180)
        try Self.stamped(inset, frames: 60, width: 96, height: 64, first: 1000)
        var layer = SegmentRequest(source: 1)
        layer.list = .video
        layer.layer = 1
        layer.end = MediaTime(seconds: 1)
        layer.at = MediaTime(value: 1, timescale: 2)
        var style = VideoLayerStyle()
        style.rect = RecipeRect(x: .pixels(201), y: .pixels(101), width: .pixels(96), height: .pixels(64))
        var req = ConversionRequest(source: main, output: out, tracks: [Self.video()])
        req.sources = [inset]
        req.timeline = [SegmentRequest(source: 0), layer]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(), style])
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 2))
        try ExportSession(plan: plan).run()
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0, wrong: [String] = []
        while let p = try reader.nextPicture() {
            let big = p.stamp
            let small = p.stamp(x: 201, y: 101, width: 96, height: 64)
            let inside = k >= 15 && k < 45
            if big != k { wrong.append("frame \(k): the large clip shows \(big.map(String.init) ?? "no stamp")") }
            if inside && small != 1000 + (k - 15) { wrong.append("frame \(k): the rectangle shows \(small.map(String.init) ?? "no stamp"), expected \(1000 + k - 15)") }
            // (The large clip's stripes there read as some number, never one of the small clip's.)
            if !inside, let small, (1000..<1060).contains(small) { wrong.append("frame \(k): the small clip's frame \(small) outside its time") }
            k += 1
        }
        #expect(k == 60)
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a red picture at opacity 0.25 over black: Y', Cb, Cr = black + 0.25·(red − black) ±2")
    func opacityOverBlack() throws {
        let dir = Scratch()
        let red = dir.file("red.mp4"), out = dir.file("out.mp4")
        let r = Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false)
        try Self.solid(red, r, frames: 10)
        var req = ConversionRequest(source: red, output: out, tracks: [Self.video()])
        req.timeline = [SegmentRequest(source: 0)]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(opacity: Keyframes(constant: 0.25))])
        try ExportSession(plan: try Planner.plan(req)).run()
        let frames = try Self.planes(out)
        #expect(frames.count == 10)
        let expected = zip(r, [16, 128, 128]).map { Double($1) + 0.25 * Double($0 - $1) }
        for f in frames { #expect(zip(Self.middle(f), expected).allSatisfy { abs($0 - $1) <= 2 }, "\(Self.middle(f)) vs \(expected)") }
    }

    @Test("a source turned 90° (its display matrix) drawn in a landscape render: upright — what was its left is on top — pillarboxed on the background")
    func turnedUpright() throws {
        let dir = Scratch()
        let turned = dir.file("turned.mp4"), out = dir.file("out.mp4")
        // Stored 64×32: the left half white, the right half black; shown turned 90° clockwise (32×64).
        try Self.solid(turned, [16, 128, 128], frames: 5, width: 64, height: 32, rotation: 90) { p in
            p.fill(plane: 0, x: 0, y: 0, width: 32, height: 32, value: 235)
        }
        var req = ConversionRequest(source: turned, output: out, tracks: [Self.video()])
        req.timeline = [SegmentRequest(source: 0)]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()], renderSize: RenderSize(width: 128, height: 64), background: .white)
        try ExportSession(plan: try Planner.plan(req)).run()
        let frames = try Self.planes(out)
        #expect(frames.count == 5)
        let f = try #require(frames.first)
        #expect(f.width == 128 && f.height == 64)
        // The upright picture is 32×64 in the middle (x 48…79): white above, black below; white bars.
        let top = f.mean(f.y, x: 52, y: 4, width: 24, height: 24, planeWidth: f.width)
        let bottom = f.mean(f.y, x: 52, y: 36, width: 24, height: 24, planeWidth: f.width)
        let bars = [f.mean(f.y, x: 4, y: 4, width: 36, height: 56, planeWidth: f.width), f.mean(f.y, x: 88, y: 4, width: 36, height: 56, planeWidth: f.width)]
        #expect(abs(top - 235) <= 3 && abs(bottom - 16) <= 3, "top \(top), bottom \(bottom)")
        #expect(bars.allSatisfy { abs($0 - 235) <= 3 }, "bars \(bars)")
    }
}

extension LayerRenderTests {
    /// `seconds` of grey pictures (64×64, 30 fps) with a `hz` tone at −12 dBFS, 48 kHz.
    static func toned(_ path: String, hz: Double, seconds: Int) throws {
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        let amplitude = pow(10, -12.0 / 20)
        for i in 0..<(30 * seconds) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 120)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, value: 128)
            }
            try s.appendAudio(count: 1600) { _, n in Float(amplitude * sin(2 * Double.pi * hz * Double(n) / 48000)) }
        }
        try s.finish()
    }

    @Test("the sound follows the pictures' cross-fade: equal-power over 1.5–2.5 s, the summed level within 0.5 dB throughout, each clip's tone alone outside it (from the files' handles)")
    func soundCrossFades() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.toned(a, hz: 1000, seconds: 3)
        try Self.toned(b, hz: 1500, seconds: 3)
        var first = SegmentRequest(source: 0)
        first.end = MediaTime(seconds: 2)
        var second = SegmentRequest(source: 1)
        second.start = MediaTime(seconds: 1)
        var req = ConversionRequest(source: a, output: out, tracks: [Self.video(), TrackRequest(.type(.audio, 0), .audio(AudioSettings(bitrate: 256000)))])
        req.sources = [b]
        req.timeline = [first, Self.crossFaded(second)]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()])
        let plan = try Planner.plan(req)
        #expect(plan.audioMix?.crossFadeInput == 1)
        #expect(plan.audioMix?.volumes.map { $0?.ramps.map(\.curve) } == [[.equalPower], [.equalPower]])
        try ExportSession(plan: plan).run()
        let (x, rate) = try CompositionStretchTests.sound(out)
        // 4 s (the encoder's last frame is whole: up to 1023 samples more).
        #expect(x.count >= 4 * rate && x.count < 4 * rate + 1024, "\(x.count) samples")
        let steady = StretchSignal.rms(x[(rate / 4)..<(3 * rate / 4)])
        var t = 0.5
        while t < 3.5 {
            let i = Int(t * Double(rate))
            let level = StretchSignal.rms(x[i..<(i + rate / 50)])
            #expect(abs(20 * log10(level / steady)) < 0.5, "at \(t) s: \(20 * log10(level / steady)) dB")
            t += 0.05
        }
        // Inside it each tone at its equal-power weight: √(1 − x) and √x of its own level, x the
        // fade's fraction (20 ms windows: whole periods of both tones, so each is measured alone).
        func amplitude(_ hz: Double, at t: Double) -> Double {
            let n = rate / 50, a = Int(t * Double(rate)) - n / 2
            var c = 0.0, s = 0.0
            for i in 0..<n {
                let w = 2 * Double.pi * hz * Double(a + i) / Double(rate)
                c += Double(x[a + i]) * cos(w); s += Double(x[a + i]) * sin(w)
            }
            return 2 * (c * c + s * s).squareRoot() / Double(n)
        }
        let full = amplitude(1000, at: 1)
        for t in [1.6, 1.75, 2.0, 2.25, 2.4] {
            let f = t - 1.5
            #expect(abs(20 * log10(amplitude(1000, at: t) / (full * (1 - f).squareRoot()))) < 0.5, "1 kHz at \(t) s")
            #expect(abs(20 * log10(amplitude(1500, at: t) / (full * f.squareRoot()))) < 0.5, "1.5 kHz at \(t) s")
        }
        #expect(abs(StretchSignal.dominantFrequency(x[(rate + rate / 4)..<(rate + rate / 4 + 4800)], rate: rate) - 1000) < 10)
        #expect(abs(StretchSignal.dominantFrequency(x[(3 * rate)..<(3 * rate + 4800)], rate: rate) - 1500) < 10)
    }
}

extension LayerRenderTests {
    @Test("selective decode in a layer: a 120 fps layer (droppable B frames) in a 30 fps output decodes about a quarter of its pictures, and the output is the same with it off")
    func selectiveDecodeInALayer() throws {
        let dir = Scratch()
        let main = dir.file("main.mp4"), fast = dir.file("fast.mp4")
        try Self.stamped(main, frames: 30, width: 160, height: 96)
        let rate120 = FrameRate(frames: 120)
        let s = try FrameSource(path: fast, video: .droppableH264(width: 96, height: 64, frameRate: rate120), audio: nil)
        for i in 0..<120 { try s.appendPicture(at: rate120.frameDuration * Int64(i)) { TestPattern.draw(index: 2000 + i, into: $0) } }
        try s.finish()
        func run(_ selective: Bool) throws -> (stamps: [Int?], decoded: Int) {
            let out = dir.file("out-\(selective).mp4")
            var layer = SegmentRequest(source: 1)
            layer.list = .video
            layer.layer = 1
            var style = VideoLayerStyle()
            style.rect = RecipeRect(x: .pixels(32), y: .pixels(16), width: .pixels(96), height: .pixels(64))
            var settings = VideoSettings.fast(rate: FrameRate(frames: 30))
            settings.quality = 1
            var req = ConversionRequest(source: main, output: out, tracks: [TrackRequest(.type(.video, 0), .video(settings))])
            req.sources = [fast]
            req.timeline = [SegmentRequest(source: 0), layer]
            req.selectiveDecode = selective
            req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(), style])
            // One core to divide: the layer, opened beside the main clip, decodes on one thread.
            let result = try ExportSession(plan: try Planner.plan(req), decoderCores: 1).run()
            let reader = try SampleReader(path: out, track: .type(.video, 0))
            var stamps: [Int?] = []
            while let p = try reader.nextPicture() { stamps.append(p.stamp(x: 32, y: 16, width: 96, height: 64)) }
            return (stamps, result.lanes[0].framesDecoded)
        }
        let on = try run(true), off = try run(false)
        #expect(on.stamps == (0..<30).map { Optional(2000 + 4 * $0) }, "the layer shows every fourth frame")
        #expect(on.stamps == off.stamps)
        // The main clip's 30 frames are decoded either way; the layer's 120 only a quarter with it on.
        // Off, the layer decodes pictures 0–117: 117, the one after its last shown (116), ends it.
        // A frame-threaded decoder would also hand out the pictures it had in flight then, more
        // the more threads: all 120 with 8 cores to divide.
        #expect(off.decoded == 30 + 118, "decoded \(off.decoded)")
        // On, only its reference pictures (I B B B P …): the 30 it shows (0, 4, … 116) and 119, a
        // P picture as nothing follows it; none of its 89 B pictures.
        #expect(on.decoded == 30 + 31, "decoded \(on.decoded)")
    }
}

/// The stamp a `TestPattern` picture carries, from its decoded code values (limited range).
enum SampleReaderStamp {
    static func stamp(_ p: DecodedPlanes) -> Int? {
        let luma = p.y.map { UInt8(clamping: $0) }
        return luma.withUnsafeBufferPointer { TestPattern.read(luma: $0, width: p.width, height: p.height, lineSize: p.width) }
    }
}
