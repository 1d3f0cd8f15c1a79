import Recipe

/// Whether a container could hold a plan's output tracks as they are planned — the file types an
/// export could produce (AVAssetExportSession's `determineCompatibleFileTypes`). Asked of the
/// containers' own table and of FFmpeg's muxers, the same two the planner asks of the plan's own
/// container, so the list never names one that `run` would refuse for a codec.
public struct ContainerFit: Sendable, Equatable {
    public let format: ContainerFormat
    /// nil: it holds every output track; else why not, naming the first track it cannot hold
    /// (`track 1: h264 video`).
    public let refusal: String?

    public var holds: Bool { refusal == nil }
}

extension ConversionPlan {
    /// Every container reencode writes, in the order `ContainerFormat` lists them, each with
    /// whether it could hold this plan's output tracks.
    public var containerFits: [ContainerFit] {
        ContainerFormat.allCases.map { ContainerFit(format: $0, refusal: ContainerFit.refusal(of: lanes, in: $0)) }
    }
}

extension ContainerFit {
    /// Why `format` cannot hold `lanes` (output tracks numbered from 1), or nil.
    static func refusal(of lanes: [LanePlan], in format: ContainerFormat) -> String? {
        if format.holdsOneTrack, lanes.count > 1 { return "\(lanes.count) tracks: it holds one" }
        for (i, lane) in lanes.enumerated() {
            let kind = lane.track.mediaType.rawValue
            let codec: String
            switch lane.kind {
            case .video(let v): codec = CodecSupport.codec(ofEncoder: v.encoderName) ?? v.codec.rawValue
            case .audio(let a): codec = CodecSupport.codec(ofEncoder: a.encoderName) ?? a.codec.rawValue
            case .passthrough: codec = lane.track.format.codec
            case .subtitle:
                // Text subtitles are written in the container's own text format.
                if format.textSubtitleCodec == nil { return "track \(i + 1): subtitles" }
                continue
            }
            guard format.holds.holdsAny(kind) else { return "track \(i + 1): \(kind)" }
            guard format.holds.holds(codec, kind: kind), CodecSupport.canCopy(codec, into: format) else { return "track \(i + 1): \(codec) \(kind)" }
        }
        return nil
    }
}
