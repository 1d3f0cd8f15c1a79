import CFFmpeg

import Recipe

/// A picture faded towards a colour: what a composition's `fade-in`/`fade-out` and a `dip`
/// transition do to the pictures around them. Done in the picture's own format, component by
/// component (8 bits, or up to 16 in two bytes): `c + (v − c)·amount`, rounded, with c the
/// colour's Y'CbCr in the picture's matrix (BT.601 for SD-tagged pictures, else BT.709), range and
/// depth. The chroma planes of a 4:2:0 picture fade with the same amount as the luma they cover,
/// so no colour shifts.
extension Frame {
    /// A new picture: this one at `amount` (1: itself, 0: the colour) over `color`. This picture
    /// is not changed (repeated slots share it).
    /// `pools`: where the new picture's memory comes from (none: a buffer of its own).
    func faded(_ amount: Double, toward color: RecipeColor = .black, from pools: PicturePools? = nil) throws(MediaError) -> Frame {
        guard let d = av_pix_fmt_desc_get(pixelFormat)?.pointee else {
            throw MediaError(.unsupported, "cannot fade a picture of an unknown pixel format")
        }
        let planar = d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
        let rgb = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        let bigEndian = d.flags & UInt64(AV_PIX_FMT_FLAG_BE) != 0
        guard planar, !rgb, !bigEndian, d.nb_components >= 3 else {
            throw MediaError(.unsupported, "cannot fade \(pixelFormatName(pixelFormat)) pictures: fades work on planar Y'CbCr")
        }
        let out: Frame
        if let pools { out = try pools.picture(width: width, height: height, format: pixelFormat) } else { out = try Frame.video(width: width, height: height, format: pixelFormat) }
        out.pointer.pointee.color_range = pointer.pointee.color_range
        out.pointer.pointee.colorspace = pointer.pointee.colorspace
        out.pointer.pointee.color_primaries = pointer.pointee.color_primaries
        out.pointer.pointee.color_trc = pointer.pointee.color_trc
        let depth = Int(d.comp.0.depth)
        let full = pixelFormat.isFullRangeYUV || pointer.pointee.color_range == AVCOL_RANGE_JPEG
        let a = max(0, min(1, amount))
        let target = Self.components(of: color, depth: depth, fullRange: full,
                                     sd: [AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG].contains(pointer.pointee.colorspace),
                                     bt2020: [AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL].contains(pointer.pointee.colorspace))
        for p in 0..<3 {
            let chroma = p > 0
            let w = Int(chroma ? -((-width) >> d.log2_chroma_w) : width)
            let h = Int(chroma ? -((-height) >> d.log2_chroma_h) : height)
            let black = target[p]
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
        // An alpha plane (yuva formats) is not faded but kept: the new picture's memory may be a
        // pooled one's, which would show an earlier picture's alpha.
        for p in 3..<Int(d.nb_components) {
            guard let src = plane(Int32(p)), let dst = out.plane(Int32(p)) else { continue }
            av_image_copy_plane(dst, Int32(out.lineSize(Int32(p))), src, Int32(lineSize(Int32(p))),
                                Int32(width) * Int32((depth + 7) / 8), height)
        }
        return out
    }

    /// `color` as Y', Cb, Cr code values of `depth` bits, in full or limited range.
    /// `bt2020`: the BT.2020 matrix (an HDR or wide-gamut picture's) instead of BT.601 (`sd`)
    /// or BT.709. The colour's code values are those of its R'G'B' in that matrix; what they mean
    /// in light is the transfer's (white is the format's peak code value whatever the transfer).
    static func components(of color: RecipeColor, depth: Int, fullRange: Bool, sd: Bool, bt2020: Bool = false) -> [Int] {
        let (kr, kb) = bt2020 ? (0.2627, 0.0593) : sd ? (0.299, 0.114) : (0.2126, 0.0722)
        let r = Double(color.red) / 255, g = Double(color.green) / 255, b = Double(color.blue) / 255
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - y) / (2 * (1 - kb)), cr = (r - y) / (2 * (1 - kr))
        let scale = Double(1 << (depth - 8))
        let yCode = fullRange ? y * 255 : 16 + 219 * y
        let cScale = fullRange ? 255.0 : 224.0
        return [yCode, 128 + cScale * cb, 128 + cScale * cr].map { Int(($0 * scale).rounded()) }
    }
}
