import CFFmpeg
import Recipe

/// Draws pictures of any size, pixel aspect and orientation into one render frame, as a
/// composition of several sources needs: turned upright (the output has one display matrix for
/// all its pictures, so each source's rotation is baked into the pixels), fitted inside the
/// render size at its display aspect, centred, with black bars around, in the sink's format.
///
/// Order: scale first (libswscale, straight into the target format at the fitted size before
/// the turn), then turn while copying into the black canvas at the placement. Scaling first
/// means the turn knows only the target's plane layout whatever the source's format, and turns
/// the fitted picture, usually smaller than the source (a 4K phone clip in a 1080p render).
/// A quarter turn swaps the axes of chroma subsampling, so for it a 4:2:2 target is scaled into
/// its 4:4:0 twin, which the turn makes 4:2:2 (4:2:0 and 4:4:4 are their own twins). The turn
/// is plain row loops (a memcpy per row at 0°): about 1.5 ms a 1080p luma plane at -O.
///
/// Owned by one video sink (not Sendable); keeps its Scalers between frames of the same source format.
final class PictureFitter {
    let width: Int32, height: Int32, pixelFormat: AVPixelFormat
    private let planes: [PlaneLayout]
    /// What pictures are scaled into before a quarter turn (see `PlaneLayout.quarterTurnSource`),
    /// and its planes; nil when the target format has no such twin.
    private let quarterTurnSource: (format: AVPixelFormat, planes: [PlaneLayout])?
    /// One per source format and fitted size seen lately.
    private let scalers = ScalerCache(capacity: 4)
    /// The render frames pictures are drawn into (one per frame still held downstream).
    private let canvases: PicturePool

    init(width: Int32, height: Int32, pixelFormat: AVPixelFormat) throws(MediaError) {
        guard width >= 2, height >= 2, width % 2 == 0, height % 2 == 0 else {
            throw MediaError(.unsupported, "cannot fit pictures into a \(width)x\(height) frame: the render size must be even")
        }
        planes = try PlaneLayout.planes(of: pixelFormat)
        if let twin = PlaneLayout.quarterTurnSource(for: pixelFormat) {
            quarterTurnSource = (twin, try PlaneLayout.planes(of: twin))
        } else {
            quarterTurnSource = nil
        }
        (self.width, self.height, self.pixelFormat) = (width, height, pixelFormat)
        canvases = try PicturePool(width: width, height: height, format: pixelFormat)
    }

    /// `rotation`: degrees the source picture is turned clockwise for display (0, 90, 180, 270; as FormatDescription.rotation).
    /// `pixelAspect`: the source's sample aspect ratio (square when unknown).
    /// Returns a frame of exactly width×height in pixelFormat (a new frame, never written to again; the input is not modified),
    /// with the source's timestamps, square pixels and no display matrix.
    func fit(_ frame: Frame, rotation: Int, pixelAspect: Ratio) throws(MediaError) -> Frame {
        guard frame.width > 0, frame.height > 0 else {
            throw MediaError(.processing, "cannot fit a \(frame.width)x\(frame.height) picture into the render frame")
        }
        let turns = Self.quarterTurns(rotation)
        let place = Self.placement(source: (frame.width, frame.height), rotation: rotation,
                                   pixelAspect: pixelAspect, render: (width, height))
        // The picture before its turn: a quarter turn swaps the placed width and height, and the
        // axes of its chroma subsampling.
        let (sw, sh) = turns % 2 == 1 ? (place.height, place.width) : (place.width, place.height)
        let (scaledFormat, scaledPlanes) = try turns % 2 == 1 ? quarterTurnFormat() : (pixelFormat, planes)
        // Already the size and format wanted: no scaling (and libswscale's nv12 → nv12 copy
        // leaves the chroma plane unwritten). Only read from here on.
        let unscaled = (frame.width, frame.height, frame.pixelFormat) == (sw, sh, scaledFormat)
        let scaled = unscaled ? frame : try scalers.scaler(from: frame, to: (sw, sh, scaledFormat)).scale(frame)
        let range = outputRange(of: frame)
        if turns == 0 && place == (0, 0, width, height) {
            // Unscaled: a new reference to the same pixels (nothing writes into a fitted picture);
            // only the frame's own properties change.
            let out = unscaled ? try frame.reference() : scaled
            finish(out, range: range)
            return out
        }
        let canvas = try canvases.picture()
        try FFmpeg.check(av_frame_copy_props(canvas.pointer, frame.pointer), "frame properties")
        finish(canvas, range: range)
        // Whole canvas, then the picture over it: the bars are never left with old memory.
        try canvas.fillBlack()
        for (s, d) in zip(scaledPlanes, planes) {
            guard let src = scaled.plane(s.index), let dst = canvas.plane(d.index) else { continue }
            let offset = Int(place.y >> Int32(d.shiftY)) * canvas.lineSize(d.index)
                + Int(place.x >> Int32(d.shiftX)) * d.elementBytes
            copyTurned(from: UnsafeRawPointer(src), stride: scaled.lineSize(s.index),
                       width: Int(sw) >> s.shiftX, height: Int(sh) >> s.shiftY,
                       to: UnsafeMutableRawPointer(dst + offset), stride: canvas.lineSize(d.index),
                       quarterTurns: turns, elementBytes: d.elementBytes)
        }
        return canvas
    }

