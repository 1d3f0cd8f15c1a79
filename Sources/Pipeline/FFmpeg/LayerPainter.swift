import CFFmpeg
import Recipe

/// A layer's picture made ready to draw: cropped, upright, scaled to its place. The compositor
/// keeps it while the same source picture repeats.
struct PreparedLayer {
    /// The transformed pixels, exactly `rect`'s size: in the painter's format, or in its 4:4:4
    /// twin when an edge of `rect` falls inside a chroma sample (see `LayerPainter.draw`).
    let pixels: Frame
    /// Where they go, in output pixels (may be odd, or partly outside the frame).
    let rect: PixelRect

    var x: Int32 { rect.x }
    var y: Int32 { rect.y }
    var width: Int32 { rect.width }
    var height: Int32 { rect.height }
}

/// The pixel kernel of a video composition: draws layers' pictures into one output picture,
/// bottom to top, each at its rectangle and opacity, in the output's own pixel format (planar
/// Y'CbCr, see `PlanarYUV`).
///
/// Preparing a layer reuses the picture fitter's pieces: libswscale (kept Scalers) scales the
/// picture, cropped, straight into the output format at its final size before the turn, and
/// `copyTurned` turns it upright. A layer whose edges are on the chroma grid (even x, y, width,
/// height in 4:2:0) is drawn plane by plane, row by row. One with an edge inside a chroma sample
/// is prepared with full-resolution chroma (the format's 4:4:4 twin), and each canvas chroma
/// sample it touches mixes the mean of the layer's chroma over the pixels it covers, weighted by
/// how many of the sample's pixels those are: no colour is shifted half a sample or bleeds.
///
/// Owned by one compositor (one lane's queue): not Sendable.
final class LayerPainter {
    let width: Int32, height: Int32, pixelFormat: AVPixelFormat
    let background: RecipeColor
    private let layout: PlanarYUV
    /// The format with this one's layout and full chroma (itself when 4:4:4); nil if FFmpeg has none.
    private let fullChromaFormat: AVPixelFormat?
    /// Several layers, each its own source, alternate every output frame.
    private let scalers = ScalerCache(capacity: 8)
    /// Working pictures (a layer before its turn, an odd crop's full-chroma copy) reused between
    /// frames; one still referenced (by a prepared layer sharing it) is not written again.
    private var workingPictures: [Frame] = []
    /// Each frame's canvas and layers turned upright: memory reused once downstream drops them.
    private let canvases: PicturePool
    private let turnedPictures = PicturePools()

    /// The output's colour tags, which the canvas and its background's code values follow
    /// (nil: as `canvas(like:)` is given).
    private let outputColor: (range: AVColorRange, matrix: AVColorSpace, primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic)?

    /// `outputColor`: the output's tags by FFmpeg's names (`tv`, `smpte170m`; nil each: unspecified).
    init(width: Int32, height: Int32, pixelFormat: AVPixelFormat, background: RecipeColor,
         outputColor: (range: String?, matrix: String?, primaries: String?, transfer: String?)? = nil) throws(MediaError) {
        self.outputColor = outputColor.map { c in
            func value(_ name: String?, _ lookup: (UnsafePointer<CChar>) -> Int32) -> UInt32? {
                let v = name.map { $0.withCString(lookup) } ?? -1
                return v >= 0 ? UInt32(v) : nil
            }
            let range = value(c.range, av_color_range_from_name).map { AVColorRange(rawValue: $0) }
            return (range.flatMap { $0 == AVCOL_RANGE_UNSPECIFIED ? nil : $0 } ?? (pixelFormat.isFullRangeYUV ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG),
                    value(c.matrix, av_color_space_from_name).map { AVColorSpace(rawValue: $0) } ?? AVCOL_SPC_UNSPECIFIED,
                    value(c.primaries, av_color_primaries_from_name).map { AVColorPrimaries(rawValue: $0) } ?? AVCOL_PRI_UNSPECIFIED,
                    value(c.transfer, av_color_transfer_from_name).map { AVColorTransferCharacteristic(rawValue: $0) } ?? AVCOL_TRC_UNSPECIFIED)
        }
        layout = try PlanarYUV(pixelFormat)
        let (sx, sy) = (Int32(layout.shiftX), Int32(layout.shiftY))
        guard width > 0, height > 0, width % (1 << sx) == 0, height % (1 << sy) == 0 else {
            throw MediaError(.unsupported, "cannot draw layers into a \(width)x\(height) \(pixelFormatName(pixelFormat)) frame: its chroma needs an even \(width % (1 << sx) != 0 ? "width" : "height")")
        }
        fullChromaFormat = PlaneLayout.twin(of: pixelFormat, chromaShift: (0, 0))
        (self.width, self.height, self.pixelFormat, self.background) = (width, height, pixelFormat, background)
        canvases = try PicturePool(width: width, height: height, format: pixelFormat)
    }

