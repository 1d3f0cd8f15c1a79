import CFFmpeg

/// Limited-range 8-bit Y'CbCr into full range at the same size and subsampling (yuv420p into
/// yuvj420p: every JPEG still of a video), one table lookup per sample, giving what libswscale
/// gives byte for byte. libswscale takes its generic scaling path whenever the ranges differ,
/// even 1:1: each sample widened to 15 bits, converted there (its lumRangeToJpeg and
/// chrRangeToJpeg), rounded back (+64, >> 7) — about 50 M instructions a 1080p picture, a
/// quarter of a keyframe still's work (bench (o), callgrind).
enum RangeExpansion {
    /// Each limited-range format done this way, with its full-range twin.
    private static let pairs: [(AVPixelFormat, AVPixelFormat)] = [(AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P),
                                                                   (AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P),
                                                                   (AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P)]

    /// libswscale's arithmetic on the 15-bit sample v << 7, then its rounding to 8 bits.
    static let luma: [UInt8] = (0..<256).map { v in eightBits((min(v << 7, 30189) * 19077 - 39057361) >> 14) }
    static let chroma: [UInt8] = (0..<256).map { v in eightBits((min(v << 7, 30775) * 4663 - 9289992) >> 12) }

    private static func eightBits(_ fifteen: Int) -> UInt8 { UInt8(clamping: (fifteen + 64) >> 7) }

    /// Whether `src` into `dst` is such an expansion.
    static func applies(from src: (Int32, Int32, AVPixelFormat), to dst: (Int32, Int32, AVPixelFormat)) -> Bool {
        src.0 == dst.0 && src.1 == dst.1 && pairs.contains { $0 == (src.2, dst.2) }
    }

    /// `dst`'s pixels from `src`'s (the same size; `applies` to their formats).
    static func expand(_ src: Frame, into dst: Frame) {
        guard let d = av_pix_fmt_desc_get(src.pixelFormat)?.pointee else { return }
        let width = Int(src.width), height = Int(src.height)
        for plane in Int32(0)..<3 {
            guard let from = src.plane(plane), let to = dst.plane(plane) else { continue }
            // Chroma planes: the size rounded up, as FFmpeg's AV_CEIL_RSHIFT.
            let (w, h) = plane == 0 ? (width, height) : (-((-width) >> Int(d.log2_chroma_w)), -((-height) >> Int(d.log2_chroma_h)))
            let fromStride = src.lineSize(plane), toStride = dst.lineSize(plane)
            (plane == 0 ? luma : chroma).withUnsafeBufferPointer { table in
                for y in 0..<h {
                    let s = from + y * fromStride, o = to + y * toStride
                    for x in 0..<w { o[x] = table[Int(s[x])] }
                }
            }
        }
    }
}
