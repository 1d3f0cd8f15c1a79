import Recipe

extension RecipeCompiler {
    /// The sound `validate` opens an audio encoder for, having no source: 48 kHz stereo, or for a
    /// codec whose bit rates depend on the channels and rate (Vorbis), the channels and rate the
    /// settings allow that take the recipe's own bit rate, so that only a bit rate no source
    /// could take is refused (where none does, the nearest, which its message names).
    static func standInAudio(for s: AudioSettings, container: ContainerFormat?) -> FormatDescription {
        var f = FormatDescription(mediaType: .audio, codec: "aac")
        (f.sampleRate, f.channels, f.channelLayout) = (48000, 2, "stereo")
        let codec = s.codec ?? container?.defaultAudioCodec?.codec ?? AudioFamily.default.codec
        guard let b = s.bitrate, !s.bitrateIsCeiling, let family = AudioFamily.of(codec), let limits = family.bitrateLimits else { return f }
        // A named layout fixes the channels; else a source of up to `channels` keeps its own.
        let channels = s.channelLayout.flatMap { SettingsAssistant.standardLayouts[$0] }.map { [$0] }
            ?? Array(1...(s.channels ?? SettingsAssistant.defaultMaxChannels))
        let rates = s.sampleRate.map { [$0] } ?? family.sampleRates
        // 48 kHz stereo first, where the settings allow it.
        guard let (n, rate) = limits.nearest(b, channels: channels.sorted { $0 == 2 && $1 != 2 },
                                             sampleRates: rates.sorted { $0 == 48000 && $1 != 48000 }) else { return f }
        (f.sampleRate, f.channels, f.channelLayout) = (rate, n, SettingsAssistant.defaultLayoutName(n))
        return f
    }
}
