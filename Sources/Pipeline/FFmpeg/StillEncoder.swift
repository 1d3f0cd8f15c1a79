import CFFmpeg
import Recipe

/// Makes image files of decoded pictures, all at one size and format: each picture made SDR
/// where it is HDR (`PictureToneMapping`), drawn upright at its display aspect into exactly the
/// still's size (`PictureFitter`), and encoded by FFmpeg's image encoder for the format (mjpeg,
/// png, libwebp), whose one packet is the whole file — a file per picture, or one contact sheet:
/// the pictures placed in a grid of tiles, in order from the top left, row by row.
// Not Sendable: owned by one image generator, on one thread.
final class StillEncoder {
    private let encoder: Encoder
    private let fitter: PictureFitter
    private let toneMapping: PictureToneMapping?
    /// JPEG: the fixed quantiser each picture is coded with (FFmpeg's lambda units).
    private let lambda: Int32?
    private var count: Int64 = 0
    /// The contact sheet the tiles are placed in (black where none is); nil: a file per picture.
    private let sheet: Frame?
    private let columns: Int
    private let planes: [PlaneLayout]

    /// Whether this FFmpeg can write `format` (WebP needs a libavcodec built with libwebp).
    static func isAvailable(_ format: StillFormat) -> Bool {
        avcodec_find_encoder_by_name(format.encoderName) != nil
    }

    /// `width`×`height`: each picture's size; `sheet`: the grid they are placed in, one file.
    init(format: StillFormat, width: Int, height: Int, sheet grid: (columns: Int, rows: Int)? = nil,
         quality: Int, toneMapping: ToneMapping?) throws(MediaError) {
        let pixelFormat: AVPixelFormat
        switch format {
        case .jpeg: pixelFormat = AV_PIX_FMT_YUVJ420P
        case .png: pixelFormat = AV_PIX_FMT_RGB24
        case .webp: pixelFormat = AV_PIX_FMT_YUV420P
        }
        var c = EncoderConfiguration(codecName: format.encoderName, timeBase: TimeBase(num: 1, den: 1))
        let grid = grid ?? (1, 1)
        c.width = Int32(width * grid.columns)
        c.height = Int32(height * grid.rows)
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
        columns = grid.columns
        planes = try PlaneLayout.planes(of: pixelFormat)
        if grid.columns * grid.rows > 1 {
            let canvas = try Frame.video(width: c.width, height: c.height, format: pixelFormat)
            canvas.pointer.pointee.color_range = format == .jpeg ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            try canvas.fillBlack()
            sheet = canvas
        } else {
            sheet = nil
        }
        // Tone-mapped at the decoded size, in 4:4:4 so no chroma is lost before the fit.
        self.toneMapping = toneMapping.map { PictureToneMapping($0, target: PixelFormat(AV_PIX_FMT_YUV444P)) }
    }

    /// The image file of `frame`, shown turned `rotation` degrees at `pixelAspect`.
    func encode(_ frame: Frame, rotation: Int, pixelAspect: Ratio) throws(MediaError) -> [UInt8] {
        try encodePicture(try fit(frame, rotation: rotation, pixelAspect: pixelAspect))
    }

    /// Draws `frame` into tile `index` of the contact sheet.
    func place(_ frame: Frame, rotation: Int, pixelAspect: Ratio, tile index: Int) throws(MediaError) {
        guard let sheet else { throw MediaError(.processing, "a contact sheet's tile, but no sheet is being made") }
        let picture = try fit(frame, rotation: rotation, pixelAspect: pixelAspect)
        let x = Int(picture.width) * (index % columns), y = Int(picture.height) * (index / columns)
        try FFmpeg.check(av_frame_make_writable(sheet.pointer), "contact sheet")
        for p in planes {
            guard let src = picture.plane(p.index), let dst = sheet.plane(p.index) else { continue }
            let rowBytes = (Int(picture.width) >> p.shiftX) * p.elementBytes
            let at = dst + (y >> p.shiftY) * sheet.lineSize(p.index) + (x >> p.shiftX) * p.elementBytes
            for row in 0..<(Int(picture.height) >> p.shiftY) {
                (at + row * sheet.lineSize(p.index)).update(from: src + row * picture.lineSize(p.index), count: rowBytes)
            }
        }
    }

    /// The contact sheet's image file.
    func encodeSheet() throws(MediaError) -> [UInt8] {
        guard let sheet else { throw MediaError(.processing, "no contact sheet is being made") }
        return try encodePicture(sheet)
    }

    private func fit(_ frame: Frame, rotation: Int, pixelAspect: Ratio) throws(MediaError) -> Frame {
        let sdr = try toneMapping?.map(frame) ?? frame
        return try fitter.fit(sdr, rotation: rotation, pixelAspect: pixelAspect)
    }

    private func encodePicture(_ picture: Frame) throws(MediaError) -> [UInt8] {
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
