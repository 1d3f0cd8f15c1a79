import Recipe

/// What the sound's codec means for the output that its settings do not show, said as plan notices.
enum AudioNotices {
    /// A codec FFmpeg writes into this container only as an experimental feature
    /// (`AudioFamily.experimentalIn`): written, and said, since some players will not read it.
    static func notices(for lane: LanePlan, format: ContainerFormat) -> [PlanNotice] {
        experimental(lane, format: format) + raisedToFloor(lane)
    }

    private static func experimental(_ lane: LanePlan, format: ContainerFormat) -> [PlanNotice] {
        guard case .audio(let a) = lane.kind, let family = AudioFamily.of(a.codec), family.experimentalIn.contains(format) else { return [] }
        return [PlanNotice(.changed, "codec.experimental-in-container", track: lane.track.index,
                           "\(family.displayName) in \(format.rawValue.uppercased()) is written as FFmpeg's experimental feature: some players do not read it (MKV holds it as a standard)")]
    }

    /// A bit rate raised to the least the encoder opens at (`audio-bitrate.encoder-floor`): more
    /// than the source has or the recipe's preset asks, which the sound is otherwise never given.
    private static func raisedToFloor(_ lane: LanePlan) -> [PlanNotice] {
        guard case .audio(let a) = lane.kind, let d = a.decision("bitrate"), d.rule == "audio-bitrate.encoder-floor",
              let family = AudioFamily.of(a.codec), let encoder = family.bitrateLimits?.encoder else { return [] }
        return [PlanNotice(.changed, "audio-bitrate.encoder-floor", track: lane.track.index,
                           "the sound is coded at \(kbps(a.bitrate)), more than its settings give it: \(encoder) codes no less for \(SettingsAssistant.channelsText(a.channels)) at \(SettingsAssistant.rateText(a.sampleRate))")]
    }
}
