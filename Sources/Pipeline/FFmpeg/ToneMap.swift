import CFFmpeg
import Foundation

/// Turns HDR pictures (PQ or HLG, BT.2020) into BT.709 SDR, one picture at a time: our own
/// kernel on libswscale's 16-bit 4:4:4 planes (no filter graph: timestamps stay the lane's).
///
/// Per pixel: Y'CbCr → R'G'B' (the source's matrix) → display light in cd/m² (PQ's EOTF; HLG's
/// inverse OETF and its OOTF for the 1000 cd/m² reference display) → relative to HDR reference
/// white, 203 cd/m² (ITU-R BT.2408), which becomes SDR white → BT.2020 to BT.709 primaries →
/// highlights above a knee compressed so the source's peak lands on SDR white (Möbius curve,
/// applied to max(R,G,B) so hues stay) → BT.1886's inverse (gamma 2.4) → BT.709 Y'CbCr.
// Not Sendable: a tone mapper belongs to one video lane (kept on its queue by QueueBound).
final class ToneMapper {
    private let width: Int32, height: Int32
    private let target: AVPixelFormat
    private let curve: ToneCurve
    private var toPlanes: Scaler?
    private let toTarget: Scaler
    private let fields: Bool

    static let planes = AV_PIX_FMT_YUV444P16LE

    /// `fields`: the pictures are two fields each, kept as fields (their chroma converted per field).
    init(_ mapping: ToneMapping, width: Int32, height: Int32, target format: PixelFormat, fields: Bool = false) throws(MediaError) {
        let target = format.av
        self.width = width; self.height = height; self.target = target
        self.fields = fields
        curve = ToneCurve(mapping)
        toTarget = try Scaler(from: (width, height, Self.planes), to: (width, height, target), fields: fields)
    }

    /// A new SDR picture at the output size and format, with `frame`'s properties.
    func map(_ frame: Frame) throws(MediaError) -> Frame {
        if toPlanes == nil || !toPlanes!.matches(frame) {
            toPlanes = try Scaler(from: (frame.width, frame.height, frame.pixelFormat), to: (width, height, Self.planes), fields: fields)
        }
        let planes = try toPlanes!.scale(frame)
        curve.apply(to: planes)
        let out = try toTarget.scale(planes)
        // The picture is SDR now: its own tags must say so too.
        out.pointer.pointee.color_primaries = AVCOL_PRI_BT709
        out.pointer.pointee.color_trc = AVCOL_TRC_BT709
        out.pointer.pointee.colorspace = AVCOL_SPC_BT709
        out.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        // Nor may its side data describe HDR to an encoder that reads it (FFmpeg 7's libx265 does).
        for type in [AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL,
                     AV_FRAME_DATA_DYNAMIC_HDR_PLUS, AV_FRAME_DATA_DOVI_RPU_BUFFER, AV_FRAME_DATA_DOVI_METADATA] {
            av_frame_remove_side_data(out.pointer, type)
        }
        return out
    }
}

extension ToneCurve {
    /// Maps a 16-bit 4:4:4 picture in place (a frame without its three planes is left as it is).
    func apply(to frame: Frame) {
        guard let y = frame.plane(0), let cb = frame.plane(1), let cr = frame.plane(2) else { return }
        apply(to: Planes16(width: Int(frame.width), height: Int(frame.height), y: y, cb: cb, cr: cr,
                           lineSizes: (frame.lineSize(0), frame.lineSize(1), frame.lineSize(2))))
    }
}
