import Recipe

/// A source's alpha channel that an encoded video track does not keep, said as a plan notice:
/// only ProRes 4444 writes alpha here; every other output pixel format has none. (A composition
/// draws on an opaque canvas by design: its plan does not repeat that for every source.)
enum AlphaNotice {
    static func notices(for lane: LanePlan) -> [PlanNotice] {
        guard case .video(let v) = lane.kind, lane.track.format.hasAlpha, !PixelFormats.hasAlpha(v.pixelFormat) else { return [] }
        let name = VideoFamily.of(v.codec)?.displayName ?? v.codec.rawValue
        let keeper = v.codec == .prores ? "profile 4444 keeps it" : "ProRes 4444 keeps it: 'codec: prores'"
        return [PlanNotice(.dropped, "alpha", track: lane.track.index,
                           "the source's alpha channel is dropped: \(name) is written as \(v.pixelFormat), which has none (\(keeper))")]
    }
}
