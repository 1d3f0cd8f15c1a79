import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// The composition's pixel kernel: layers prepared (crop, turn, fit) and drawn at a rectangle and
/// an opacity — checked on every sample, with odd placements' shared chroma mixed by coverage.
@Suite("Layer painter: placed, blended, chroma at odd edges")
struct LayerPainterTests {
    static let red = RecipeColor(red: 255, green: 0, blue: 0)
    static let blue = RecipeColor(red: 0, green: 0, blue: 255)

    // MARK: Geometry (exact)

    static func geometry(_ picture: (Int32, Int32), rotation: Int = 0, aspect: Ratio = .square,
                         _ placement: LayerPlacement, frame: (Int32, Int32) = (1280, 720)) throws -> LayerGeometry {
        try LayerGeometry(picture: picture, rotation: rotation, pixelAspect: aspect, placement: placement, frame: frame)
    }

    @Test("a 4:3 picture into a 16:9 rectangle: fit pillarboxes, fill cuts top and bottom, stretch fills")
    func fitFillStretch() throws {
        let rect = PixelRect(x: 100, y: 50, width: 320, height: 180)
        let fit = try Self.geometry((640, 480), LayerPlacement(rect: rect, fit: .fit))
        // 180·4/3 = 240 wide, (320 − 240)/2 = 40 each side.
        #expect(fit.destination == PixelRect(x: 140, y: 50, width: 240, height: 180))
        #expect(fit.shown == PixelRect(x: 0, y: 0, width: 640, height: 480))
        let fill = try Self.geometry((640, 480), LayerPlacement(rect: rect, fit: .fill))
        // The rectangle's aspect of the picture: 640 wide, 360 high, 60 cut off top and bottom.
        #expect(fill.destination == rect)
        #expect(fill.shown == PixelRect(x: 0, y: 60, width: 640, height: 360))
        #expect(fill.stored == fill.shown)
        let stretch = try Self.geometry((640, 480), LayerPlacement(rect: rect, fit: .stretch))
        #expect(stretch.destination == rect)
        #expect(stretch.shown == PixelRect(x: 0, y: 0, width: 640, height: 480))
    }

    @Test("odd leftovers: the extra pixel goes right or below; sizes rounded halves up")
    func oddLeftovers() throws {
        // 36x64 displayed (64x36 turned) in 128x72: 72·36/64 = 40.5 → 41 wide, 87 left over → 43 | 44.
        let turned = try Self.geometry((64, 36), rotation: 90, .whole, frame: (128, 72))
        #expect(turned.destination == PixelRect(x: 43, y: 0, width: 41, height: 72))
        // 100x30 in 33x33: 33·30/100 = 9.9 → 10 high, 23 left over → 11 above, 12 below.
        let wide = try Self.geometry((100, 30), LayerPlacement(rect: PixelRect(x: 0, y: 0, width: 33, height: 33)))
        #expect(wide.destination == PixelRect(x: 0, y: 11, width: 33, height: 10))
        // fill of a 10x10 into 3x2: keep 10·2/3 = 6.67 → 7 high of 10, cut 3 → 1 above, 2 below.
        let cut = try Self.geometry((10, 10), LayerPlacement(rect: PixelRect(x: 5, y: 5, width: 3, height: 2), fit: .fill))
        #expect(cut.shown == PixelRect(x: 0, y: 1, width: 10, height: 7))
    }

