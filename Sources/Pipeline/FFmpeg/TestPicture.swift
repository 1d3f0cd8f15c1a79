import CFFmpeg
import Recipe

/// Still pictures for test media: cover art made with FFmpeg's own image encoders.
public enum TestPicture {
    /// A `width`×`height` picture of horizontal grey bands, encoded by `codec` (`png`, `mjpeg`, `bmp`).
    public static func make(codec: String = "png", width: Int = 32, height: Int = 24) throws(MediaError) -> AttachedPicture {
        let pix: AVPixelFormat = codec == "mjpeg" ? AV_PIX_FMT_YUVJ420P : (codec == "bmp" ? AV_PIX_FMT_BGR24 : AV_PIX_FMT_RGB24)
        var c = EncoderConfiguration(codecName: codec, timeBase: TimeBase(num: 1, den: 25))
        c.width = Int32(width)
        c.height = Int32(height)
        c.pixelFormat = pix
        let encoder = try Encoder(c)
        let frame = try Frame.video(width: Int32(width), height: Int32(height), format: pix)
        if let base = frame.plane(0) {
            let line = frame.lineSize(0)
            for y in 0..<height { (base + y * line).update(repeating: UInt8((y * 255) / max(height - 1, 1)), count: line) }
        }
        // Planar YUV: neutral chroma (4:2:0, half the rows).
        for plane: Int32 in 1...2 {
            guard let base = frame.plane(plane) else { continue }
            base.update(repeating: 128, count: frame.lineSize(plane) * ((height + 1) / 2))
        }
        frame.pts = 0
        try encoder.send(frame)
        try encoder.send(nil)
        guard let packet = try encoder.receive() else { throw MediaError(.processing, "the \(codec) encoder gave no picture") }
        return AttachedPicture(track: 0, codec: codec, width: width, height: height, bytes: Array(packet.bytes))
    }
}