    // MARK: Prepare

    /// A layer's picture transformed for drawing: cropped (upright pixels), turned upright by
    /// `rotation` (degrees clockwise, as FormatDescription.rotation / Frame.display), pixel aspect
    /// applied, scaled by `placement.fit` into `placement.rect` (nil = whole frame) and centred in
    /// it (see `LayerGeometry`). The picture is not modified.
    func prepare(_ picture: Frame, rotation: Int, pixelAspect: Ratio, placement: LayerPlacement) throws(MediaError) -> PreparedLayer {
        guard picture.width > 0, picture.height > 0 else {
            throw MediaError(.processing, "cannot draw a \(picture.width)x\(picture.height) picture as a layer")
        }
        let g = try LayerGeometry(picture: (picture.width, picture.height), rotation: rotation, pixelAspect: pixelAspect,
                                  placement: placement, frame: (width, height))
        let turns = PictureFitter.quarterTurns(rotation)
        let d = g.destination
        let layerFormat = layout.splitsChroma(d) ? try fullChroma() : pixelFormat
        // A quarter turn swaps the chroma subsampling's axes: scale into the twin it turns into layerFormat.
        let scaledFormat = turns % 2 == 1 ? try quarterTurnSource(for: layerFormat) : layerFormat
        let (tw, th) = turns % 2 == 1 ? (d.height, d.width) : (d.width, d.height)
        let source = try cropped(picture, to: g.stored)
        // Already the size and format wanted: no scaling (the layer then shares the source's buffers, read only).
        let unscaled = (source.width, source.height, source.pixelFormat) == (tw, th, scaledFormat)
        guard turns != 0 else {
            let scaled = unscaled ? source : try scalers.scaler(from: source, to: (tw, th, scaledFormat)).scale(source)
            return PreparedLayer(pixels: scaled, rect: d)
        }
        var scaled = source
        if !unscaled {
            scaled = try workingPicture(tw, th, scaledFormat)
            try scalers.scaler(from: source, to: (tw, th, scaledFormat)).scale(source, into: scaled)
        }
        let turned = try turnedPictures.picture(width: d.width, height: d.height, format: layerFormat)
        for (s, t) in try zip(PlaneLayout.planes(of: scaledFormat), PlaneLayout.planes(of: layerFormat)) {
            guard let src = scaled.plane(s.index), let dst = turned.plane(t.index) else { continue }
            copyTurned(from: UnsafeRawPointer(src), stride: scaled.lineSize(s.index),
                       width: Int(tw) >> s.shiftX, height: Int(th) >> s.shiftY,
                       to: UnsafeMutableRawPointer(dst), stride: turned.lineSize(t.index),
                       quarterTurns: turns, elementBytes: t.elementBytes)
        }
        return PreparedLayer(pixels: turned, rect: d)
    }