    @Test("crop in displayed pixels: clamped to the picture, then fitted; after a turn and a pixel aspect it maps back to stored pixels")
    func cropMapping() throws {
        // 64x48 cropped to its right half (clamped: 40 wide asked) then fitted into 32x18: 24x48 → 9x18 at 11.
        let crop = try Self.geometry((64, 48), LayerPlacement(rect: PixelRect(x: 0, y: 0, width: 32, height: 18),
                                                              crop: PixelRect(x: 40, y: -5, width: 40, height: 100)))
        #expect(crop.shown == PixelRect(x: 40, y: 0, width: 24, height: 48))
        #expect(crop.destination == PixelRect(x: 11, y: 0, width: 9, height: 18))
        // Stored 100x60 turned 90°: displayed 60x100. Displayed (x 10, y 20, 30x40) is stored
        // columns 20..<60 and rows 60−10−30 = 20..<50.
        let r90 = try Self.geometry((100, 60), rotation: 90, LayerPlacement(crop: PixelRect(x: 10, y: 20, width: 30, height: 40)))
        #expect(r90.stored == PixelRect(x: 20, y: 20, width: 40, height: 30))
        let r180 = try Self.geometry((100, 60), rotation: 180, LayerPlacement(crop: PixelRect(x: 10, y: 20, width: 30, height: 40)))
        #expect(r180.stored == PixelRect(x: 60, y: 0, width: 30, height: 40))
        let r270 = try Self.geometry((100, 60), rotation: 270, LayerPlacement(crop: PixelRect(x: 10, y: 20, width: 30, height: 40)))
        #expect(r270.stored == PixelRect(x: 40, y: 10, width: 40, height: 30))
        // 720x576 at 16:15 is 768 wide displayed: displayed columns 384..<768 are stored 360..<720.
        let pal = try Self.geometry((720, 576), aspect: Ratio(16, 15), LayerPlacement(crop: PixelRect(x: 384, y: 0, width: 400, height: 576)))
        #expect(pal.shown == PixelRect(x: 384, y: 0, width: 384, height: 576))
        #expect(pal.stored == PixelRect(x: 360, y: 0, width: 360, height: 576))
    }

