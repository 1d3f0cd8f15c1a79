import CFFmpeg

/// How one plane of a picture format is laid out, as far as turning it by quarter turns needs:
/// the bytes of one element (a sample, a packed pixel, or nv12's U·V pair) and how much smaller
/// than the picture the plane is (chroma subsampling, as powers of two).
struct PlaneLayout: Equatable {
    let index: Int32
    let elementBytes: Int
    let shiftX: Int
    let shiftY: Int

    /// The planes of `format`; throws saying why when its pictures cannot be turned element by element.
    static func planes(of format: AVPixelFormat) throws(MediaError) -> [PlaneLayout] {
        let failure = { (why: String) in MediaError(.unsupported, "cannot fit pictures into \(pixelFormatName(format)) frames: \(why)") }
        guard let d = av_pix_fmt_desc_get(format)?.pointee else { throw failure("it is not a pixel format") }
        let refusals: [(Int32, String)] = [(AV_PIX_FMT_FLAG_HWACCEL, "its pictures are in a device's memory"),
                                           (AV_PIX_FMT_FLAG_PAL, "it is paletted"),
                                           (AV_PIX_FMT_FLAG_BITSTREAM, "its pixels are not whole bytes"),
                                           (AV_PIX_FMT_FLAG_BAYER, "it is a raw Bayer mosaic")]
        for (flag, why) in refusals where d.flags & UInt64(flag) != 0 { throw failure(why) }
        // Placements are even (FFmpeg's 4:2:0 and 4:2:2 at most halve a plane); 4:1:1 would need multiples of 4.
        if d.log2_chroma_w > 1 || d.log2_chroma_h > 1 { throw failure("its chroma is subsampled more than 2:1") }
        let count = Int(d.nb_components)
        let comps = components(of: d)
        let isRGB = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        // Components 1 and 2 are chroma in YUV with three or more components (in ya8, 1 is alpha).
        let isChroma = { (c: Int) in !isRGB && count >= 3 && (c == 1 || c == 2) }
        var planes: [PlaneLayout] = []
        for p in 0..<Int(av_pix_fmt_count_planes(format)) {
            let inPlane = comps.indices.filter { Int(comps[$0].plane) == p }
            guard let first = inPlane.first else { throw failure("plane \(p) holds no component") }
            let chroma = inPlane.map(isChroma)
            let subsampled = d.log2_chroma_w > 0 || d.log2_chroma_h > 0
            // Packed 4:2:2 (yuyv422) shares one element between two pixels: not a per-pixel copy.
            if subsampled && chroma.contains(true) && chroma.contains(false) { throw failure("it packs luma and subsampled chroma together") }
            let isChromaPlane = chroma.contains(true)
            planes.append(PlaneLayout(index: Int32(p), elementBytes: Int(comps[first].step),
                                      shiftX: isChromaPlane ? Int(d.log2_chroma_w) : 0,
                                      shiftY: isChromaPlane ? Int(d.log2_chroma_h) : 0))
        }
        return planes
    }

    /// The format like `format` but with its chroma subsampling across instead of down (yuv440p
    /// for yuv422p): what a picture is scaled into before a quarter turn makes it `format`, since
    /// the turn swaps the chroma planes' axes. `format` itself when its subsampling is the same
    /// both ways (4:2:0, 4:4:4); nil when FFmpeg has no such format (nv16).
    static func quarterTurnSource(for format: AVPixelFormat) -> AVPixelFormat? {
        guard let d = av_pix_fmt_desc_get(format)?.pointee else { return nil }
        if d.log2_chroma_w == d.log2_chroma_h { return format }
        return twin(of: format, chromaShift: (Int(d.log2_chroma_h), Int(d.log2_chroma_w)))
    }

