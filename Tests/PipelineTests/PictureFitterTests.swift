import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// Pictures of a composition drawn into one render frame: turned upright, fitted at their display
/// aspect, centred, black bars — checked on the pixels.
@Suite("Picture fitter: upright, fitted, centred, black bars")
struct PictureFitterTests {
    typealias Rect = (x: Int32, y: Int32, width: Int32, height: Int32)

    // MARK: Placement

    struct PlacementCase: CustomTestStringConvertible, Sendable {
        let source: (Int32, Int32), rotation: Int, aspect: Ratio, render: (Int32, Int32)
        let want: (Int32, Int32, Int32, Int32)
        var testDescription: String {
            "\(source.0)x\(source.1) \(rotation)° \(aspect) in \(render.0)x\(render.1) → \(want)"
        }
    }

    static let placements: [PlacementCase] = [
        // 4:3 in 16:9: pillarbox 960x720 at x=160.
        PlacementCase(source: (640, 480), rotation: 0, aspect: .square, render: (1280, 720), want: (160, 0, 960, 720)),
        // Same aspect: fills exactly.
        PlacementCase(source: (1920, 1080), rotation: 0, aspect: .square, render: (1280, 720), want: (0, 0, 1280, 720)),
        PlacementCase(source: (1920, 1080), rotation: 180, aspect: .square, render: (1280, 720), want: (0, 0, 1280, 720)),
        // Portrait: 720·1080/1920 = 405 → 406 (halves up); margin 874 → 436 left, 438 right.
        PlacementCase(source: (1080, 1920), rotation: 0, aspect: .square, render: (1280, 720), want: (436, 0, 406, 720)),
        PlacementCase(source: (1920, 1080), rotation: 90, aspect: .square, render: (1280, 720), want: (436, 0, 406, 720)),
        PlacementCase(source: (1920, 1080), rotation: 270, aspect: .square, render: (1280, 720), want: (436, 0, 406, 720)),
        PlacementCase(source: (1920, 1080), rotation: -90, aspect: .square, render: (1280, 720), want: (436, 0, 406, 720)),
        // A portrait source turned into a portrait render fills it.
        PlacementCase(source: (1920, 1080), rotation: 90, aspect: .square, render: (1080, 1920), want: (0, 0, 1080, 1920)),
        // PAL 4:3 (16:15 → 768x576 display) and PAL 16:9 (64:45 → 1024x576).
        PlacementCase(source: (720, 576), rotation: 0, aspect: Ratio(16, 15), render: (1280, 720), want: (160, 0, 960, 720)),
        PlacementCase(source: (720, 576), rotation: 0, aspect: Ratio(64, 45), render: (1280, 720), want: (0, 0, 1280, 720)),
        // The pixel aspect applies before the turn: 1024x576 turned is 576x1024 → 405 → 406 wide.
        PlacementCase(source: (720, 576), rotation: 90, aspect: Ratio(64, 45), render: (1280, 720), want: (436, 0, 406, 720)),
        // NTSC 4:3 (8:9 → 640x480 display).
        PlacementCase(source: (720, 480), rotation: 0, aspect: Ratio(8, 9), render: (1280, 720), want: (160, 0, 960, 720)),
        // Unknown pixel aspect (0:1) is square.
        PlacementCase(source: (1280, 720), rotation: 0, aspect: Ratio(0, 1), render: (1280, 720), want: (0, 0, 1280, 720)),
        // 2.4:1 letterboxed: 1280·800/1920 = 533.3 → 534; margin 186 → 92 above, 94 below.
        PlacementCase(source: (1920, 800), rotation: 0, aspect: .square, render: (1280, 720), want: (0, 92, 1280, 534)),
        // A sliver is at least 2 wide: 720·4/1000 = 2.88 → 2.
        PlacementCase(source: (4, 1000), rotation: 0, aspect: .square, render: (1280, 720), want: (638, 0, 2, 720)),
    ]

    @Test("placement: exact even rectangles", arguments: placements)
    func placement(_ c: PlacementCase) {
        let r = PictureFitter.placement(source: c.source, rotation: c.rotation, pixelAspect: c.aspect, render: c.render)
        #expect(r == c.want)
    }

    // MARK: Exact turns (no scaling: every sample lands where an upright display shows it)

