import Recipe

/// What the sound's codec means for the output that its settings do not show, said as plan notices.
enum AudioNotices {
    /// A codec FFmpeg writes into this container only as an experimental feature
    /// (`AudioFamily.experimentalIn`): written, and said, since some players will not read it.
    static func notices(for lane: LanePlan, format: ContainerFormat) -> [PlanNotice] {
        guard case .audio(let a) = lane.kind, let family = AudioFamily.of(a.codec), family.experimentalIn.contains(format) else { return [] }
        return [PlanNotice(.changed, "codec.experimental-in-container", track: lane.track.index,
                           "\(family.displayName) in \(format.rawValue.uppercased()) is written as FFmpeg's experimental feature: some players do not read it (MKV holds it as a standard)")]
    }
}
