import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition's `fade-in`/`fade-out`: pictures from and to black, sound from and to silence,
/// at the times the fades say; the timeline's length unchanged.
@Suite("Compositions: fading in and out", .serialized)
struct CompositionFadeTests {
    /// A `format` picture of `width`×`height` with every sample of plane p set to `values[p]`.
    static func picture(_ format: AVPixelFormat, width: Int32, height: Int32, values: [Int], range: AVColorRange = AVCOL_RANGE_MPEG) throws -> Frame {
        let f = try Frame.video(width: width, height: height, format: format)
        f.pointer.pointee.color_range = range
        let d = av_pix_fmt_desc_get(format)!.pointee
        for p in 0..<3 {
            let w = Int(p > 0 ? -((-width) >> d.log2_chroma_w) : width), h = Int(p > 0 ? -((-height) >> d.log2_chroma_h) : height)
            for y in 0..<h {
                let row = f.plane(Int32(p))! + y * f.lineSize(Int32(p))
                if d.comp.0.depth > 8 {
                    let r = UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<w { r[x] = UInt16(values[p]) }
                } else {
                    for x in 0..<w { row[x] = UInt8(values[p]) }
                }
            }
        }
        return f
    }

    /// Every sample of plane p, as Ints.
    static func samples(_ f: Frame, plane p: Int) -> Set<Int> {
        let d = av_pix_fmt_desc_get(f.pixelFormat)!.pointee
        let w = Int(p > 0 ? -((-f.width) >> d.log2_chroma_w) : f.width), h = Int(p > 0 ? -((-f.height) >> d.log2_chroma_h) : f.height)
        var out = Set<Int>()
        for y in 0..<h {
            let row = f.plane(Int32(p))! + y * f.lineSize(Int32(p))
            for x in 0..<w {
                out.insert(d.comp.0.depth > 8 ? Int(UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)[x]) : Int(row[x]))
            }
        }
        return out
    }

    @Test("the fade kernel: 8-bit limited and full range, 10-bit, odd sizes; the picture faded is left as it was")
    func kernel() throws {
        // 8-bit limited: Y 180 → 16 + 164·a, chroma 200/60 → 128 ± 72·a.
        let p8 = try Self.picture(AV_PIX_FMT_YUV420P, width: 33, height: 17, values: [180, 200, 60])
        let half = try p8.faded(0.5)
        #expect(Self.samples(half, plane: 0) == [98] && Self.samples(half, plane: 1) == [164] && Self.samples(half, plane: 2) == [94])
        let black = try p8.faded(0), whole = try p8.faded(1)
        #expect(Self.samples(black, plane: 0) == [16] && Self.samples(black, plane: 1) == [128])
        #expect(Self.samples(whole, plane: 0) == [180])
        #expect(Self.samples(p8, plane: 0) == [180], "the source picture is untouched")
        // Full range (yuvj420p): black is Y 0.
        let j = try Self.picture(AV_PIX_FMT_YUVJ420P, width: 16, height: 16, values: [200, 128, 128], range: AVCOL_RANGE_JPEG)
        let quarter = try j.faded(0.25)
        #expect(Self.samples(quarter, plane: 0) == [50])
        // 10-bit: black Y 64, chroma 512.
        let p10 = try Self.picture(AV_PIX_FMT_YUV420P10LE, width: 21, height: 9, values: [940, 600, 400])
        let q = try p10.faded(0.25)
        #expect(Self.samples(q, plane: 0) == [283] && Self.samples(q, plane: 1) == [534] && Self.samples(q, plane: 2) == [484])
        // Not planar Y'CbCr: said, not guessed.
        #expect(throws: MediaError.self) { try Frame.video(width: 8, height: 8, format: AV_PIX_FMT_RGB24).faded(0.5) }
    }

    @Test("fade-in 1 s and fade-out 1 s of a 3 s clip: each picture's grey is the fade's value at its time (±3), the sound's level too (±1 dB); 3 s still")
    func fadesInTheOutput() throws {
        let dir = Scratch()
        let src = dir.file("grey.mp4"), out = dir.file("out.mp4")
        try Self.grey(src, y: 180, frames: 90)
        var req = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, quality: 1, codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings(bitrate: 256000))),
        ])
        req.timeline = [SegmentRequest(source: 0)]
        req.fade = (MediaTime(seconds: 1), MediaTime(seconds: 1))
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 3))
        try ExportSession(plan: plan).run()
        func amount(_ t: Double) -> Double { t < 1 ? t : t >= 2 ? 3 - t : 1 }
        func mean(_ p: DecodedPicture) -> Double { Double(p.luma.reduce(0) { $0 + Int($1) }) / Double(p.luma.count) }
        // The source's grey as this reader sees it (full range: black is 0).
        let grey = mean(try #require(try SampleReader(path: src, track: .type(.video, 0)).nextPicture()))
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0, wrong: [String] = []
        while let p = try reader.nextPicture() {
            let mean = mean(p)
            let expected = grey * amount(Double(k) / 30)
            if abs(mean - expected) > 3 { wrong.append("frame \(k): \(mean), expected \(expected)") }
            k += 1
        }
        #expect(k == 90)
        #expect(wrong.isEmpty, "\(wrong)")
        let (x, rate) = try CompositionStretchTests.sound(out)
        let steady = StretchSignal.rms(x[(rate + rate / 4)..<(rate + 3 * rate / 4)])
        for t in [0.25, 0.5, 0.75, 2.25, 2.5, 2.75] {
            let a = Int(t * Double(rate)) - rate / 100
            let level = StretchSignal.rms(x[a..<(a + rate / 50)])
            #expect(abs(20 * log10(level / (steady * amount(t)))) < 1, "at \(t) s: \(20 * log10(level / steady)) dB, expected \(20 * log10(amount(t)))")
        }
        #expect(abs(Double(x.count) / Double(rate) - 3) < 0.01)
    }

    @Test("a colour's Y'CbCr: red in BT.709 limited range is 63/102/240, white 235/128/128; a dip towards white ends on white")
    func colours() throws {
        #expect(Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false) == [63, 102, 240])
        #expect(Frame.components(of: .white, depth: 8, fullRange: false, sd: false) == [235, 128, 128])
        #expect(Frame.components(of: .white, depth: 10, fullRange: false, sd: false) == [940, 512, 512])
        // In an HDR (BT.2020) picture: its own matrix; white stays neutral.
        #expect(Frame.components(of: RecipeColor("#FF0000")!, depth: 10, fullRange: false, sd: false, bt2020: true) == [294, 387, 960])
        #expect(Frame.components(of: .white, depth: 10, fullRange: false, sd: false, bt2020: true) == [940, 512, 512])
        let p = try Self.picture(AV_PIX_FMT_YUV420P, width: 8, height: 8, values: [100, 90, 160])
        let white = try p.faded(0, toward: .white), half = try p.faded(0.5, toward: .white)
        #expect(Self.samples(white, plane: 0) == [235] && Self.samples(white, plane: 1) == [128] && Self.samples(half, plane: 0) == [167])
    }

    /// `frames` 30 fps pictures of luma `y` and a 1 kHz tone, 48 kHz.
    static func grey(_ path: String, y: Int, frames: Int) throws {
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        v.quality = 1
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        var done = 0
        for i in 0..<frames {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: y)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, value: 128)
            }
            let until = (i + 1) * 1600
            try s.appendAudio(count: until - done) { _, n in Float(0.5 * sin(2 * Double.pi * 1000 * Double(n) / 48000)) }
            done = until
        }
        try s.finish()
    }

    @Test("a 1 s dip through black between two clips: out over the half second before the cut, in over the half after, the sound with it; 4 s still")
    func dipThroughBlack() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4"), out = dir.file("out.mp4")
        try Self.grey(a, y: 180, frames: 60)
        try Self.grey(b, y: 100, frames: 60)
        var req = ConversionRequest(source: a, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, quality: 1, codecOptions: ["preset": "ultrafast"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings(bitrate: 256000))),
        ])
        req.sources = [b]
        var second = SegmentRequest(source: 1)
        second.transition = Transition(kind: .dip, duration: MediaTime(seconds: 1))
        req.timeline = [SegmentRequest(source: 0), second]
        let plan = try Planner.plan(req)
        #expect(plan.duration == MediaTime(seconds: 4))
        #expect(plan.pictureFades.map(\.name) == ["dip", "dip"])
        try ExportSession(plan: plan).run()
        func mean(_ p: DecodedPicture) -> Double { Double(p.luma.reduce(0) { $0 + Int($1) }) / Double(p.luma.count) }
        let greyA = mean(try #require(try SampleReader(path: a, track: .type(.video, 0)).nextPicture()))
        let greyB = mean(try #require(try SampleReader(path: b, track: .type(.video, 0)).nextPicture()))
        func amount(_ t: Double) -> Double { t < 1.5 || t >= 2.5 ? 1 : t < 2 ? (2 - t) * 2 : (t - 2) * 2 }
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0, wrong: [String] = []
        while let p = try reader.nextPicture() {
            let t = Double(k) / 30
            let expected = (t < 2 ? greyA : greyB) * amount(t)
            if abs(mean(p) - expected) > 3 { wrong.append("frame \(k): \(mean(p)), expected \(expected)") }
            k += 1
        }
        #expect(k == 120)
        #expect(wrong.isEmpty, "\(wrong)")
        let (x, rate) = try CompositionStretchTests.sound(out)
        let steady = StretchSignal.rms(x[(rate / 2)..<rate])
        for t in [1.75, 2.25] {
            let i = Int(t * Double(rate)) - rate / 100
            let level = StretchSignal.rms(x[i..<(i + rate / 50)])
            #expect(abs(20 * log10(level / steady) + 6.02) < 1, "at \(t) s: \(20 * log10(level / steady)) dB")
        }
    }

    @Test("a dip that overlaps the output's fade-in is refused, naming both")
    func overlappingFades() throws {
        #expect {
            _ = try PictureFade.plan(fadeIn: MediaTime(seconds: 2), fadeOut: nil, end: MediaTime(seconds: 10),
                                     cuts: [(2, MediaTime(seconds: 2), Transition(kind: .dip, duration: MediaTime(seconds: 1)))], file: "a.mp4")
        } throws: { error in
            (error as? MediaError)?.message == "the fade-in (0.000s to 2.000s) overlaps the dip into segment 2 (1.500s to 2.000s) on the timeline: shorten one"
                && (error as? MediaError)?.segment == SegmentField(2, .transition)
        }
    }

    @Test("a cross-fade into or out of a phone's slow motion is refused at its line (65) before any file is read")
    func crossFadeRefused() throws {
        let text = """
        recipe: 1
        output: out.mp4
        composition:
          video:
            - { end: 1s, slow-motion: from-source }
            - { start: 2s, transition: { kind: cross-fade, duration: 1s } }
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: h264-1280x720 }
        """
        let recipe = try RecipeParser.parse(text, file: "r.yaml").get()
        #expect {
            try RecipeCompiler.refuseUnsupportedComposition(recipe)
        } throws: { error in
            (error as? RecipeErrors)?.diagnostics.map(\.headline) == ["r.yaml:6:32: error: a cross-fade into segment 2 is not yet supported: segment 1 plays the phone's slow motion ('slow-motion: from-source'), whose pictures cannot be read past its range; use 'kind: dip' or a cut"]
        }
    }
}