    @Test("a crop that leaves nothing is refused, naming the crop and the picture")
    func emptyCrop() {
        #expect(throws: MediaError(.invalidSettings, "the crop 10x10+700+0 leaves nothing of the 640x480 picture")) {
            _ = try Self.geometry((640, 480), LayerPlacement(crop: PixelRect(x: 700, y: 0, width: 10, height: 10)))
        }
    }

    // MARK: Odd placement: chroma mixed by coverage

    @Test("a red 7x9 layer at (3, 5) over blue: luma exact inside and out, chroma by covered pixels",
          arguments: ["yuv420p", "yuv420p10le"])
    func oddPlacement(format name: String) throws {
        let format = try #require(PixelFormats.named(name))
        let painter = try LayerPainter(width: 20, height: 20, pixelFormat: format, background: Self.blue)
        let depth = Self.depth(format)
        let red = Frame.components(of: Self.red, depth: depth, fullRange: false, sd: false)
        let blue = Frame.components(of: Self.blue, depth: depth, fullRange: false, sd: false)
        let source = try Self.solid(16, 16, format, red)
        let rect = PixelRect(x: 3, y: 5, width: 7, height: 9)
        let layer = try painter.prepare(source, rotation: 0, pixelAspect: .square, placement: LayerPlacement(rect: rect, fit: .stretch))
        #expect(layer.rect == rect)
        let canvas = try painter.canvas(like: nil)
        try painter.draw(layer, opacity: 1, onto: canvas)
        let inside = { (x: Int, y: Int) in x >= 3 && x < 10 && y >= 5 && y < 14 }
        var wrong = 0
        for y in 0..<20 {
            for x in 0..<20 where Self.value(canvas, 0, x, y) != (inside(x, y) ? red[0] : blue[0]) {
                wrong += 1
            }
        }
        #expect(wrong == 0, "luma samples not exactly red inside, blue outside")
        var straddling = 0
        for p in 1...2 {
            for cy in 0..<10 {
                for cx in 0..<10 {
                    let covered = [(0, 0), (1, 0), (0, 1), (1, 1)].filter { inside(2 * cx + $0.0, 2 * cy + $0.1) }.count
                    if covered > 0 && covered < 4 { straddling += 1 }
                    let want = blue[p] + Int((Double(red[p] - blue[p]) * Double(covered) / 4).rounded())
                    let got = Self.value(canvas, p, cx, cy)
                    let tolerance = covered == 0 || covered == 4 ? 0 : 1
                    #expect(abs(got - want) <= tolerance, "plane \(p) chroma (\(cx), \(cy)), \(covered)/4 covered: \(got), want \(want)")
                }
            }
        }
        #expect(straddling == 2 * 8, "the odd left and top edges straddle 8 chroma samples a plane")
    }

    // MARK: Opacity

    @Test("opacity 0.25 of red over black: each component black + 0.25·(red − black)",
          arguments: ["yuv420p", "yuv420p10le"])
    func quarterOpacity(format name: String) throws {
        let format = try #require(PixelFormats.named(name))
        let depth = Self.depth(format)
        let painter = try LayerPainter(width: 64, height: 36, pixelFormat: format, background: .black)
        let red = Frame.components(of: Self.red, depth: depth, fullRange: false, sd: false)
        let black = Frame.components(of: .black, depth: depth, fullRange: false, sd: false)
        let source = try Self.solid(128, 72, format, red)
        let canvas = try painter.canvas(like: nil)
        try painter.draw(try painter.prepare(source, rotation: 0, pixelAspect: .square, placement: .whole), opacity: 0.25, onto: canvas)
        for p in 0...2 {
            let want = black[p] + Int((Double(red[p] - black[p]) * 0.25).rounded())
            let (w, h) = p == 0 ? (64, 36) : (32, 18)
            let off = (0..<h).flatMap { y in (0..<w).map { x in Self.value(canvas, p, x, y) } }.filter { abs($0 - want) > 1 }
            #expect(off.isEmpty, "plane \(p): \(off.count) samples not \(want) ±1 (e.g. \(off.first ?? 0))")
        }
    }

    @Test("opacity 1 at an even placement copies the prepared pixels exactly; opacity 0 changes nothing")
    func opacityOneAndZero() throws {
        let painter = try LayerPainter(width: 48, height: 32, pixelFormat: AV_PIX_FMT_YUV420P, background: Self.blue)
        let source = try Self.gradient(40, 30, AV_PIX_FMT_YUV420P)
        let rect = PixelRect(x: 6, y: 4, width: 20, height: 14)
        let layer = try painter.prepare(source, rotation: 0, pixelAspect: .square, placement: LayerPlacement(rect: rect, fit: .stretch))
        #expect(layer.pixels.pixelFormat == AV_PIX_FMT_YUV420P, "even placements are prepared in the output format")
        let below = try Self.gradient(48, 32, AV_PIX_FMT_YUV420P, seed: 5)
        let canvas = try painter.canvas(like: nil)
        try Self.copy(below, onto: canvas)
        let before = Self.all(canvas)
        try painter.draw(layer, opacity: 0, onto: canvas)
        #expect(Self.all(canvas) == before, "opacity 0")
        try painter.draw(layer, opacity: 1, onto: canvas)
        var wrong = 0
        for p in 0...2 {
            let s = p == 0 ? 0 : 1
            for y in 0..<(32 >> s) {
                for x in 0..<(48 >> s) {
                    let (lx, ly) = (x - (6 >> s), y - (4 >> s))
                    let inside = lx >= 0 && ly >= 0 && lx < (20 >> s) && ly < (14 >> s)
                    let want = inside ? Self.value(layer.pixels, p, lx, ly) : Self.value(below, p, x, y)
                    if Self.value(canvas, p, x, y) != want { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0)
    }

    @Test("opacity 0.5 over a picture: every sample the rounded mean of the two")
    func halfOpacity() throws {
        let painter = try LayerPainter(width: 32, height: 16, pixelFormat: AV_PIX_FMT_YUV420P10LE, background: .black)
        let source = try Self.gradient(32, 16, AV_PIX_FMT_YUV420P10LE)
        let below = try Self.gradient(32, 16, AV_PIX_FMT_YUV420P10LE, seed: 9)
        let canvas = try painter.canvas(like: nil)
        try Self.copy(below, onto: canvas)
        // Same size and format: not scaled, the layer's pixels are the source's.
        try painter.draw(try painter.prepare(source, rotation: 0, pixelAspect: .square, placement: .whole), opacity: 0.5, onto: canvas)
        for p in 0...2 {
            let s = p == 0 ? 0 : 1
            for y in 0..<(16 >> s) {
                for x in 0..<(32 >> s) {
                    let (a, b) = (Self.value(below, p, x, y), Self.value(source, p, x, y))
                    // below + (layer − below)/2, halves up.
                    let want = a + Int((Double(b - a) / 2).rounded(.up))
                    #expect(Self.value(canvas, p, x, y) == want, "plane \(p) (\(x), \(y))")
                }
            }
        }
    }

    // MARK: Turned, fitted, cropped, clipped

    @Test("a landscape source shown turned 90° in a landscape frame: portrait, pillarboxed, marker top-right")
    func rotatedSource() throws {
        let painter = try LayerPainter(width: 128, height: 72, pixelFormat: AV_PIX_FMT_YUV420P, background: .black)
        // Stored 64x36, marker (Y 200) in its top-left quarter, the rest Y 100; neutral chroma.
        let source = try PictureFitterTests.picture(64, 36, AV_PIX_FMT_YUV420P) { p, x, y, _ in
            p > 0 ? 128 : (x < 32 && y < 18 ? 200 : 100)
        }
        let layer = try painter.prepare(source, rotation: 90, pixelAspect: .square, placement: .whole)
        #expect(layer.rect == PixelRect(x: 43, y: 0, width: 41, height: 72))
        let canvas = try painter.canvas(like: nil)
        try painter.draw(layer, opacity: 1, onto: canvas)
        // Turned clockwise, the stored top-left quarter is shown top-right.
        #expect(abs(Self.value(canvas, 0, 43 + 30, 18) - 200) <= 2, "top-right: the marker")
        #expect(abs(Self.value(canvas, 0, 43 + 10, 18) - 100) <= 2, "top-left")
        #expect(abs(Self.value(canvas, 0, 43 + 10, 54) - 100) <= 2, "bottom-left")
        #expect(abs(Self.value(canvas, 0, 43 + 30, 54) - 100) <= 2, "bottom-right")
        for y in 0..<72 {
            for x in 0..<128 {
                let inside = x >= 43 && x < 84
                #expect((Self.value(canvas, 0, x, y) != 16) == inside, "luma (\(x), \(y)) \(inside ? "inside" : "outside")")
            }
        }
        #expect(Self.value(canvas, 1, 5, 5) == 128 && Self.value(canvas, 2, 60, 30) == 128)
    }

    /// 64x48 (4:3): top 6 rows Y 60, bottom 6 rows Y 220, between Y 140; x < 16 Y 180 in the middle rows.
    static func banded() throws -> Frame {
        try PictureFitterTests.picture(64, 48, AV_PIX_FMT_YUV420P) { p, x, y, _ in
            if p > 0 { return 128 }
            return y < 6 ? 60 : (y >= 42 ? 220 : (x < 16 ? 180 : 140))
        }
    }

    /// The luma pixels of `canvas` that are not the background's Y 16, as a bounding box and count.
    struct Covered: Equatable { let box: PixelRect?, count: Int }

    static func covered(_ canvas: Frame) -> Covered {
        var (x0, y0, x1, y1, n) = (Int.max, Int.max, -1, -1, 0)
        for y in 0..<Int(canvas.height) {
            for x in 0..<Int(canvas.width) where value(canvas, 0, x, y) != 16 {
                (x0, y0, x1, y1, n) = (min(x0, x), min(y0, y), max(x1, x), max(y1, y), n + 1)
            }
        }
        return Covered(box: n == 0 ? nil : PixelRect(x: Int32(x0), y: Int32(y0), width: Int32(x1 - x0 + 1), height: Int32(y1 - y0 + 1)), count: n)
    }

    @Test("fit, fill, stretch and crop-then-fit on the pixels: exactly the area covered, the right part shown")
    func placedPixels() throws {
        let painter = try LayerPainter(width: 80, height: 56, pixelFormat: AV_PIX_FMT_YUV420P, background: .black)
        let rect = PixelRect(x: 8, y: 10, width: 32, height: 18)
        func draw(_ placement: LayerPlacement) throws -> Frame {
            let canvas = try painter.canvas(like: nil)
            try painter.draw(try painter.prepare(try Self.banded(), rotation: 0, pixelAspect: .square, placement: placement),
                             opacity: 1, onto: canvas)
            return canvas
        }
        // fit: 24x18 at (12, 10); the top band at its top, the bottom band at its bottom.
        let fit = try draw(LayerPlacement(rect: rect, fit: .fit))
        let fitArea = PixelRect(x: 12, y: 10, width: 24, height: 18)
        #expect(Self.covered(fit) == Covered(box: fitArea, count: 24 * 18))
        #expect(abs(Self.value(fit, 0, 30, 10) - 60) <= 4, "fit: the top band")
        #expect(abs(Self.value(fit, 0, 30, 27) - 220) <= 4, "fit: the bottom band")
        // stretch: the whole rectangle, the bands at its edges.
        let stretch = try draw(LayerPlacement(rect: rect, fit: .stretch))
        #expect(Self.covered(stretch) == Covered(box: rect, count: 32 * 18))
        #expect(abs(Self.value(stretch, 0, 30, 10) - 60) <= 4 && abs(Self.value(stretch, 0, 30, 27) - 220) <= 4)
        // fill: the whole rectangle, the 6-row bands cut off (48 rows → 36 kept, 6 off each side).
        let fill = try draw(LayerPlacement(rect: rect, fit: .fill))
        #expect(Self.covered(fill) == Covered(box: rect, count: 32 * 18))
        for x in stride(from: 20, to: 40, by: 3) {
            #expect(Self.value(fill, 0, x, 10) == 140 && Self.value(fill, 0, x, 27) == 140, "fill: no band at column \(x)")
        }
        // Crop off the left 17 columns (Y 180 at x < 16 gone, an odd start), then fit: 47x48 → 18·47/48 = 17.6 → 18x18 at (15, 10).
        let crop = try draw(LayerPlacement(rect: rect, fit: .fit, crop: PixelRect(x: 17, y: 0, width: 47, height: 48)))
        #expect(Self.covered(crop) == Covered(box: PixelRect(x: 15, y: 10, width: 18, height: 18), count: 18 * 18))
        for y in 14..<24 {
            for x in 15..<33 { #expect(Self.value(crop, 0, x, y) == 140, "crop: the left columns cut (\(x), \(y))") }
        }
    }

    @Test("a layer partly outside the frame is clipped: the inside part is the layer's, shifted right",
          arguments: [PixelRect(x: -10, y: -6, width: 32, height: 18), PixelRect(x: 60, y: 44, width: 32, height: 18),
                      PixelRect(x: -11, y: 45, width: 33, height: 19)])
    func clipped(_ rect: PixelRect) throws {
        let painter = try LayerPainter(width: 80, height: 56, pixelFormat: AV_PIX_FMT_YUV420P, background: .black)
        let layer = try painter.prepare(try Self.gradient(64, 36, AV_PIX_FMT_YUV420P), rotation: 0, pixelAspect: .square,
                                        placement: LayerPlacement(rect: rect, fit: .stretch))
        #expect(layer.rect == rect)
        let canvas = try painter.canvas(like: nil)
        try painter.draw(layer, opacity: 1, onto: canvas)
        var wrong = 0
        for y in 0..<56 {
            for x in 0..<80 {
                let (lx, ly) = (x - Int(rect.x), y - Int(rect.y))
                let inside = lx >= 0 && ly >= 0 && lx < Int(rect.width) && ly < Int(rect.height)
                if Self.value(canvas, 0, x, y) != (inside ? Self.value(layer.pixels, 0, lx, ly) : 16) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "luma samples not the layer's inside, black outside")
    }

    // MARK: Canvas and refusals

    @Test("the canvas is the background colour in the range and matrix of the picture it is like")
    func canvasColour() throws {
        let painter = try LayerPainter(width: 16, height: 16, pixelFormat: AV_PIX_FMT_YUV420P10LE, background: Self.red)
        let plain = try painter.canvas(like: nil)
        #expect([0, 1, 2].map { Self.value(plain, $0, 3, 3) } == Frame.components(of: Self.red, depth: 10, fullRange: false, sd: false))
        let like = try Frame.video(width: 8, height: 8, format: AV_PIX_FMT_YUV420P)
        like.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        like.pointer.pointee.colorspace = AVCOL_SPC_SMPTE170M
        let full = try painter.canvas(like: like)
        #expect(full.pointer.pointee.color_range == AVCOL_RANGE_JPEG && full.pointer.pointee.colorspace == AVCOL_SPC_SMPTE170M)
        #expect([0, 1, 2].map { Self.value(full, $0, 7, 7) } == Frame.components(of: Self.red, depth: 10, fullRange: true, sd: true))
    }

    @Test("formats it cannot draw in are refused by name")
    func refusedFormats() {
        let cases: [(AVPixelFormat, String)] = [
            (AV_PIX_FMT_NV12, "cannot draw layers into nv12 frames: layers are drawn in planar Y'CbCr, each component in a plane of its own"),
            (AV_PIX_FMT_RGB24, "cannot draw layers into rgb24 frames: it is RGB, and layers are drawn in planar Y'CbCr"),
            (AV_PIX_FMT_YUVA420P, "cannot draw layers into yuva420p frames: it has an alpha plane"),
            (AV_PIX_FMT_YUV411P, "cannot draw layers into yuv411p frames: its chroma is subsampled more than 2:1"),
            (AV_PIX_FMT_YUV420P10BE, "cannot draw layers into yuv420p10be frames: its samples are big-endian"),
        ]
        for (format, message) in cases {
            #expect(throws: MediaError(.unsupported, message)) {
                _ = try LayerPainter(width: 64, height: 64, pixelFormat: format, background: .black)
            }
        }
        #expect(throws: MediaError(.unsupported, "cannot draw layers into a 63x64 yuv420p frame: its chroma needs an even width")) {
            _ = try LayerPainter(width: 63, height: 64, pixelFormat: AV_PIX_FMT_YUV420P, background: .black)
        }
        #expect(throws: Never.self) {
            _ = try LayerPainter(width: 63, height: 63, pixelFormat: AV_PIX_FMT_YUV444P, background: .black)
            _ = try LayerPainter(width: 64, height: 63, pixelFormat: AV_PIX_FMT_YUV422P10LE, background: .black)
            _ = try LayerPainter(width: 64, height: 64, pixelFormat: AV_PIX_FMT_YUVJ420P, background: .black)
        }
    }

    // MARK: Pictures

    static func depth(_ f: AVPixelFormat) -> Int { Int(av_pix_fmt_desc_get(f)!.pointee.comp.0.depth) }

    /// Sample (x, y) of plane `p` (planar, 1 or 2 bytes a sample).
    static func value(_ f: Frame, _ p: Int, _ x: Int, _ y: Int) -> Int {
        let at = UnsafeRawPointer(f.plane(Int32(p))!) + y * f.lineSize(Int32(p))
        return depth(f.pixelFormat) > 8 ? Int(at.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
                                        : Int(at.load(fromByteOffset: x, as: UInt8.self))
    }

    /// A flat picture of code values `c` (Y, Cb, Cr at its depth).
    static func solid(_ w: Int32, _ h: Int32, _ format: AVPixelFormat, _ c: [Int]) throws -> Frame {
        try PictureFitterTests.picture(w, h, format) { p, _, _, _ in c[p] }
    }

    /// A picture whose every sample differs from its neighbours (in range for 8 and 10 bits).
    static func gradient(_ w: Int32, _ h: Int32, _ format: AVPixelFormat, seed: Int = 0) throws -> Frame {
        let shift = depth(format) - 8
        return try PictureFitterTests.picture(w, h, format) { p, x, y, _ in (20 + (x * 7 + y * 13 + p * 31 + seed * 17) % 200) << shift }
    }

    static func copy(_ picture: Frame, onto canvas: Frame) throws {
        try FFmpeg.check(av_frame_copy(canvas.pointer, picture.pointer), "copy")
    }

    static func all(_ f: Frame) -> [Int] {
        let s = av_pix_fmt_desc_get(f.pixelFormat)!.pointee
        return (0...2).flatMap { p in
            let (w, h) = p == 0 ? (Int(f.width), Int(f.height)) : (Int(f.width) >> s.log2_chroma_w, Int(f.height) >> s.log2_chroma_h)
            return (0..<h).flatMap { y in (0..<w).map { x in value(f, p, x, y) } }
        }
    }
}
