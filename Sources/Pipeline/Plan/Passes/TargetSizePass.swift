import Recipe

/// The size a whole output file is aimed at (a recipe's `target-size`), container included.
public struct TargetSize: Sendable, Hashable {
    public let bytes: Int64
    /// Where the recipe states it (`recipe.yaml:4:16`), for a refusal.
    public let origin: String?
    public init(bytes: Int64, origin: String? = nil) { self.bytes = bytes; self.origin = origin }
}

/// How the video bitrate of a target-sized output was found: what `plan` shows.
public struct TargetSizeDerivation: Sendable {
    public struct VideoShare: Sendable {
        /// 1-based, as `plan` numbers output tracks.
        public let output: Int
        public let bitrate: Int
    }
    public let target: Int64
    /// The output's duration, after any time range.
    public let seconds: Double
    /// Every other track at its rate (sound, copies, subtitles), as the size estimate has it.
    public let others: [SizeEstimate.Track]
    /// The container's header, index and sample framing, as the size estimate models it.
    public let overhead: Int64
    /// Bits per second for all the video, and each video track's part (by its pixel rate).
    public let videoBitrate: Int
    public let video: [VideoShare]
    /// The least video bitrate the encoders are given (`TargetSizePass.floorBitsPerPixel`).
    public let floor: Int

    public var othersBytes: Int64 { others.reduce(0) { $0 + $1.bytes } }

    /// `(25000000 − 960000 other tracks − 26200 container) bytes × 8 / 60.000s = 3201013 b/s`.
    public var formula: String {
        "(\(target) − \(othersBytes) other tracks − \(overhead) container) bytes × 8 / \(String(format: "%.3f", seconds))s = \(videoBitrate) b/s"
    }
}

/// The planner's target-size pass: the video bitrate that makes the whole file the target's size,
/// (target − the other tracks' bytes at their bitrates − the container's overhead) × 8 / the
/// output's duration, both as the size estimate models them (`EstimatePass.planned`,
/// `SizeEstimate.containerCost`); with several video tracks, each takes a part by its pixel
/// rate. Each video lane is then coded at its part (in two passes, unless `passes: 1`). A target
/// that leaves the video less than `floorBitsPerPixel` is refused with the smallest that works.
enum TargetSizePass {
    /// Below 0.01 bits per pixel per frame no encoder makes pictures worth the name (x264 at its
    /// lowest quantiser's reach spends more on a still picture's frames alone).
    static let floorBitsPerPixel = 0.01

    static func derive(_ target: TargetSize, for plan: inout ConversionPlan) throws(MediaError) {
        func refuse(_ why: String) -> MediaError {
            MediaError(.invalidSettings, why, file: target.origin ?? plan.outputPath, setting: "target-size")
        }
        guard plan.duration.isNumeric, plan.duration > .zero else {
            throw refuse("'target-size' divides the size by the output's duration, and \(plan.source.path) states none")
        }
        let seconds = plan.duration.seconds
        var others: [SizeEstimate.Track] = [], pixelRates: [(lane: Int, rate: Double)] = []
        for (i, lane) in plan.lanes.enumerated() {
            if let v = lane.videoSettings {
                let fps = (v.frameRate ?? lane.track.format.averageFrameRate).map { Double($0.frames) / Double($0.seconds) } ?? 30
                pixelRates.append((i, Double(v.width * v.height) * fps))
            } else {
                others.append(EstimatePass.planned(lane, output: i + 1, seconds: seconds))
            }
        }
        guard !pixelRates.isEmpty else { throw refuse("'target-size' sets the video bitrate, but this output encodes no video track") }
        let cost = SizeEstimate.containerCost(plan.format), rates = EstimatePass.samplesPerSecond(plan)
        let overhead = Int64(cost.fixed + (cost.picture * rates.pictures + cost.sound * rates.sound) * seconds)
        let othersBytes = others.reduce(Int64(0)) { $0 + $1.bytes }
        let videoBytes = target.bytes - othersBytes - overhead
        let videoBitrate = Int(Double(videoBytes) * 8 / seconds)
        let pixels = pixelRates.reduce(0) { $0 + $1.rate }
        let floor = Int((floorBitsPerPixel * pixels).rounded(.up))
        // In bytes, so that the smallest target said is one that is taken.
        let leastVideoBytes = Int64((Double(floor) * seconds / 8).rounded(.up))
        if videoBytes < leastVideoBytes {
            let smallest = othersBytes + overhead + leastVideoBytes
            let rest = videoBitrate > 0 ? "\(videoBitrate) b/s" : "nothing"
            throw refuse("'target-size' is \(ByteCount.describe(target.bytes)): the other tracks take \(ByteCount.describe(othersBytes)) of it and the container \(ByteCount.describe(overhead)) "
                         + "over \(plan.duration.secondsDescription), leaving the video \(rest), less than the \(floor) b/s its pictures need at the least (\(floorBitsPerPixel) bits per pixel): "
                         + "the smallest target this output takes is \(ByteCount.describe(smallest))")
        }
        var shares: [TargetSizeDerivation.VideoShare] = []
        for (i, rate) in pixelRates {
            guard case .video(var s) = plan.lanes[i].kind else { continue }
            let derived = Int(Double(videoBitrate) * rate / pixels)
            let formula = "from target-size \(target.bytes): (\(target.bytes) − \(othersBytes) other tracks − \(overhead) container) bytes × 8 / \(String(format: "%.3f", seconds))s"
                + (pixelRates.count > 1 ? ", its part by pixel rate" : "")
            // Never more than the source has: a rate above the source's own adds bytes, not
            // pictures (the file to share would outweigh what it was made from).
            let track = plan.lanes[i].track
            let bitrate = track.format.bitRate.map { min(derived, $0) } ?? derived
            s.bitrate = bitrate
            s.quality = nil
            s.decisions.removeAll { $0.setting == "quality" || $0.setting == "bitrate" }
            if bitrate < derived {
                s.decisions.append(Decision(setting: "bitrate", value: "\(bitrate)", rule: "bitrate.target-size-source",
                                            reason: "the source's own \(bitrate) b/s: target-size's \(derived) b/s (\(formula)) would be more than it has"))
                plan.notices.append(PlanNotice(.changed, "target-size", track: track.index,
                                               "'target-size' (\(ByteCount.describe(target.bytes))) would code the video at \(derived) b/s, more than the source's own \(bitrate) b/s: it is coded at the source's rate (never raised), so the file comes out smaller than the target"))
            } else {
                s.decisions.append(Decision(setting: "bitrate", value: "\(bitrate)", rule: "bitrate.target-size", reason: formula))
            }
            plan.lanes[i].kind = .video(s)
            shares.append(.init(output: i + 1, bitrate: bitrate))
        }
        plan.targetSize = TargetSizeDerivation(target: target.bytes, seconds: seconds, others: others, overhead: overhead,
                                               videoBitrate: videoBitrate, video: shares, floor: floor)
    }
}
