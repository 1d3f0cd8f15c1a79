import CFFmpeg

/// A picture faded towards a colour: what a composition's `fade-in`/`fade-out` (dip from and to
/// black) does to the pictures at its ends. Done in the picture's own format, component by
/// component (8 bits, or up to 16 in two bytes): `black + (v − black)·amount`, rounded. The chroma
/// planes of a 4:2:0 picture fade with the same amount as the luma they cover, so no colour shifts.
extension Frame {
    /// A new picture: this one at `amount` (1: itself, 0: black) over black. This picture is not
    /// changed (repeated slots share it).
    func fadedToBlack(_ amount: Double) throws(MediaError) -> Frame {
        guard let d = av_pix_fmt_desc_get(pixelFormat)?.pointee else {
            throw MediaError(.unsupported, "cannot fade a picture of an unknown pixel format")
        }
        let planar = d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
        let rgb = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        let bigEndian = d.flags & UInt64(AV_PIX_FMT_FLAG_BE) != 0
        guard planar, !rgb, !bigEndian, d.nb_components >= 3 else {
            throw MediaError(.unsupported, "cannot fade \(pixelFormatName(pixelFormat)) pictures: fades work on planar Y'CbCr")
        }
        let out = try Frame.video(width: width, height: height, format: pixelFormat)
        out.pointer.pointee.color_range = pointer.pointee.color_range
        out.pointer.pointee.colorspace = pointer.pointee.colorspace
        out.pointer.pointee.color_primaries = pointer.pointee.color_primaries
        out.pointer.pointee.color_trc = pointer.pointee.color_trc
        let depth = Int(d.comp.0.depth)
        let full = pixelFormat.isFullRangeYUV || pointer.pointee.color_range == AVCOL_RANGE_JPEG
        let a = max(0, min(1, amount))
        for p in 0..<3 {
            let chroma = p > 0
            let w = Int(chroma ? -((-width) >> d.log2_chroma_w) : width)
            let h = Int(chroma ? -((-height) >> d.log2_chroma_h) : height)
            let black = chroma ? 1 << (depth - 1) : (full ? 0 : 16 << (depth - 8))
            guard let src = plane(Int32(p)), let dst = out.plane(Int32(p)) else { continue }
            let srcLine = lineSize(Int32(p)), dstLine = out.lineSize(Int32(p))
            for y in 0..<h {
                if depth <= 8 {
                    let s = src + y * srcLine, o = dst + y * dstLine
                    for x in 0..<w { o[x] = UInt8(clamping: black + Int((Double(Int(s[x]) - black) * a).rounded())) }
                } else {
                    let s = UnsafeMutableRawPointer(src + y * srcLine).assumingMemoryBound(to: UInt16.self)
                    let o = UnsafeMutableRawPointer(dst + y * dstLine).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<w { o[x] = UInt16(clamping: black + Int((Double(Int(s[x]) - black) * a).rounded())) }
                }
            }
        }
        return out
    }
}
