import CFFmpeg

/// Picture size and pixel-format conversion. Owns its SwsContexts (freed once, in deinit).
///
/// Pictures whose fields are kept as fields (`deinterlace: off`) have chroma per field: where the
/// conversion resamples chroma rows (4:2:2 ↔ 4:2:0, 4:2:0 → 4:4:4), each field is converted on
/// its own as a half-height picture (as ffmpeg's `scale=interl=1`), so one field's colour never
/// mixes into the other's. A conversion that keeps the chroma rows converts the frame whole.
// Not Sendable: a scaler belongs to one video lane.
final class Scaler {
    /// One context for the whole picture, or two: the top field's, then the bottom field's.
    private let contexts: [OpaquePointer]
    /// The pictures `scale(_:)` returns: one buffer per picture still held, none made per frame.
    private let pictures: PicturePool
    let width: Int32, height: Int32, format: AVPixelFormat
    let sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat
    /// Each field converted on its own.
    var byField: Bool { contexts.count == 2 }
    /// Y'CbCr into RGB: the matrix and range are the picture's own (libswscale otherwise takes
    /// BT.601's for every picture, and an HD picture's colours come out shifted).
    private let toRGB: Bool
    /// The picture colours the contexts were last told (`toRGB` only).
    private var told: (matrix: AVColorSpace, range: AVColorRange)?
    /// Limited range into full at the same size: by table (`RangeExpansion`), without a context.
    let expandsByTable: Bool

    /// `fields`: the pictures are two fields each, kept as fields. `byTable` false: libswscale
    /// expands the range too (checks compare the two).
    init(from src: (Int32, Int32, AVPixelFormat), to dst: (Int32, Int32, AVPixelFormat), fields: Bool = false,
         byTable: Bool = true) throws(MediaError) {
        (sourceWidth, sourceHeight, sourceFormat) = src
        (width, height, format) = dst
        // First: a failure here leaves no SwsContext to free.
        pictures = try PicturePool(width: dst.0, height: dst.1, format: dst.2)
        toRGB = !Self.isRGB(src.2) && Self.isRGB(dst.2)
        expandsByTable = byTable && RangeExpansion.applies(from: src, to: dst)
        if expandsByTable {
            contexts = []
            return
        }
        let flags = (src.0 == dst.0 && src.1 == dst.1) ? SWS_POINT : SWS_BICUBIC
        let byField = fields && src.1 == dst.1 && src.1 >= 2 && src.1 % 2 == 0
            && Self.chromaRowShift(src.2) != Self.chromaRowShift(dst.2)
        if byField {
            // MPEG-2's 4:2:0 field siting: a top field's chroma a quarter of a field line below
            // its first line, a bottom field's three quarters (in 1/256 of a line, as vf_scale).
            var made: [OpaquePointer] = []
            for position in [64, 192] {
                guard let c = Self.context(src: (src.0, src.1 / 2, src.2), dst: (dst.0, dst.1 / 2, dst.2), flags: flags,
                                           chromaPosition: position) else {
                    made.forEach { sws_freeContext($0) }
                    throw Self.refusal(src, dst)
                }
                made.append(c)
            }
            contexts = made
        } else {
            guard let c = sws_getContext(src.0, src.1, src.2, dst.0, dst.1, dst.2, Int32(flags), nil, nil, nil) else {
                throw Self.refusal(src, dst)
            }
            contexts = [c]
        }
    }

    deinit { contexts.forEach { sws_freeContext($0) } }

    func matches(_ f: Frame) -> Bool {
        f.width == sourceWidth && f.height == sourceHeight && f.pixelFormat == sourceFormat
    }

    func scale(_ src: Frame) throws(MediaError) -> Frame {
        let dst = try pictures.picture()
        try scale(src, into: dst)
        try FFmpeg.check(av_frame_copy_props(dst.pointer, src.pointer), "frame properties")
        return dst
    }

