import CFFmpeg
import Recipe

/// Makes image files of decoded pictures, one after another, all at one size and format: each
/// picture made SDR where it is HDR (`PictureToneMapping`), drawn upright at its display aspect
/// into exactly the still's size (`PictureFitter`), and encoded by FFmpeg's image encoder for the
/// format (mjpeg, png, libwebp), whose one packet is the whole file.
// Not Sendable: owned by one image generator, on one thread.
final class StillEncoder {
    private let encoder: Encoder
    private let fitter: PictureFitter
    private let toneMapping: PictureToneMapping?
    /// JPEG: the fixed quantiser each picture is coded with (FFmpeg's lambda units).
    private let lambda: Int32?
    private var count: Int64 = 0

    /// Whether this FFmpeg can write `format` (WebP needs a libavcodec built with libwebp).
    static func isAvailable(_ format: StillFormat) -> Bool {
        avcodec_find_encoder_by_name(format.encoderName) != nil
    }

    init(format: StillFormat, width: Int, height: Int, quality: Int, toneMapping: ToneMapping?) throws(MediaError) {
        let pixelFormat: AVPixelFormat
        switch format {
        case .jpeg: pixelFormat = AV_PIX_FMT_YUVJ420P
        case .png: pixelFormat = AV_PIX_FMT_RGB24
        case .webp: pixelFormat = AV_PIX_FMT_YUV420P
        }
        var c = EncoderConfiguration(codecName: format.encoderName, timeBase: AVRational(num: 1, den: 1))
        c.width = Int32(width)
        c.height = Int32(height)
        c.pixelFormat = pixelFormat
        // One picture in, its file out: frame threads would hold it back for the next.
        c.threads = 1
        switch format {
        case .jpeg:
            // 1…100 onto mjpeg's quantiser 31…2 (ffmpeg's -q:v), fixed for every picture.
            let q = 2 + ((100 - quality) * 29 + 49) / 99
            c.options = [("flags", "+qscale"), ("global_quality", String(q * Int(FF_QP2LAMBDA)))]
            lambda = Int32(q) * FF_QP2LAMBDA
        case .webp:
            c.options = [("quality", String(quality))]
            lambda = nil
        case .png:
            lambda = nil
        }
        encoder = try Encoder(c)
        fitter = try PictureFitter(width: Int32(width), height: Int32(height), pixelFormat: pixelFormat)
        // Tone-mapped at the decoded size, in 4:4:4 so no chroma is lost before the fit.
        self.toneMapping = toneMapping.map { PictureToneMapping($0, target: AV_PIX_FMT_YUV444P) }
    }

    /// The image file of `frame`, shown turned `rotation` degrees at `pixelAspect`.
    func encode(_ frame: Frame, rotation: Int, pixelAspect: Ratio) throws(MediaError) -> [UInt8] {
        let sdr = try toneMapping?.map(frame) ?? frame
        let picture = try fitter.fit(sdr, rotation: rotation, pixelAspect: pixelAspect)
        picture.pts = count
        count += 1
        if let lambda { picture.pointer.pointee.quality = lambda }
        try encoder.send(picture)
        guard let packet = try encoder.receive() else {
            throw MediaError(.processing, "the \(encoder.codecName) encoder gave no picture")
        }
        return Array(packet.bytes)
    }
}
