import Recipe

extension SettingsAssistant {
    /// `PixelFormatRule.ofProfile` (ProRes): the profile fixes the pixel format, so the format is
    /// the asked profile's, else the automatic profile's for what the source would lose in 4:2:2
    /// (4:4:4 or RGB chroma, alpha); its alpha format where the source has alpha. Returns the
    /// format and, where no profile is asked, the profile decision (said after the level's
    /// neighbours, where every family says its profile).
    func profilePixelFormat(source: FormatDescription, family: VideoFamily, asked: String?,
                            decide: (String, String, String, String) -> Void) -> (String, Decision?) {
        let rgb = isRGB(source.pixelFormat)
        let chroma = rgb ? 444 : ChromaFormat.kept(from: source.pixelFormat) ?? 420
        let named = rgb ? "RGB" : ChromaFormat.sourceName(source.pixelFormat) ?? ChromaFormat.name(chroma)
        let depth = "\(source.bitDepth ?? 8)-bit \(named)"
        var choice: Decision? = nil
        let profile: Profile
        if let asked {
            // A profile the encoder does not have is refused when it opens, naming those it has.
            guard let p = family.profiles.first(where: { $0.name == asked }) else {
                return (family.profiles[0].pixelFormats[0], nil)
            }
            profile = p
        } else {
            let name = family.automaticProfile(depth: 10, chroma: source.hasAlpha ? 444 : chroma)
            profile = family.profiles.first { $0.name == name } ?? family.profiles[0]
            let why = source.hasAlpha ? "the source has alpha: \(family.displayName) \(name) keeps it"
                : profile.chroma >= chroma && chroma == 444 ? "the source is \(named): \(family.displayName) \(name) keeps every chroma sample"
                : "the source is \(named) without alpha: \(family.displayName) \(name), the everyday editing profile (AVFoundation's AppleProRes422LPCM)"
            choice = Decision(setting: "profile", value: name, rule: "profile.\(family.codec.rawValue)-source", reason: why)
        }
        let alphaFormat = profile.pixelFormats.first { $0.hasPrefix("yuva") }
        let plain = profile.pixelFormats.first { !$0.hasPrefix("yuva") } ?? profile.pixelFormats[0]
        let what = "\(family.displayName) \(profile.name) is \(profile.depth)-bit \(ChromaFormat.name(profile.chroma))"
        switch (source.hasAlpha, alphaFormat) {
        case (true, let a?):
            decide("pixel-format", a, "pixel-format.profile-alpha", "\(what) with alpha: the source's alpha is kept")
            return (a, choice)
        case (true, nil):
            decide("pixel-format", plain, "pixel-format.profile-alpha-dropped", "\(what) without alpha: the \(depth) source's alpha is dropped")
            return (plain, choice)
        case (false, _?):
            decide("pixel-format", plain, "pixel-format.profile-no-alpha", "\(what): the source has no alpha, so neither has the output")
            return (plain, choice)
        case (false, nil):
            let made = profile.chroma == chroma && source.bitDepth == profile.depth ? "" : " (the \(depth) source is made \(profile.depth)-bit \(ChromaFormat.name(profile.chroma)))"
            decide("pixel-format", plain, "pixel-format.profile", what + made)
            return (plain, choice)
        }
    }
}
