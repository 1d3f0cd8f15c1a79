import Recipe

/// Whether the pictures are deinterlaced: `deinterlace: auto` (the default) makes an interlaced
/// source progressive at its frame rate, `field-rate` makes a picture of every field (50 fps from
/// 25i), `off` keeps the fields and encodes them as fields with their order stated (by a family
/// that codes fields: `VideoFamily.codesFields`). Pictures resized or made progressive blend their two
/// fields, so `off` keeps the stored size. An editing codec (`VideoFamily.keepsFields`: ProRes)
/// keeps the fields where `deinterlace` is not set and the size allows it.
extension SettingsAssistant {
    struct Interlacing {
        /// Deinterlace at this rate; nil: the pictures go to the encoder as they are.
        var deinterlace: DeinterlaceRate?
        /// The fields are kept and encoded as fields, in this order.
        var keptFields: FieldOrder?
    }

    func interlacing(source: FormatDescription, settings s: VideoSettings, family: VideoFamily, encoder: VideoEncoder, size: (Int, Int),
                     decide: (String, String, String, String) -> Void) throws(MediaError) -> Interlacing {
        let asked = s.deinterlace ?? .auto
        guard let order = source.fieldOrder, order.isInterlaced else {
            if let a = s.deinterlace {
                decide("deinterlace", "none", "deinterlace.progressive-source",
                       "the source \(source.fieldOrder == nil ? "states no field order" : "is progressive"): 'deinterlace: \(a.rawValue)' has nothing to do")
            }
            return Interlacing()
        }
        let rate = source.averageFrameRate.map { " \($0.decimalDescription) fps" } ?? ""
        switch asked {
        case .auto where s.deinterlace == nil && family.keepsFields:
            return fieldsKept(order, source: source, family: family, encoder: encoder, size: size, rate: rate, decide: decide)
        case .auto:
            decide("deinterlace", "frame-rate", "deinterlace.auto",
                   "the source is \(order.description) and the output is progressive: each frame's two fields are made one picture (bwdif), at the source's\(rate) ('deinterlace: field-rate' keeps every field's motion; 'off' keeps the fields)")
            return Interlacing(deinterlace: .frame)
        case .fieldRate where source.averageFrameRate == nil:
            decide("deinterlace", "frame-rate", "deinterlace.field-rate-unknown",
                   "the source is \(order.description), but its frame rate is not known, so neither is its field rate: each frame's two fields are made one picture (bwdif)")
            return Interlacing(deinterlace: .frame)
        case .fieldRate:
            decide("deinterlace", "field-rate", "deinterlace.field-rate",
                   "the source is \(order.description): each field is made a picture (bwdif), twice the source's\(rate)")
            return Interlacing(deinterlace: .field)
        case .off:
            guard family.codesFields else {
                let keeper = VideoFamily.all.first { $0.codesFields }.map { "use 'codec: \($0.codec.rawValue)' to keep them, or " } ?? ""
                throw MediaError(.invalidSettings, "'deinterlace: off' keeps the \(order.description) source's fields, but \(encoder.library) codes no interlaced pictures here: \(keeper)let them be deinterlaced ('deinterlace: auto' or 'field-rate')",
                                 setting: "deinterlace")
            }
            guard size == (source.width, source.height) else {
                throw MediaError(.invalidSettings, "'deinterlace: off' keeps the \(order.description) source's fields, but its pictures are resized (\(source.width)x\(source.height) → \(size.0)x\(size.1)), which blends them: keep the source's size, or let them be deinterlaced ('deinterlace: auto' or 'field-rate')",
                                 setting: "deinterlace")
            }
            let kept: FieldOrder = order.topFieldFirst ? .tt : .bb
            decide("deinterlace", "off", "deinterlace.off",
                   "as asked: the \(order.description) source's fields are kept and coded as fields (\(encoder.library) interlaced), and the output states the order")
            return Interlacing(keptFields: kept)
        }
    }

    /// An editing codec's default (`VideoFamily.keepsFields`): the fields kept and coded as fields
    /// in the source's order, unless the pictures are resized, which blends them: then each frame
    /// is made one progressive picture, as `auto` does.
    private func fieldsKept(_ order: FieldOrder, source: FormatDescription, family: VideoFamily, encoder: VideoEncoder, size: (Int, Int), rate: String,
                            decide: (String, String, String, String) -> Void) -> Interlacing {
        guard size == (source.width, source.height) else {
            decide("deinterlace", "frame-rate", "deinterlace.resized",
                   "the source is \(order.description), but its pictures are resized (\(source.width)x\(source.height) → \(size.0)x\(size.1)), which blends its fields: each frame's two fields are made one picture (bwdif), at the source's\(rate)")
            return Interlacing(deinterlace: .frame)
        }
        decide("deinterlace", "off", "deinterlace.\(family.codec.rawValue)-fields",
               "the source is \(order.description) and \(family.displayName) is for editing: its fields are kept and coded as fields (\(encoder.library) interlaced), and the output states the order ('deinterlace: auto' makes it progressive)")
        return Interlacing(keptFields: order.topFieldFirst ? .tt : .bb)
    }

    /// A field-rate output's rate, decided here: one picture per field, unless a frame rate is
    /// asked (then that rule applies to the field rate). nil: the frame-rate rules decide.
    /// A variable-rate-looking source's frame rate is the standard rate nearest its nominal one:
    /// its average is its frame count over its stated length, which is short where the last
    /// sample states less than it shows (25 frames stating 1 tick last made 26.26 fps, 52.52 per field).
    func fieldRate(source: FormatDescription, settings s: VideoSettings,
                   decide: (String, String, String, String) -> Void) -> (source: FormatDescription, rate: FrameRate?)? {
        let frameRate = source.isVariableFrameRate ? source.nominalFrameRate.map(standardRate(near:)) ?? source.averageFrameRate : source.averageFrameRate
        guard let r = frameRate, r.frames <= Int32.max / 2 else { return nil }
        var timing = source
        let doubled = FrameRate(frames: r.frames * 2, seconds: r.seconds)
        timing.averageFrameRate = doubled
        timing.nominalFrameRate = source.nominalFrameRate.flatMap { $0.frames <= Int32.max / 2 ? FrameRate(frames: $0.frames * 2, seconds: $0.seconds) : nil }
        timing.minFrameDuration = nil
        if case .rate? = s.frameRate { return (timing, nil) }
        decide("frame-rate", doubled.description, "frame-rate.field-rate",
               "one picture per field: twice the interlaced source's \(r.decimalDescription) fps")
        return (timing, doubled)
    }
}
