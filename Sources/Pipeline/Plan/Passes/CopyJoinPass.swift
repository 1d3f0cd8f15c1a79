import Recipe

/// The planner's pass for a composition whose pictures are copied: checks, before anything is
/// read for the output, that its segments can be cut and joined without decoding — end to end
/// at their own speed, every file's stream alike (`StreamSetup`), each segment beginning on a
/// sync sample (after the first: an IDR picture, which restarts decoding) and ending at its
/// file's end or before a sync sample that opens a closed group of pictures. Otherwise it
/// refuses at the segment's line, naming the nearest points that would work.
enum CopyJoinPass {
    static func check(_ plan: ConversionPlan) throws(MediaError) {
        guard plan.isComposed else { return }
        for (l, lane) in plan.lanes.enumerated() where lane.isCopy && lane.track.mediaType == .video {
            try check(plan, lane: l)
        }
    }

    /// One copied segment, as the checks see it.
    private struct Piece {
        let number: Int
        let file: String
        let track: Track
        let range: TimeRange
        /// The file's start: recipes count a segment's times from it.
        let fileStart: MediaTime

        func refuse(_ field: SegmentField.Name, _ message: String) -> MediaError {
            MediaError(.invalidSettings, "segment \(number): \(message)", file: file, track: track.index, segment: SegmentField(number, field))
        }

        func shown(_ t: MediaTime) -> String { (t - fileStart).secondsDescription }

        /// " (the nearest are at 2.000s and 4.000s)", from what the scan found.
        func nearest(_ cut: CopyCutScan.Cut) -> String {
            let times = [cut.syncBefore, cut.syncAfter].compactMap { $0.map(shown) }
            return times.isEmpty ? "" : " (the nearest are at \(times.joined(separator: " and ")))"
        }
    }

    private static func check(_ plan: ConversionPlan, lane l: Int) throws(MediaError) {
        let chain = plan.chains[l]
        var first: (stream: StreamSetup, file: String)?
        var previousEnd = MediaTime.zero
        for (n, (input, segment)) in zip(chain.inputs, try chain.segments()).enumerated() {
            let asset = plan.sources[input.source]
            guard let track = asset.track(index: input.track) else {
                throw MediaError(.processing, "\(asset.path) has no track #\(input.track)", file: asset.path)
            }
            let piece = Piece(number: n + 1, file: asset.path, track: track, range: segment.sourceRange, fileStart: asset.startTime)
            guard segment.scale.isIdentity else { throw piece.refuse(.speed, "a copied track cannot be played at another speed: encode it instead") }
            guard segment.targetRange.start == previousEnd else {
                throw piece.refuse(.at, "it starts at \(segment.targetRange.start.secondsDescription) on the timeline, not where the segment before ends (\(previousEnd.secondsDescription)): copied pictures cannot leave a gap")
            }
            previousEnd = segment.targetRange.end
            let stream = try StreamSetup(path: piece.file, track: track)
            if let first, let difference = stream.difference(from: first.stream) {
                throw piece.refuse(.track, "its pictures differ from segment 1's (\(first.file)): \(difference); copied segments are joined into one stream, so every file's must be alike: encode the video instead")
            }
            if first == nil { first = (stream, piece.file) }
            try checkStart(piece)
            try checkEnd(piece)
        }
    }

    /// The first segment from its file's start keeps the file's lead-in, as a plain copy does;
    /// any other begins on its own sync sample, and after another segment on an IDR picture
    /// (a CRA or recovery-point picture leaves the decoder's numbering and references running).
    private static func checkStart(_ p: Piece) throws(MediaError) {
        guard p.number > 1 || p.range.start > p.track.startTime else { return }
        let at = MediaTime.max(p.range.start, p.track.startTime)
        let cut = try CopyCutScan.cut(at: at, path: p.file, stream: p.track.index)
        guard cut.isSync else {
            throw p.refuse(.start, "it starts at \(p.shown(at)), between keyframes\(p.nearest(cut)): a copy can begin only on a keyframe; start on one, or encode the video")
        }
        if p.number > 1, cut.isOpen || cut.restartsDecoding == false {
            throw p.refuse(.start, "it starts at \(p.shown(at)) on a keyframe that does not restart decoding (\(cut.isOpen ? "its group of pictures is open" : "not an IDR picture")): a copy joined after another segment must begin on an IDR picture; start on one, or encode the video")
        }
    }

    /// A segment ends at its file's end, or just before a sync sample whose group of pictures is
    /// closed: everything shown before it is decoded before it.
    private static func checkEnd(_ p: Piece) throws(MediaError) {
        let trackEnd = p.track.startTime + p.track.duration
        guard p.range.end.isNumeric, !(p.track.duration.isNumeric && p.range.end >= trackEnd) else { return }
        let cut = try CopyCutScan.cut(at: p.range.end, path: p.file, stream: p.track.index)
        guard cut.isSync else {
            throw p.refuse(.end, "it ends at \(p.shown(p.range.end)), between keyframes\(p.nearest(cut)): a copy can end only before a keyframe (or at the end of its file); end on one, or encode the video")
        }
        guard !cut.isOpen else {
            throw p.refuse(.end, "it ends at \(p.shown(p.range.end)), before a keyframe whose group of pictures is open (pictures shown before it are decoded after it, so a copy would lose them); end elsewhere, or encode the video")
        }
    }
}

/// What two copied video streams must have alike to be joined into one (the output track states
/// one rotation and one pixel aspect for all of it).
struct StreamSetup: Equatable {
    let codec: String
    let profile: String?
    let width: Int, height: Int
    let pixelFormat: String?
    let colour: [String?]
    let fieldOrder: FieldOrder?
    let rotation: Int
    let pixelAspect: Ratio
    let timeBase: TimeBase
    let setup: [UInt8]

    init(path: String, track: Track) throws(MediaError) {
        let f = track.format
        codec = f.codec; profile = f.profile; width = f.width; height = f.height; pixelFormat = f.pixelFormat
        colour = [f.colorPrimaries, f.colorTransfer, f.colorMatrix, f.colorRange]
        fieldOrder = f.fieldOrder
        rotation = f.rotation
        pixelAspect = f.pixelAspect
        (setup, timeBase) = try CopyCutScan.setup(path: path, stream: track.index)
    }

    /// What differs first, in words; nil: nothing. `parameterSets` false: the set-up records may
    /// differ (a smart render repeats each run's parameter sets in band).
    func difference(from other: StreamSetup, parameterSets: Bool = true) -> String? {
        if codec != other.codec { return "\(codec), not \(other.codec)" }
        if profile != other.profile { return "profile \(profile ?? "unknown"), not \(other.profile ?? "unknown")" }
        if width != other.width || height != other.height { return "\(width)x\(height), not \(other.width)x\(other.height)" }
        if pixelFormat != other.pixelFormat { return "pixel format \(pixelFormat ?? "unknown"), not \(other.pixelFormat ?? "unknown")" }
        if colour != other.colour { return "other colour tags" }
        if fieldOrder != other.fieldOrder { return "another field order" }
        if rotation != other.rotation { return "turned \(rotation)°, not \(other.rotation)°" }
        if pixelAspect != other.pixelAspect { return "pixel aspect \(pixelAspect), not \(other.pixelAspect)" }
        if timeBase != other.timeBase { return "time base \(timeBase.num)/\(timeBase.den), not \(other.timeBase.num)/\(other.timeBase.den)" }
        if parameterSets && setup != other.setup { return "other parameter sets (the stream's set-up record differs)" }
        return nil
    }
}