    /// Where the picture lands inside the render frame (x, y, w, h), for plans and tests.
    /// The display size (pixel aspect applied, then the turn) is fitted inside the render size;
    /// width and height are rounded to the nearest even number (halves up), the offsets centre
    /// it and are even (an odd margin leaves the extra pixel right or below).
    static func placement(source: (width: Int32, height: Int32), rotation: Int, pixelAspect: Ratio,
                          render: (width: Int32, height: Int32)) -> (x: Int32, y: Int32, width: Int32, height: Int32) {
        let rw = Int128(render.width), rh = Int128(render.height)
        let par = pixelAspect.num > 0 && pixelAspect.den > 0 ? pixelAspect : .square
        // Display width : height as whole numbers (w·num : h·den), turned.
        var dw = Int128(max(source.width, 1)) * Int128(par.num)
        var dh = Int128(max(source.height, 1)) * Int128(par.den)
        if quarterTurns(rotation) % 2 == 1 { swap(&dw, &dh) }
        let evenMax = { (n: Int128) in max(n - n % 2, 2) }
        /// n/d to the nearest even number, halves up, between 2 and `limit` made even.
        let even = { (n: Int128, d: Int128, limit: Int128) -> Int128 in
            min(max((n + d) / (2 * d) * 2, 2), evenMax(limit))
        }
        let w: Int128, h: Int128
        if dw * rh >= dh * rw { // as wide as the render or wider: full width, bars above and below
            (w, h) = (evenMax(rw), even(rw * dh, dw, rh))
        } else {
            (w, h) = (even(rh * dw, dh, rw), evenMax(rh))
        }
        let x = max((rw - w) / 4 * 2, 0), y = max((rh - h) / 4 * 2, 0)
        return (Int32(x), Int32(y), Int32(w), Int32(h))
    }

    /// 0…3 clockwise quarter turns for a rotation in degrees (any multiple of 90, negative too;
    /// others to the nearest quarter turn).
    static func quarterTurns(_ degrees: Int) -> Int {
        let d = ((degrees % 360) + 360) % 360
        return ((d + 45) / 90) % 4
    }

    private func quarterTurnFormat() throws(MediaError) -> (AVPixelFormat, [PlaneLayout]) {
        guard let q = quarterTurnSource else {
            throw MediaError(.unsupported, "cannot turn pictures a quarter turn into \(pixelFormatName(pixelFormat)) frames: FFmpeg has no format with its chroma subsampled the other way")
        }
        return q
    }

    /// The range the fitted pixels are in: libswscale converts between a yuvj format's full range
    /// and the others' limited range, and otherwise keeps the source's values (and so its tag).
    private func outputRange(of source: Frame) -> AVColorRange {
        if pixelFormat.isFullRangeYUV { return AVCOL_RANGE_JPEG }
        if source.pixelFormat.isFullRangeYUV { return AVCOL_RANGE_MPEG }
        return source.pointer.pointee.color_range
    }

    /// What a fitted picture says about itself: upright, square pixels, its range.
    private func finish(_ f: Frame, range: AVColorRange) {
        f.pointer.pointee.color_range = range
        f.pointer.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        av_frame_remove_side_data(f.pointer, AV_FRAME_DATA_DISPLAYMATRIX)
    }
}