    /// `region` of `picture` (stored pixels) as a picture of its own: a view into its buffers.
    /// A view can only start on the picture's chroma grid (its chroma pointers move by whole
    /// samples); a region starting between (an odd column of 4:2:0) would show chroma half a
    /// sample off, so the chroma-grid region around it is first converted to full chroma, unscaled,
    /// and the view taken from that.
    private func cropped(_ picture: Frame, to region: PixelRect) throws(MediaError) -> Frame {
        if region == PixelRect(x: 0, y: 0, width: picture.width, height: picture.height) { return picture }
        guard let d = av_pix_fmt_desc_get(picture.pixelFormat)?.pointee else {
            throw MediaError(.unsupported, "cannot crop a picture of an unknown pixel format")
        }
        let (gx, gy) = (Int32(1) << Int32(d.log2_chroma_w), Int32(1) << Int32(d.log2_chroma_h))
        if region.x % gx == 0 && region.y % gy == 0 { return try view(of: picture, region) }
        let x0 = region.x / gx * gx, y0 = region.y / gy * gy
        let x1 = min((region.x + region.width + gx - 1) / gx * gx, picture.width)
        let y1 = min((region.y + region.height + gy - 1) / gy * gy, picture.height)
        let around = try view(of: picture, PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        let full = try workingPicture(around.width, around.height, try fullChroma())
        try scalers.scaler(from: around, to: (around.width, around.height, full.pixelFormat)).scale(around, into: full)
        return try view(of: full, PixelRect(x: region.x - x0, y: region.y - y0, width: region.width, height: region.height))
    }

    /// A new reference to `frame`'s buffers showing only `r` (no pixels copied).
    private func view(of frame: Frame, _ r: PixelRect) throws(MediaError) -> Frame {
        let v = try frame.reference()
        v.pointer.pointee.crop_left = Int(r.x)
        v.pointer.pointee.crop_top = Int(r.y)
        v.pointer.pointee.crop_right = Int(frame.width - r.x - r.width)
        v.pointer.pointee.crop_bottom = Int(frame.height - r.y - r.height)
        try FFmpeg.check(av_frame_apply_cropping(v.pointer, Int32(AV_FRAME_CROP_UNALIGNED)), "cannot crop a picture to \(r)")
        return v
    }

    /// A kept working picture of this size and format that nothing else references, or a new one
    /// kept in place of the oldest.
    private func workingPicture(_ w: Int32, _ h: Int32, _ format: AVPixelFormat) throws(MediaError) -> Frame {
        if let f = workingPictures.first(where: { ($0.width, $0.height, $0.pixelFormat) == (w, h, format) && av_frame_is_writable($0.pointer) != 0 }) {
            return f
        }
        let f = try Frame.video(width: w, height: h, format: format)
        if workingPictures.count == 4 { workingPictures.removeFirst() }
        workingPictures.append(f)
        return f
    }

    private func fullChroma() throws(MediaError) -> AVPixelFormat {
        guard let f = fullChromaFormat else {
            throw MediaError(.unsupported, "cannot draw a layer at an odd position into \(pixelFormatName(pixelFormat)) frames: FFmpeg has no format like it with full-resolution chroma")
        }
        return f
    }

    private func quarterTurnSource(for format: AVPixelFormat) throws(MediaError) -> AVPixelFormat {
        guard let f = PlaneLayout.quarterTurnSource(for: format) else {
            throw MediaError(.unsupported, "cannot turn pictures a quarter turn into \(pixelFormatName(format)) frames: FFmpeg has no format with its chroma subsampled the other way")
        }
        return f
    }

    // MARK: Canvas

    /// A new output picture filled with the background colour. Its range, matrix, primaries and
    /// transfer are the output's when the painter was given them, else `like`'s when given (the
    /// colour's code values follow them), else the format's (full range for yuvj formats,
    /// limited otherwise).
    func canvas(like: Frame?) throws(MediaError) -> Frame {
        let f = try canvases.picture()
        let p = f.pointer
        if let c = outputColor {
            (p.pointee.color_range, p.pointee.colorspace, p.pointee.color_primaries, p.pointee.color_trc) = (c.range, c.matrix, c.primaries, c.transfer)
        } else if let like {
            p.pointee.color_range = like.pointer.pointee.color_range
            p.pointee.colorspace = like.pointer.pointee.colorspace
            p.pointee.color_primaries = like.pointer.pointee.color_primaries
            p.pointee.color_trc = like.pointer.pointee.color_trc
            p.pointee.chroma_location = like.pointer.pointee.chroma_location
        } else {
            p.pointee.color_range = AVCOL_RANGE_MPEG
        }
        if pixelFormat.isFullRangeYUV { p.pointee.color_range = AVCOL_RANGE_JPEG }
        p.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let values = Frame.components(of: background, depth: layout.depth, fullRange: p.pointee.color_range == AVCOL_RANGE_JPEG,
                                      sd: [AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG].contains(p.pointee.colorspace),
                                      bt2020: [AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL].contains(p.pointee.colorspace))
        for plane in 0..<3 {
            guard let base = f.plane(Int32(plane)) else { continue }
            let (sx, sy) = plane == 0 ? (0, 0) : (layout.shiftX, layout.shiftY)
            let (w, h) = (Int(width) >> sx, Int(height) >> sy)
            let line = f.lineSize(Int32(plane))
            let v = min(max(values[plane], 0), layout.ceiling)
            for y in 0..<h {
                let row = UnsafeMutableRawPointer(base + y * line)
                if layout.sampleBytes == 1 {
                    row.assumingMemoryBound(to: UInt8.self).update(repeating: UInt8(v), count: w)
                } else {
                    row.assumingMemoryBound(to: UInt16.self).update(repeating: UInt16(v), count: w)
                }
            }
        }
        return f
    }

    /// `layer` as a whole frame over the background colour: its bars are then part of it (a
    /// cross-fade's roll fades them with its picture, as the picture shows alone). `like`: the
    /// canvas it is drawn onto, whose background it repeats.
    func wholeFrame(_ layer: PreparedLayer, like: Frame) throws(MediaError) -> PreparedLayer {
        let whole = PixelRect(x: 0, y: 0, width: width, height: height)
        guard layer.rect != whole else { return layer }
        let frame = try canvas(like: like)
        try draw(layer, opacity: 1, onto: frame)
        return PreparedLayer(pixels: frame, rect: whole)
    }

    // MARK: Draw

    /// Draws `layer` onto `canvas` at `opacity` (0…1; 1 replaces, 0 leaves it as it was),
    /// clipped to the frame: each sample becomes `below + (layer − below)·opacity`, rounded.
    func draw(_ layer: PreparedLayer, opacity: Double, onto canvas: Frame) throws(MediaError) {
        guard (canvas.width, canvas.height, canvas.pixelFormat) == (width, height, pixelFormat) else {
            throw MediaError(.processing, "cannot draw a layer onto a \(canvas.width)x\(canvas.height) \(pixelFormatName(canvas.pixelFormat)) picture: the painter draws \(width)x\(height) \(pixelFormatName(pixelFormat))")
        }
        let src = layer.pixels, r = layer.rect
        // In the output's format (4:4:4 output, or edges on the chroma grid), or its 4:4:4 twin.
        let direct = src.pixelFormat == pixelFormat
        guard (src.width, src.height) == (r.width, r.height),
              direct ? !layout.splitsChroma(r) : src.pixelFormat == fullChromaFormat else {
            throw MediaError(.processing, "cannot draw a \(src.width)x\(src.height) \(pixelFormatName(src.pixelFormat)) layer at \(r): it was not prepared by this painter")
        }
        let weight = LayerBlend.weight(opacity)
        // The part inside the frame, in luma pixels.
        let x0 = max(Int(r.x), 0), y0 = max(Int(r.y), 0)
        let x1 = min(Int(r.x) + Int(r.width), Int(width)), y1 = min(Int(r.y) + Int(r.height), Int(height))
        guard weight > 0, x1 > x0, y1 > y0 else { return }
        let visible = (x0: x0, y0: y0, x1: x1, y1: y1)
        if layout.sampleBytes == 1 {
            drawPlanes(UInt8.self, src, at: r, visible: visible, onto: canvas, weight: weight, direct: direct)
        } else {
            drawPlanes(UInt16.self, src, at: r, visible: visible, onto: canvas, weight: weight, direct: direct)
        }
    }

    private func drawPlanes<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type, _ src: Frame, at r: PixelRect, visible v: (x0: Int, y0: Int, x1: Int, y1: Int),
        onto canvas: Frame, weight: Int, direct: Bool
    ) {
        let ceiling = layout.ceiling, bytes = MemoryLayout<T>.size
        for plane in Int32(0)..<3 {
            guard let s = src.plane(plane), let d = canvas.plane(plane) else { continue }
            let (sl, dl) = (src.lineSize(plane), canvas.lineSize(plane))
            let (sx, sy) = plane == 0 ? (0, 0) : (layout.shiftX, layout.shiftY)
            if plane == 0 || direct {
                // On the chroma grid (or luma): the layer's samples map one to one onto the canvas's.
                let (rx, ry) = (Int(r.x) >> sx, Int(r.y) >> sy)
                let (cx0, cx1) = (v.x0 >> sx, v.x1 >> sx)
                for y in (v.y0 >> sy)..<(v.y1 >> sy) {
                    LayerBlend.row(T.self, UnsafeRawPointer(s + (y - ry) * sl + (cx0 - rx) * bytes),
                                   onto: UnsafeMutableRawPointer(d + y * dl + cx0 * bytes),
                                   count: cx1 - cx0, weight: weight, ceiling: ceiling)
                }
                continue
            }
            // Full-resolution layer chroma into subsampled canvas chroma, sample by covered pixels.
            let columns = (v.x0 >> sx)...((v.x1 - 1) >> sx)
            for cy in (v.y0 >> sy)...((v.y1 - 1) >> sy) {
                let ly0 = max(cy << sy, v.y0), ly1 = min((cy + 1) << sy, v.y1)
                let first = UnsafeRawPointer(s + (ly0 - Int(r.y)) * sl)
                let second = ly1 - ly0 == 2 ? first + sl : nil
                LayerBlend.coveredRow(T.self, layerRows: (first, second), originX: Int(r.x),
                                      onto: UnsafeMutableRawPointer(d + cy * dl), columns: columns,
                                      visible: v.x0..<v.x1, shift: (sx, sy), weight: weight, ceiling: ceiling)
            }
        }
    }
}
