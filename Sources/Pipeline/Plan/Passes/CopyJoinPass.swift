import Recipe

/// The planner's pass for a composition whose pictures are copied: checks, before anything is
/// read for the output, that its segments can be cut and joined without decoding — end to end
/// at their own speed, every file's stream alike (codec, size, pixel format, colour, field
/// order, parameter sets, time base), each segment beginning on a sync sample and ending at its
/// file's end or before a sync sample that opens a closed group of pictures. Otherwise it
/// refuses at the segment's line, naming the nearest points that would work.
enum CopyJoinPass {
    static func check(_ plan: ConversionPlan) throws(MediaError) {
        guard plan.isComposed else { return }
        for (l, lane) in plan.lanes.enumerated() where lane.isCopy && lane.track.mediaType == .video {
            try check(plan, lane: l)
        }
    }

    private static func check(_ plan: ConversionPlan, lane l: Int) throws(MediaError) {
        let chain = plan.chains[l]
        let segments = try chain.segments()
        var first: (stream: StreamSetup, file: String)?
        var previousEnd = MediaTime.zero
        for (n, (input, segment)) in zip(chain.inputs, segments).enumerated() {
            let asset = plan.sources[input.source]
            let file = asset.path, number = n + 1
            func refuse(_ field: SegmentField.Name, _ message: String) -> MediaError {
                MediaError(.invalidSettings, "segment \(number): \(message)", file: file, track: input.track, segment: SegmentField(number, field))
            }
            guard let track = asset.track(index: input.track) else { throw refuse(.track, "\(file) has no track #\(input.track)") }
            guard segment.scale.isIdentity else { throw refuse(.speed, "a copied track cannot be played at another speed: encode it instead") }
            guard segment.targetRange.start == previousEnd else {
                throw refuse(.at, "it starts at \(segment.targetRange.start.secondsDescription) on the timeline, not where segment \(number - 1) ends (\(previousEnd.secondsDescription)): copied pictures cannot leave a gap")
            }
            previousEnd = segment.targetRange.end
            let stream = try StreamSetup(path: file, track: track)
            if let first, let difference = stream.difference(from: first.stream) {
                throw refuse(.track, "its pictures differ from segment 1's (\(first.file)): \(difference); copied segments are joined into one stream, so every file's must be alike: encode the video instead")
            }
            if first == nil { first = (stream, file) }
            let range = segment.sourceRange
            let trackEnd = track.startTime + track.duration
            if range.start > track.startTime {
                let cut = try CopyCutScan.cut(at: range.start, path: file, stream: track.index)
                guard cut.isSync else {
                    throw refuse(.start, "it starts at \(range.start.secondsDescription), between keyframes\(nearest(cut)): a copy can begin only on a keyframe; start on one, or encode the video")
                }
            }
            if range.end.isNumeric, !(track.duration.isNumeric && range.end >= trackEnd) {
                let cut = try CopyCutScan.cut(at: range.end, path: file, stream: track.index)
                guard cut.isSync else {
                    throw refuse(.end, "it ends at \(range.end.secondsDescription), between keyframes\(nearest(cut)): a copy can end only before a keyframe (or at the end of its file); end on one, or encode the video")
                }
                guard !cut.isOpen else {
                    throw refuse(.end, "it ends at \(range.end.secondsDescription), before a keyframe whose group of pictures is open (pictures shown before it are decoded after it, so a copy would lose them); end elsewhere, or encode the video")
                }
            }
        }
    }

    /// " (the nearest are at 2 s and 4 s)", from what the scan found.
    private static func nearest(_ cut: CopyCutScan.Cut) -> String {
        let times = [cut.syncBefore, cut.syncAfter].compactMap { $0?.secondsDescription }
        return times.isEmpty ? "" : " (the nearest are at \(times.joined(separator: " and ")))"
    }
}

/// What two copied video streams must have alike to be joined into one.
struct StreamSetup: Equatable {
    let codec: String
    let profile: String?
    let width: Int, height: Int
    let pixelFormat: String?
    let colour: [String?]
    let fieldOrder: FieldOrder?
    let timeBase: TimeBase
    let setup: [UInt8]

    init(path: String, track: Track) throws(MediaError) {
        let f = track.format
        codec = f.codec; profile = f.profile; width = f.width; height = f.height; pixelFormat = f.pixelFormat
        colour = [f.colorPrimaries, f.colorTransfer, f.colorMatrix, f.colorRange]
        fieldOrder = f.fieldOrder
        (setup, timeBase) = try CopyCutScan.setup(path: path, stream: track.index)
    }

    /// What differs first, in words; nil: nothing.
    func difference(from other: StreamSetup) -> String? {
        if codec != other.codec { return "\(codec), not \(other.codec)" }
        if profile != other.profile { return "profile \(profile ?? "unknown"), not \(other.profile ?? "unknown")" }
        if width != other.width || height != other.height { return "\(width)x\(height), not \(other.width)x\(other.height)" }
        if pixelFormat != other.pixelFormat { return "pixel format \(pixelFormat ?? "unknown"), not \(other.pixelFormat ?? "unknown")" }
        if colour != other.colour { return "other colour tags" }
        if fieldOrder != other.fieldOrder { return "another field order" }
        if timeBase != other.timeBase { return "time base \(timeBase.num)/\(timeBase.den), not \(other.timeBase.num)/\(other.timeBase.den)" }
        if setup != other.setup { return "other parameter sets (the stream's set-up record differs)" }
        return nil
    }
}
