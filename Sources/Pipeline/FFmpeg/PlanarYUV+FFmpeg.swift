import CFFmpeg

extension PlanarYUV {
    /// `format`'s layout; throws naming the format and saying why when layers cannot be drawn in it.
    init(_ format: AVPixelFormat) throws(MediaError) {
        let refuse = { (why: String) in
            MediaError(.unsupported, "cannot draw layers into \(pixelFormatName(format)) frames: \(why)")
        }
        guard let d = av_pix_fmt_desc_get(format)?.pointee else { throw refuse("it is not a pixel format") }
        let refusals: [(Int32, String)] = [(AV_PIX_FMT_FLAG_HWACCEL, "its pictures are in a device's memory"),
                                           (AV_PIX_FMT_FLAG_PAL, "it is paletted"),
                                           (AV_PIX_FMT_FLAG_BITSTREAM, "its pixels are not whole bytes"),
                                           (AV_PIX_FMT_FLAG_BAYER, "it is a raw Bayer mosaic"),
                                           (AV_PIX_FMT_FLAG_RGB, "it is RGB, and layers are drawn in planar Y'CbCr"),
                                           (AV_PIX_FMT_FLAG_FLOAT, "its samples are floating point"),
                                           (AV_PIX_FMT_FLAG_ALPHA, "it has an alpha plane"),
                                           (AV_PIX_FMT_FLAG_BE, "its samples are big-endian")]
        for (flag, why) in refusals where d.flags & UInt64(flag) != 0 { throw refuse(why) }
        let comps = withUnsafeBytes(of: d.comp) { Array($0.bindMemory(to: AVComponentDescriptor.self).prefix(Int(d.nb_components))) }
        guard comps.count == 3 else { throw refuse("it is not Y'CbCr in three components") }
        let depth = Int(comps[0].depth), bytes = depth > 8 ? 2 : 1
        // Each component alone in its plane, in the low bits of whole samples (not nv12, not p010).
        let planar = comps.enumerated().allSatisfy { i, c in
            Int(c.plane) == i && Int(c.step) == bytes && c.offset == 0 && c.shift == 0 && Int(c.depth) == depth
        }
        guard planar, depth <= 16 else { throw refuse("layers are drawn in planar Y'CbCr, each component in a plane of its own") }
        guard d.log2_chroma_w <= 1, d.log2_chroma_h <= 1 else { throw refuse("its chroma is subsampled more than 2:1") }
        self.init(depth: depth, sampleBytes: bytes, shiftX: Int(d.log2_chroma_w), shiftY: Int(d.log2_chroma_h))
    }
}
