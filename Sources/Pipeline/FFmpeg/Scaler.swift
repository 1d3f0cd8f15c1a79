import CFFmpeg

/// Picture size and pixel-format conversion. Owns its SwsContext (freed once, in deinit).
// Not Sendable: a scaler belongs to one video lane.
final class Scaler {
    private let context: OpaquePointer
    /// The pictures `scale(_:)` returns: one buffer per picture still held, none made per frame.
    private let pictures: PicturePool
    let width: Int32, height: Int32, format: AVPixelFormat
    let sourceWidth: Int32, sourceHeight: Int32, sourceFormat: AVPixelFormat

    init(from src: (Int32, Int32, AVPixelFormat), to dst: (Int32, Int32, AVPixelFormat)) throws(MediaError) {
        (sourceWidth, sourceHeight, sourceFormat) = src
        (width, height, format) = dst
        // First: a failure here leaves no SwsContext to free.
        pictures = try PicturePool(width: dst.0, height: dst.1, format: dst.2)
        let flags = (src.0 == dst.0 && src.1 == dst.1) ? SWS_POINT : SWS_BICUBIC
        guard let c = sws_getContext(src.0, src.1, src.2, dst.0, dst.1, dst.2, Int32(flags), nil, nil, nil) else {
            throw MediaError(.unsupported, "cannot convert \(src.0)x\(src.1) \(pixelFormatName(src.2)) to \(dst.0)x\(dst.1) \(pixelFormatName(dst.2))")
        }
        context = c
    }

    deinit { sws_freeContext(context) }

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
        try FFmpeg.check(rx_sws_scale_frame(context, src.pointer, dst.pointer), "cannot scale")
    }
}

func pixelFormatName(_ f: AVPixelFormat) -> String {
    guard let n = av_get_pix_fmt_name(f) else { return "none" }
    return String(cString: n)
}
