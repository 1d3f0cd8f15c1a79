import Recipe

/// A bit rate within what the codec's encoder opens at for the output's channels and rate (the
/// codec table's `bitrateLimits`): a derived one is moved to the nearest it takes, with the
/// reason; one the recipe writes outside is refused at its line, naming the limit.
extension SettingsAssistant {
    func limitedAudioBitrate(source: FormatDescription, settings s: AudioSettings, family: AudioFamily, channels: Int, sampleRate: Int,
                             decide: (String, String, String, String) -> Void) throws(MediaError) -> Int {
        var derived: (setting: String, value: String, rule: String, reason: String)?
        let wanted = audioBitrate(source: source, settings: s, channels: channels) { derived = ($0, $1, $2, $3) }
        guard let limits = family.bitrateLimits, let range = limits.range(channels: channels, sampleRate: sampleRate), !range.contains(wanted) else {
            if let d = derived { decide(d.setting, d.value, d.rule, d.reason) }
            return wanted
        }
        let sound = "\(family.displayName) \(Self.channelsText(channels)) at \(Self.rateText(sampleRate))"
        let below = wanted < range.lowerBound
        let limit = below ? range.lowerBound : range.upperBound
        if s.bitrate != nil, !s.bitrateIsCeiling {
            throw MediaError(.invalidSettings, "'bitrate' for \(sound) must be at \(below ? "least" : "most") \(kbps(limit)) "
                             + "(the \(below ? "least" : "most") \(limits.encoder) opens at), not \(kbps(wanted))", setting: "bitrate")
        }
        let was = derived.map { "\($0.rule)'s \(kbps(wanted))" } ?? kbps(wanted)
        decide("bitrate", "\(limit)", below ? "audio-bitrate.encoder-floor" : "audio-bitrate.encoder-ceiling",
               "\(was) is \(below ? "below the least" : "above the most") \(limits.encoder) codes \(Self.channelsText(channels)) at \(Self.rateText(sampleRate)) at: \(below ? "raised" : "lowered") to it")
        return limit
    }

    /// `mono`, `stereo`, `6 channels`.
    static func channelsText(_ n: Int) -> String { n == 1 ? "mono" : n == 2 ? "stereo" : "\(n) channels" }

    /// `44.1 kHz`, `48 kHz`, `11.025 kHz`.
    static func rateText(_ hz: Int) -> String {
        guard hz % 1000 != 0 else { return "\(hz / 1000) kHz" }
        var digits = String(hz % 1000 + 1000).dropFirst()  // three digits, leading zeros kept
        while digits.last == "0" { digits.removeLast() }
        return "\(hz / 1000).\(digits) kHz"
    }
}