    static let formats = ["yuv420p", "yuvj420p", "yuv420p10le", "yuv422p", "yuv444p", "nv12", "yuv422p10le", "rgb24"]

    @Test("quarter turns move every sample of every plane to its upright place, bars black",
          arguments: formats, [0, 90, 180, 270])
    func exactTurn(format name: String, rotation: Int) throws {
        let format = try #require(PixelFormats.named(name))
        // 24x16 turned or not, in a render 16 wider (or taller): no scaling, bars of 8.
        let (sw, sh): (Int32, Int32) = (24, 16)
        let quarter = rotation % 180 == 90
        let render: (Int32, Int32) = quarter ? (sh, sw + 16) : (sw + 16, sh)
        let place = PictureFitter.placement(source: (sw, sh), rotation: rotation, pixelAspect: .square, render: render)
        #expect(place == (quarter ? (0, 8, sh, sw) : (8, 0, sw, sh)))

        // A quarter turn into 4:2:2 scales into 4:4:0 first: a 4:4:0 source makes that scale a copy too.
        let sourceFormat = quarter ? try #require(PlaneLayout.quarterTurnSource(for: format)) : format
        let source = try Self.picture(sw, sh, sourceFormat) { plane, x, y, k in (x * 3 + y * 37 + plane * 11 + k * 101) }
        let before = try Self.samples(source)
        #expect(!before.isEmpty)
        let fitter = try PictureFitter(width: render.0, height: render.1, pixelFormat: format)
        let out = try fitter.fit(source, rotation: rotation, pixelAspect: .square)
        #expect((out.width, out.height, out.pixelFormat) == (render.0, render.1, format))
        #expect(try Self.samples(source) == before, "the input is not modified")

        let layout = try PlaneLayout.planes(of: format)
        let mask = Self.maxSample(format)
        var wrong = 0
        for p in layout {
            let per = Self.samplesPerElement(p, format)
            let (pw, ph) = (Int(render.0) >> p.shiftX, Int(render.1) >> p.shiftY)
            let (rx, ry) = (Int(place.x) >> p.shiftX, Int(place.y) >> p.shiftY)
            let (dw, dh) = (Int(place.width) >> p.shiftX, Int(place.height) >> p.shiftY)
            // The source plane, upright as stored (before the turn).
            let (w, h) = quarter ? (dh, dw) : (dw, dh)
            for y in 0..<ph {
                for x in 0..<pw {
                    let (lx, ly) = (x - rx, y - ry)
                    let inside = lx >= 0 && ly >= 0 && lx < dw && ly < dh
                    for k in 0..<per {
                        let got = Self.sample(out, p, format, x, y, k)
                        let want: Int
                        if inside {
                            let (sx, sy): (Int, Int) = switch rotation {
                            case 90: (ly, h - 1 - lx)
                            case 180: (w - 1 - lx, h - 1 - ly)
                            case 270: (w - 1 - ly, lx)
                            default: (lx, ly)
                            }
                            want = (sx * 3 + sy * 37 + Int(p.index) * 11 + k * 101) & mask
                        } else {
                            want = Self.black(format, plane: p)
                        }
                        if got != want {
                            wrong += 1
                            if wrong <= 5 { Issue.record("plane \(p.index) (\(x), \(y)) sample \(k): \(got), want \(want)") }
                        }
                    }
                }
            }
        }
        #expect(wrong == 0)
    }

    // MARK: Scaled pictures

    /// Quadrant colours (Y, U, V at 8 bits): top-left, top-right, bottom-left, bottom-right.
    static let tl = (50, 90, 200), tr = (100, 200, 60), bl = (150, 60, 100), br = (200, 160, 160)

    /// A picture whose quadrants have the colours above (any planar YUV format, 8 or more bits).
    static func quadrants(_ w: Int32, _ h: Int32, _ format: AVPixelFormat) throws -> Frame {
        let shift = Self.depth(format) - 8
        return try picture(w, h, format) { plane, x, y, _ in
            // Chroma planes are smaller: compare with their own half.
            let (pw, ph) = plane == 0 ? (Int(w), Int(h)) : (Int(w) >> Int(Self.chromaShift(format).x), Int(h) >> Int(Self.chromaShift(format).y))
            let c = y < ph / 2 ? (x < pw / 2 ? tl : tr) : (x < pw / 2 ? bl : br)
            return [c.0, c.1, c.2][plane] << shift
        }
    }