    /// The pixels only, into `dst` (this scaler's size and format): a working picture kept and reused.
    func scale(_ src: Frame, into dst: Frame) throws(MediaError) {
        if expandsByTable { return RangeExpansion.expand(src, into: dst) }
        if toRGB { try tell(src) }
        guard byField else {
            try FFmpeg.check(rx_sws_scale_frame(contexts[0], src.pointer, dst.pointer), "cannot scale")
            return
        }
        for (field, c) in contexts.enumerated() {
            try FFmpeg.check(rx_sws_scale_field(c, src.pointer, dst.pointer, Int32(field)), "cannot scale a field")
        }
    }

    /// Tells the contexts `src`'s matrix and range, when they differ from what they were told.
    private func tell(_ src: Frame) throws(MediaError) {
        let colors = (matrix: src.pointer.pointee.colorspace, range: src.pointer.pointee.color_range)
        if let told, told == colors { return }
        told = colors
        let full: Int32 = colors.range == AVCOL_RANGE_JPEG || Self.isFullRangeFormat(sourceFormat) ? 1 : 0
        let matrix = sws_getCoefficients(Self.swsMatrix(colors.matrix))
        for c in contexts {
            // The RGB side's table is not used; brightness 0, contrast and saturation 1 (16.16).
            try FFmpeg.check(sws_setColorspaceDetails(c, matrix, full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16),
                             "cannot set the picture's colours")
        }
    }

    /// libswscale's name for a Y'CbCr matrix (unstated: BT.601, its default).
    static func swsMatrix(_ m: AVColorSpace) -> Int32 {
        switch m {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return SWS_CS_DEFAULT
        }
    }

    static func isRGB(_ f: AVPixelFormat) -> Bool {
        guard let d = av_pix_fmt_desc_get(f)?.pointee else { return false }
        return d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
    }

    /// The yuvj formats: full range by their name.
    static func isFullRangeFormat(_ f: AVPixelFormat) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P].contains(f)
    }

    /// log2 of the luma rows per chroma row (0: 4:4:4 and 4:2:2, 1: 4:2:0); nil: no chroma rows.
    static func chromaRowShift(_ f: AVPixelFormat) -> Int? {
        guard let d = av_pix_fmt_desc_get(f)?.pointee, d.nb_components >= 3,
              d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 else { return nil }
        return Int(d.log2_chroma_h)
    }

    /// A context whose 4:2:0 sides site their chroma at `chromaPosition` (1/256 of a line down).
    private static func context(src: (Int32, Int32, AVPixelFormat), dst: (Int32, Int32, AVPixelFormat),
                                flags: Int32, chromaPosition: Int) -> OpaquePointer? {
        guard let c = sws_alloc_context() else { return nil }
        let raw = UnsafeMutableRawPointer(c)
        var ok = true
        for (key, value) in [("srcw", Int64(src.0)), ("srch", Int64(src.1)), ("src_format", Int64(src.2.rawValue)),
                             ("dstw", Int64(dst.0)), ("dsth", Int64(dst.1)), ("dst_format", Int64(dst.2.rawValue)),
                             ("sws_flags", Int64(flags))] {
            ok = ok && av_opt_set_int(raw, key, value, 0) >= 0
        }
        if chromaRowShift(src.2) == 1 { ok = ok && av_opt_set_int(raw, "src_v_chr_pos", Int64(chromaPosition), 0) >= 0 }
        if chromaRowShift(dst.2) == 1 { ok = ok && av_opt_set_int(raw, "dst_v_chr_pos", Int64(chromaPosition), 0) >= 0 }
        guard ok, sws_init_context(c, nil, nil) >= 0 else {
            sws_freeContext(c)
            return nil
        }
        return c
    }

    private static func refusal(_ src: (Int32, Int32, AVPixelFormat), _ dst: (Int32, Int32, AVPixelFormat)) -> MediaError {
        MediaError(.unsupported, "cannot convert \(src.0)x\(src.1) \(pixelFormatName(src.2)) to \(dst.0)x\(dst.1) \(pixelFormatName(dst.2))")
    }
}

func pixelFormatName(_ f: AVPixelFormat) -> String {
    guard let n = av_get_pix_fmt_name(f) else { return "none" }
    return String(cString: n)
}
