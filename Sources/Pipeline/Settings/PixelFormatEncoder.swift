import Recipe

/// A family whose encoders code different pixel formats (AV1: SVT-AV1 1.4 codes 4:2:0 only,
/// libaom 4:4:4 too, as AV1's High profile): the encoder is the first this FFmpeg has that codes
/// the pixel format the output is made in, and `plan` says why where that is not the first choice.
extension SettingsAssistant {
    /// The pixel format the output is asked for, or the one the family keeps of the source
    /// (`PixelFormatRule.keepDepthAndChroma`: its depth and chroma, 10 bits for kept HDR); nil
    /// where the family's own rule fixes it whatever the encoder.
    func wantedPixelFormat(source: FormatDescription, settings s: VideoSettings, family: VideoFamily) -> String? {
        if let asked = s.pixelFormat { return asked }
        guard case .keepDepthAndChroma = family.pixelFormats, let chroma = ChromaFormat.kept(from: source.pixelFormat) else { return nil }
        let keepHDR = source.dynamicRange != .sdr
            && (s.hdr == .keep || (s.hdr == nil && HDRSetting.keepRefusal(codec: family.codec, pixelFormat: nil) == nil))
        return ChromaFormat.pixelFormat(chroma: chroma, tenBit: source.isHighBitDepth || keepHDR)
    }

    /// The family's encoder that codes `wanted` where its first choice (of those this FFmpeg has)
    /// does not, and why; nil where the first choice codes it, where no profile of the family
    /// carries it (the format is then refused or made 4:2:0 as before), or where no other encoder
    /// codes it either.
    func pixelFormatEncoder(of family: VideoFamily, wanted: String?) -> (VideoEncoder, String)? {
        guard let wanted, family.encoders.count > 1 else { return nil }
        // None of the family's encoders in this FFmpeg: the preferred one is named, and refused
        // when it opens.
        let preferred = family.encoder { capabilities($0) != nil }
        guard capabilities(preferred.name) != nil else { return nil }
        func codes(_ e: VideoEncoder) -> Bool {
            guard let formats = capabilities(e.name)?.pixelFormats else { return false }
            return formats.isEmpty || formats.contains(wanted)
        }
        guard !codes(preferred) else { return nil }
        let (depth, chroma) = (pixelFormatBitDepth(wanted), pixelFormatChroma(wanted))
        guard let profile = family.profiles.first(where: { $0.carries(wanted, depth: depth, chroma: chroma) }),
              let able = family.encoders.first(where: { $0.name != preferred.name && codes($0) }) else { return nil }
        return (able, "the output is \(wanted) (\(family.displayName) \(profile.name.prefix(1).uppercased() + profile.name.dropFirst()) profile), which \(preferred.library) (\(preferred.name)) does not code under FFmpeg 5.1: \(able.library), the \(family.displayName) encoder that does")
    }
}
