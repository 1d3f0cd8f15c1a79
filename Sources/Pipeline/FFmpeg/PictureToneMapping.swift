import CFFmpeg
import Recipe

/// A composition's HDR pictures made SDR one by one, each by its own transfer, at its own size
/// (they are fitted or drawn after): a composition of PQ and HLG files maps both — the one the
/// plan names with its file's peak, another with the reference 1000 cd/m². SDR pictures pass.
/// Owned by one lane's stage; keeps the mapper of the latest size and transfer.
final class PictureToneMapping {
    private let mapping: ToneMapping
    private let target: PixelFormat
    private var current: (mapper: ToneMapper, width: Int32, height: Int32, mapping: ToneMapping)?

    init(_ mapping: ToneMapping, target: PixelFormat) {
        self.mapping = mapping
        self.target = target
    }

    func map(_ frame: Frame) throws(MediaError) -> Frame {
        guard frame.dynamicRange != .sdr else { return frame }
        let m = frame.dynamicRange == mapping.transfer ? mapping
            : ToneMapping(transfer: frame.dynamicRange, sourcePrimaries: nil, sourceMatrix: nil, sourceRange: nil,
                          peakLuminance: SettingsAssistant.defaultPeak)
        if current?.width != frame.width || current?.height != frame.height || current?.mapping != m {
            current = (try ToneMapper(m, width: frame.width, height: frame.height, target: target), frame.width, frame.height, m)
        }
        guard let mapper = current?.mapper else { return frame }
        return try mapper.map(frame)
    }
}
