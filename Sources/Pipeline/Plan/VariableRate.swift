import Recipe

/// A variable-frame-rate source converted to a frame rate gets a standard rate, never its
/// average (3628800/502589 is nobody's frame rate): the settings assistant picks it from the
/// source's nominal rate, which is measured here, before planning, from the packets.
enum VariableRate {
    /// The track's format, with `nominalFrameRate` measured when the source is variable-rate and
    /// the settings ask for a frame rate, or a picture per field of an interlaced source (whose
    /// field rate is twice its frame rate: `Interlacing.fieldRate`); nothing is read otherwise.
    static func measured(_ track: Track, path: String, settings: VideoSettings) -> FormatDescription {
        var f = track.format
        let asksRate: Bool
        if case .rate? = settings.frameRate { asksRate = true } else { asksRate = settings.deinterlace == .fieldRate && f.fieldOrder?.isInterlaced == true }
        guard f.isVariableFrameRate, asksRate,
              let d = FrameStartScan.typicalFrameDuration(path: path, stream: track.index) else { return f }
        f.nominalFrameRate = FrameRate(frameDuration: d)
        return f
    }
}