    /// The format laid out like `format` (planes, sample sizes, depth, range) but with its chroma
    /// subsampled by `chromaShift` (powers of two across, down): yuv444p10le for yuv420p10le at
    /// (0, 0). `format` itself when it already is; nil when FFmpeg has no such format.
    static func twin(of format: AVPixelFormat, chromaShift: (x: Int, y: Int)) -> AVPixelFormat? {
        guard let d = av_pix_fmt_desc_get(format)?.pointee else { return nil }
        if (Int(d.log2_chroma_w), Int(d.log2_chroma_h)) == chromaShift { return format }
        let comps = components(of: d)
        var next = av_pix_fmt_desc_next(nil)
        while let c = next {
            let e = c.pointee
            if Int(e.log2_chroma_w) == chromaShift.x && Int(e.log2_chroma_h) == chromaShift.y && e.flags == d.flags
                && e.nb_components == d.nb_components && components(of: e).elementsEqual(comps, by: sameLayout) {
                let candidate = av_pix_fmt_desc_get_id(c)
                // yuvj440p has yuv440p's layout but not its range.
                if candidate.isFullRangeYUV == format.isFullRangeYUV { return candidate }
            }
            next = av_pix_fmt_desc_next(c)
        }
        return nil
    }

    private static func components(of d: AVPixFmtDescriptor) -> [AVComponentDescriptor] {
        withUnsafeBytes(of: d.comp) { Array($0.bindMemory(to: AVComponentDescriptor.self).prefix(Int(d.nb_components))) }
    }

    private static func sameLayout(_ a: AVComponentDescriptor, _ b: AVComponentDescriptor) -> Bool {
        a.plane == b.plane && a.step == b.step && a.offset == b.offset && a.shift == b.shift && a.depth == b.depth
    }
}

/// Copies an upright `width`×`height` source plane into `dst` turned clockwise by `quarterTurns`.
/// `width`/`height` count elements of `elementBytes`; `dst` points at the destination's first
/// element (the placement's top-left), so the destination is `height`×`width` for odd turns.
///
/// Each destination row is read from the source as a line of elements at a fixed byte step: a
/// row forwards (0°, a memcpy), a row backwards (180°), or a column (90°, 270°). Destination
/// writes are always sequential, so the strided side is the read.
func copyTurned(from src: UnsafeRawPointer, stride srcStride: Int, width: Int, height: Int,
                to dst: UnsafeMutableRawPointer, stride dstStride: Int,
                quarterTurns: Int, elementBytes e: Int) {
    let (dw, dh) = quarterTurns % 2 == 1 ? (height, width) : (width, height)
    for y in 0..<dh {
        let out = dst + y * dstStride
        // D(x, y) = S(start + x·step) for each turn, with S(col, row) at row·srcStride + col·e.
        let start: Int, step: Int
        switch quarterTurns {
        case 0:
            (out).copyMemory(from: src + y * srcStride, byteCount: dw * e)
            continue
        case 1: // D(x, y) = S(y, h−1−x): up the source's column y
            (start, step) = ((height - 1) * srcStride + y * e, -srcStride)
        case 2: // D(x, y) = S(w−1−x, h−1−y): the source's row h−1−y backwards
            (start, step) = ((height - 1 - y) * srcStride + (width - 1) * e, -e)
        default: // 3: D(x, y) = S(w−1−y, x): down the source's column w−1−y
            (start, step) = ((width - 1 - y) * e, srcStride)
        }
        switch e {
        case 1: copyLine(UInt8.self, from: src + start, step: step, to: out, count: dw)
        case 2: copyLine(UInt16.self, from: src + start, step: step, to: out, count: dw)
        case 4: copyLine(UInt32.self, from: src + start, step: step, to: out, count: dw)
        case 8: copyLine(UInt64.self, from: src + start, step: step, to: out, count: dw)
        default:
            var s = src + start
            for x in 0..<dw {
                (out + x * e).copyMemory(from: s, byteCount: e)
                s += step
            }
        }
    }
}

/// `count` elements of `T`, read `step` bytes apart, written one after another.
@inline(__always)
private func copyLine<T: FixedWidthInteger>(_: T.Type, from src: UnsafeRawPointer, step: Int,
                                            to dst: UnsafeMutableRawPointer, count: Int) {
    var s = src
    for x in 0..<count {
        dst.storeBytes(of: s.loadUnaligned(as: T.self), toByteOffset: x &* MemoryLayout<T>.size, as: T.self)
        s += step
    }
}