    /// Expects the YUV at picture point (x, y) of `f` to be `c` (8-bit values scaled to its depth) within ±2.
    static func expectColour(_ f: Frame, _ x: Int, _ y: Int, _ c: (Int, Int, Int), _ what: String,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let layout = try PlaneLayout.planes(of: f.pixelFormat)
        let shift = depth(f.pixelFormat) - 8
        // Y, U, V in order, whether chroma is in two planes or one (nv12).
        let got = layout.flatMap { p in
            (0..<samplesPerElement(p, f.pixelFormat)).map { k in sample(f, p, f.pixelFormat, x >> p.shiftX, y >> p.shiftY, k) }
        }
        let want = [c.0, c.1, c.2].map { $0 << shift }
        for i in 0..<3 where abs(got[i] - want[i]) > 2 << shift {
            Issue.record("\(what) at (\(x), \(y)): YUV \(got), want \(want)", sourceLocation: sourceLocation)
        }
    }

    /// Counts samples of `f` outside `rect` that are not `format`'s black, per plane.
    static func nonBlackBars(_ f: Frame, outside rect: Rect) throws -> Int {
        var bad = 0
        for p in try PlaneLayout.planes(of: f.pixelFormat) {
            let (rx, ry) = (Int(rect.x) >> p.shiftX, Int(rect.y) >> p.shiftY)
            let (rw, rh) = (Int(rect.width) >> p.shiftX, Int(rect.height) >> p.shiftY)
            for y in 0..<(Int(f.height) >> p.shiftY) {
                for x in 0..<(Int(f.width) >> p.shiftX) where !(x >= rx && x < rx + rw && y >= ry && y < ry + rh) {
                    for k in 0..<samplesPerElement(p, f.pixelFormat) where sample(f, p, f.pixelFormat, x, y, k) != black(f.pixelFormat, plane: p) {
                        bad += 1
                    }
                }
            }
        }
        return bad
    }

    @Test("640x480 in 1280x720: pillarboxed 960x720 at x=160, bars exact black, quadrants in place")
    func pillarbox() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        let source = try Self.quadrants(640, 480, AV_PIX_FMT_YUV420P)
        source.pts = 4242
        let out = try fitter.fit(source, rotation: 0, pixelAspect: .square)
        let rect = PictureFitter.placement(source: (640, 480), rotation: 0, pixelAspect: .square, render: (1280, 720))
        #expect(rect == (160, 0, 960, 720))
        #expect((out.width, out.height, out.pts) == (1280, 720, 4242))
        #expect(try Self.nonBlackBars(out, outside: rect) == 0)
        // Quadrant centres, and just inside the picture's edges.
        try Self.expectColour(out, 160 + 240, 180, Self.tl, "top-left")
        try Self.expectColour(out, 160 + 720, 180, Self.tr, "top-right")
        try Self.expectColour(out, 160 + 240, 540, Self.bl, "bottom-left")
        try Self.expectColour(out, 160 + 720, 540, Self.br, "bottom-right")
        try Self.expectColour(out, 162, 2, Self.tl, "top-left corner")
        try Self.expectColour(out, 1117, 717, Self.br, "bottom-right corner")
        try Self.expectColour(out, 159, 360, (16, 128, 128), "left bar")
        try Self.expectColour(out, 1120, 360, (16, 128, 128), "right bar")
    }

    @Test("1920x1080 in 1280x720 fills it: no bars, corners their colours")
    func sameAspectFills() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        let source = try Self.quadrants(1920, 1080, AV_PIX_FMT_YUV420P)
        let out = try fitter.fit(source, rotation: 0, pixelAspect: .square)
        #expect((out.width, out.height) == (1280, 720))
        try Self.expectColour(out, 0, 0, Self.tl, "top-left")
        try Self.expectColour(out, 1279, 0, Self.tr, "top-right")
        try Self.expectColour(out, 0, 719, Self.bl, "bottom-left")
        try Self.expectColour(out, 1279, 719, Self.br, "bottom-right")
    }

    @Test("each rotation shows the corners where an upright display would",
          arguments: ["yuv420p", "yuv422p", "yuv444p", "nv12", "yuv420p10le", "yuv422p10le"], [0, 90, 180, 270])
    func rotationCorners(format name: String, rotation: Int) throws {
        // 320x240 into 640x480: turned by a quarter it is 240x320 → 360x480 at x=140.
        let format = try #require(PixelFormats.named(name))
        let fitter = try PictureFitter(width: 640, height: 480, pixelFormat: format)
        let out = try fitter.fit(try Self.quadrants(320, 240, AV_PIX_FMT_YUV420P), rotation: rotation, pixelAspect: .square)
        #expect(out.pixelFormat == format)
        let rect = PictureFitter.placement(source: (320, 240), rotation: rotation, pixelAspect: .square, render: (640, 480))
        #expect(rect == (rotation % 180 == 0 ? (0, 0, 640, 480) : (140, 0, 360, 480)))
        // Turned clockwise: 90° brings the left edge to the top, so bottom-left is shown top-left.
        let shown: [(Int, Int, Int)] = switch rotation {
        case 90: [Self.bl, Self.tl, Self.br, Self.tr]
        case 180: [Self.br, Self.bl, Self.tr, Self.tl]
        case 270: [Self.tr, Self.br, Self.tl, Self.bl]
        default: [Self.tl, Self.tr, Self.bl, Self.br]
        }
        let (x, y, w, h) = (Int(rect.x), Int(rect.y), Int(rect.width), Int(rect.height))
        for (i, name) in ["top-left", "top-right", "bottom-left", "bottom-right"].enumerated() {
            try Self.expectColour(out, x + (i % 2 == 0 ? w / 4 : 3 * w / 4), y + (i < 2 ? h / 4 : 3 * h / 4), shown[i], "\(rotation)° \(name)")
            try Self.expectColour(out, x + (i % 2 == 0 ? 1 : w - 2), y + (i < 2 ? 1 : h - 2), shown[i], "\(rotation)° \(name) corner")
        }
        #expect(try Self.nonBlackBars(out, outside: rect) == 0)
    }

    @Test("a 1920x1080 picture turned 90° in 1280x720: 406x720 at x=436, bars black")
    func portraitInLandscape() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        let source = try Self.quadrants(1920, 1080, AV_PIX_FMT_YUV420P)
        let out = try fitter.fit(source, rotation: 90, pixelAspect: .square)
        let rect = PictureFitter.placement(source: (1920, 1080), rotation: 90, pixelAspect: .square, render: (1280, 720))
        #expect(rect == (436, 0, 406, 720))
        #expect(try Self.nonBlackBars(out, outside: rect) == 0)
        try Self.expectColour(out, 437, 1, Self.bl, "top-left corner")
        try Self.expectColour(out, 840, 1, Self.tl, "top-right corner")
        try Self.expectColour(out, 437, 718, Self.br, "bottom-left corner")
        try Self.expectColour(out, 840, 718, Self.tr, "bottom-right corner")
        try Self.expectColour(out, 435, 360, (16, 128, 128), "left bar")
        try Self.expectColour(out, 842, 360, (16, 128, 128), "right bar")
    }

    @Test("720x576 at 16:15 is shown 4:3 (960x720 at x=160); at 64:45 it fills 16:9")
    func pixelAspect() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        let source = try Self.quadrants(720, 576, AV_PIX_FMT_YUV420P)
        let narrow = try fitter.fit(source, rotation: 0, pixelAspect: Ratio(16, 15))
        #expect(try Self.nonBlackBars(narrow, outside: (160, 0, 960, 720)) == 0)
        try Self.expectColour(narrow, 161, 1, Self.tl, "top-left corner")
        try Self.expectColour(narrow, 1118, 718, Self.br, "bottom-right corner")
        try Self.expectColour(narrow, 159, 1, (16, 128, 128), "left bar")
        let wide = try fitter.fit(source, rotation: 0, pixelAspect: Ratio(64, 45))
        try Self.expectColour(wide, 0, 0, Self.tl, "top-left")
        try Self.expectColour(wide, 1279, 719, Self.br, "bottom-right")
        #expect(wide.pointer.pointee.sample_aspect_ratio.num == 1 && wide.pointer.pointee.sample_aspect_ratio.den == 1)
    }

    @Test("10-bit target: bars are Y=64 U=V=512, the picture scaled from 8 bits")
    func tenBitBlack() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P10LE)
        let out = try fitter.fit(try Self.quadrants(640, 480, AV_PIX_FMT_YUV420P), rotation: 0, pixelAspect: .square)
        #expect(out.pixelFormat == AV_PIX_FMT_YUV420P10LE)
        #expect(try Self.nonBlackBars(out, outside: (160, 0, 960, 720)) == 0)
        let y = try #require(PlaneLayout.planes(of: AV_PIX_FMT_YUV420P10LE).first)
        #expect(Self.sample(out, y, out.pixelFormat, 0, 0, 0) == 64)
        #expect(Self.black(AV_PIX_FMT_YUV420P10LE, plane: PlaneLayout(index: 1, elementBytes: 2, shiftX: 1, shiftY: 1)) == 512)
        try Self.expectColour(out, 160 + 240, 180, Self.tl, "top-left")
        try Self.expectColour(out, 160 + 720, 540, Self.br, "bottom-right")
    }

    @Test("yuvj420p target: bars full-range black (Y=0), frame tagged full range; yuv420p from yuvj is limited")
    func fullRange() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUVJ420P)
        let out = try fitter.fit(try Self.quadrants(640, 480, AV_PIX_FMT_YUV420P), rotation: 0, pixelAspect: .square)
        #expect(out.pointer.pointee.color_range == AVCOL_RANGE_JPEG)
        #expect(try Self.nonBlackBars(out, outside: (160, 0, 960, 720)) == 0)
        try Self.expectColour(out, 0, 0, (0, 128, 128), "bar")

        let limited = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        let back = try limited.fit(try Self.quadrants(640, 480, AV_PIX_FMT_YUVJ420P), rotation: 0, pixelAspect: .square)
        #expect(back.pointer.pointee.color_range == AVCOL_RANGE_MPEG)
        try Self.expectColour(back, 0, 0, (16, 128, 128), "bar")
    }

    @Test("an RGB source is converted: red, green, blue, white quadrants in BT.601 limited range")
    func rgbSource() throws {
        let fitter = try PictureFitter(width: 640, height: 360, pixelFormat: AV_PIX_FMT_YUV444P)
        let colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
        let source = try Self.picture(320, 240, AV_PIX_FMT_RGB24) { _, x, y, k in
            let c = colours[(y < 120 ? 0 : 2) + (x < 160 ? 0 : 1)]
            return [c.0, c.1, c.2][k]
        }
        let out = try fitter.fit(source, rotation: 0, pixelAspect: .square)
        // 4:3 in 16:9 at 360 high: 480x360 at x=80.
        #expect(try Self.nonBlackBars(out, outside: (80, 0, 480, 360)) == 0)
        try Self.expectColour(out, 80 + 120, 90, (81, 90, 240), "red")
        try Self.expectColour(out, 80 + 360, 90, (145, 54, 34), "green")
        try Self.expectColour(out, 80 + 120, 270, (41, 240, 110), "blue")
        try Self.expectColour(out, 80 + 360, 270, (235, 128, 128), "white")
    }

    @Test("the output is upright and square: display matrix dropped, timestamps kept")
    func frameProperties() throws {
        let fitter = try PictureFitter(width: 1280, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        for size in [(Int32(1920), Int32(1080)), (640, 480)] {
            let source = try Self.quadrants(size.0, size.1, AV_PIX_FMT_YUV420P)
            source.pts = 90
            source.pointer.pointee.sample_aspect_ratio = AVRational(num: 4, den: 3)
            let sd = try #require(av_frame_new_side_data(source.pointer, AV_FRAME_DATA_DISPLAYMATRIX, 36))
            av_display_rotation_set(UnsafeMutableRawPointer(sd.pointee.data).assumingMemoryBound(to: Int32.self), 0)
            let out = try fitter.fit(source, rotation: 0, pixelAspect: .square)
            #expect(out !== source)
            #expect(out.pts == 90)
            #expect(av_frame_get_side_data(out.pointer, AV_FRAME_DATA_DISPLAYMATRIX) == nil)
            #expect(av_frame_get_side_data(source.pointer, AV_FRAME_DATA_DISPLAYMATRIX) != nil, "the input keeps its own")
            #expect(out.pointer.pointee.sample_aspect_ratio.num == 1 && out.pointer.pointee.sample_aspect_ratio.den == 1)
        }
    }

    @Test("sources taking turns (each with its kept scaler) give the same pictures each time")
    func alternatingSources() throws {
        let fitter = try PictureFitter(width: 640, height: 360, pixelFormat: AV_PIX_FMT_YUV422P)
        let a = try Self.quadrants(640, 480, AV_PIX_FMT_YUV420P)
        let b = try Self.quadrants(1920, 1080, AV_PIX_FMT_YUV420P10LE)
        let c = try Self.quadrants(720, 576, AV_PIX_FMT_YUV444P)
        let first = try [fitter.fit(a, rotation: 0, pixelAspect: .square), fitter.fit(b, rotation: 90, pixelAspect: .square),
                         fitter.fit(c, rotation: 270, pixelAspect: Ratio(64, 45))].map(Self.samples)
        for _ in 0..<2 {
            let again = try [fitter.fit(a, rotation: 0, pixelAspect: .square), fitter.fit(b, rotation: 90, pixelAspect: .square),
                             fitter.fit(c, rotation: 270, pixelAspect: Ratio(64, 45))].map(Self.samples)
            #expect(again == first)
        }
        #expect(first[0] != first[1] && first[1] != first[2])
    }

    @Test("a gap's black in a yuvj format is full range (Y=0) even when the frame's range is not set")
    func yuvjGapBlack() throws {
        let f = try Frame.video(width: 16, height: 16, format: AV_PIX_FMT_YUVJ420P)
        #expect(f.pointer.pointee.color_range == AVCOL_RANGE_UNSPECIFIED)
        let black = try f.black()
        let layout = try PlaneLayout.planes(of: AV_PIX_FMT_YUVJ420P)
        #expect(Self.sample(black, layout[0], black.pixelFormat, 5, 5, 0) == 0)
        #expect(Self.sample(black, layout[1], black.pixelFormat, 5, 5, 0) == 128)
        #expect(Self.sample(black, layout[2], black.pixelFormat, 5, 5, 0) == 128)
    }

    @Test("formats it cannot draw into are refused by name")
    func refusedFormats() {
        #expect(throws: MediaError(.unsupported, "cannot fit pictures into yuyv422 frames: it packs luma and subsampled chroma together")) {
            _ = try PictureFitter(width: 64, height: 64, pixelFormat: AV_PIX_FMT_YUYV422)
        }
        #expect(throws: MediaError(.unsupported, "cannot fit pictures into pal8 frames: it is paletted")) {
            _ = try PictureFitter(width: 64, height: 64, pixelFormat: AV_PIX_FMT_PAL8)
        }
        #expect(throws: MediaError(.unsupported, "cannot fit pictures into yuv411p frames: its chroma is subsampled more than 2:1")) {
            _ = try PictureFitter(width: 64, height: 64, pixelFormat: AV_PIX_FMT_YUV411P)
        }
        #expect(throws: MediaError(.unsupported, "cannot fit pictures into a 1279x720 frame: the render size must be even")) {
            _ = try PictureFitter(width: 1279, height: 720, pixelFormat: AV_PIX_FMT_YUV420P)
        }
    }

    @Test("a quarter turn into 4:2:2 goes through 4:4:0 (the chroma axes swap); nv16 has no such twin")
    func quarterTurnTwins() throws {
        #expect(PlaneLayout.quarterTurnSource(for: AV_PIX_FMT_YUV422P) == AV_PIX_FMT_YUV440P)
        #expect(PlaneLayout.quarterTurnSource(for: AV_PIX_FMT_YUVJ422P) == AV_PIX_FMT_YUVJ440P)
        #expect(PlaneLayout.quarterTurnSource(for: AV_PIX_FMT_YUV422P10LE) == AV_PIX_FMT_YUV440P10LE)
        #expect(PlaneLayout.quarterTurnSource(for: AV_PIX_FMT_YUV420P) == AV_PIX_FMT_YUV420P)
        #expect(PlaneLayout.quarterTurnSource(for: AV_PIX_FMT_NV16) == nil)
        // (libswscale cannot write nv16: a picture already at the fitted size needs no scaling.)
        let fitter = try PictureFitter(width: 32, height: 32, pixelFormat: AV_PIX_FMT_NV16)
        let source = try Self.picture(32, 32, AV_PIX_FMT_NV16) { _, _, _, _ in 100 }
        _ = try fitter.fit(source, rotation: 180, pixelAspect: .square)
        #expect(throws: MediaError(.unsupported, "cannot turn pictures a quarter turn into nv16 frames: FFmpeg has no format with its chroma subsampled the other way")) {
            _ = try fitter.fit(source, rotation: 90, pixelAspect: .square)
        }
    }

    // MARK: Pixel access

    static func depth(_ f: AVPixelFormat) -> Int { Int(av_pix_fmt_desc_get(f)!.pointee.comp.0.depth) }
    static func maxSample(_ f: AVPixelFormat) -> Int { (1 << depth(f)) - 1 }
    static func sampleBytes(_ f: AVPixelFormat) -> Int { depth(f) > 8 ? 2 : 1 }
    static func chromaShift(_ f: AVPixelFormat) -> (x: Int32, y: Int32) {
        let d = av_pix_fmt_desc_get(f)!.pointee
        return (Int32(d.log2_chroma_w), Int32(d.log2_chroma_h))
    }
    static func samplesPerElement(_ p: PlaneLayout, _ f: AVPixelFormat) -> Int { p.elementBytes / sampleBytes(f) }

    /// Black in `plane` of `format` (every sample of an element alike).
    static func black(_ format: AVPixelFormat, plane p: PlaneLayout) -> Int {
        let rgb = av_pix_fmt_desc_get(format)!.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        if rgb { return 0 }
        let shift = depth(format) - 8
        if p.index == 0 { return format.isFullRangeYUV ? 0 : 16 << shift }
        return 128 << shift
    }

    static func sample(_ f: Frame, _ p: PlaneLayout, _ format: AVPixelFormat, _ x: Int, _ y: Int, _ k: Int) -> Int {
        let b = sampleBytes(format)
        let at = UnsafeRawPointer(f.plane(p.index)!) + y * f.lineSize(p.index) + x * p.elementBytes + k * b
        return b == 2 ? Int(at.loadUnaligned(as: UInt16.self)) : Int(at.load(as: UInt8.self))
    }

    /// A `w`×`h` picture whose samples are `value(plane, x, y, sample in element)` (masked to its depth).
    static func picture(_ w: Int32, _ h: Int32, _ format: AVPixelFormat, _ value: (Int, Int, Int, Int) -> Int) throws -> Frame {
        let f = try Frame.video(width: w, height: h, format: format)
        if format.isFullRangeYUV { f.pointer.pointee.color_range = AVCOL_RANGE_JPEG }
        let b = sampleBytes(format), mask = maxSample(format)
        for p in try PlaneLayout.planes(of: format) {
            let base = UnsafeMutableRawPointer(f.plane(p.index)!)
            for y in 0..<(Int(h) >> p.shiftY) {
                for x in 0..<(Int(w) >> p.shiftX) {
                    for k in 0..<samplesPerElement(p, format) {
                        let v = value(Int(p.index), x, y, k) & mask
                        let at = base + y * f.lineSize(p.index) + x * p.elementBytes + k * b
                        if b == 2 { at.storeBytes(of: UInt16(v), as: UInt16.self) } else { at.storeBytes(of: UInt8(v), as: UInt8.self) }
                    }
                }
            }
        }
        return f
    }

    /// Every sample of `f`, plane by plane (to see that it was not changed).
    static func samples(_ f: Frame) throws -> [Int] {
        let layout = try PlaneLayout.planes(of: f.pixelFormat)
        var all: [Int] = []
        for p in layout {
            for y in 0..<(Int(f.height) >> p.shiftY) {
                for x in 0..<(Int(f.width) >> p.shiftX) {
                    for k in 0..<samplesPerElement(p, f.pixelFormat) { all.append(sample(f, p, f.pixelFormat, x, y, k)) }
                }
            }
        }
        return all
    }
}

