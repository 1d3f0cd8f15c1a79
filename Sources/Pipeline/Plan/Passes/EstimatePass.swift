import Foundation
import Recipe

/// The planner's size pass, run by `plan` alone since it may encode (`SizeEstimate`): a track
/// coded at a bit rate weighs its rate times the duration; a copied one its source's rate; a
/// quality-coded one what a sample encode measured — `spanCount` short spans spread over the
/// time range, each encoded by the real encoder with the plan's own settings into the plan's
/// container — scaled to the duration (with `fast`, or a composition, an assumed bits per
/// pixel instead); the container adds its framing and index per sample. A track coded at a
/// bit rate that the sample shows spending much less (AAC on near-silence) weighs what it spent.
public enum EstimatePass {
    static let spanCount = 5
    /// Each span is this long, or one GOP where that is longer (a span starts with a keyframe,
    /// as each GOP of the real output does).
    static let spanLength = MediaTime(seconds: 1)
    /// Each span is encoded this much further, and only its own length counted: the encoder
    /// looks ahead, and the last pictures of an encode get fewer bits than the same pictures
    /// inside a longer one.
    static let spanTail = MediaTime(seconds: 1)

    public static func estimate(_ plan: ConversionPlan, method: SizeEstimate.Method) throws(MediaError) -> SizeEstimate {
        let seconds = plan.duration.isNumeric ? plan.duration.seconds : max(0, plan.source.duration.seconds)
        var measured: [Int: Int64] = [:], sampledSeconds = 0.0, sampled: String?
        // Pictures coded at a bit rate are sampled too: an encoder spends less on easy pictures.
        // A target-sized output's video spends its derived bitrate (two passes): nothing to sample.
        if method == .sample, !plan.isComposed, plan.targetSize == nil, let request = plan.request, plan.lanes.contains(where: { needsSample($0) || $0.videoSettings != nil }) {
            let spans = spans(plan)
            var first: MediaTime?
            for span in spans {
                let (bytes, length) = try encode(span, of: request, plan: plan)
                for (k, b) in bytes { measured[k, default: 0] += b }
                sampledSeconds += length.seconds
                first = first ?? length
            }
            sampled = "\(spans.count) span\(spans.count == 1 ? "" : "s") of \(first?.secondsDescription ?? "0s")"
        }
        let scale = sampledSeconds > 0 ? seconds / sampledSeconds : 0
        var tracks: [SizeEstimate.Track] = []
        for (i, lane) in plan.lanes.enumerated() {
            let sample = sampledSeconds > 0 ? measured[i].map { Int64(Double($0) * scale) } : nil
            tracks.append(track(lane, output: i + 1, seconds: seconds, sample: sample))
        }
        let cost = SizeEstimate.containerCost(plan.format), rates = samplesPerSecond(plan)
        let overhead = Int64(cost.fixed + (cost.picture * rates.pictures + cost.sound * rates.sound) * seconds)
        var info = stat()
        let sourceBytes = stat(plan.source.path, &info) == 0 ? Int64(info.st_size) : 0
        return SizeEstimate(method: method, tracks: tracks, overhead: overhead, sourceBytes: sourceBytes, sampled: sampled)
    }

    /// A track whose size only an encode tells: quality-coded video, lossless compressed sound.
    static func needsSample(_ lane: LanePlan) -> Bool {
        switch lane.kind {
        case .video(let v): return v.bitrate == nil
        case .audio(let a): return a.bitrate == 0 && a.codec != .pcm
        case .passthrough, .subtitle: return false
        }
    }

    /// Output track `output`'s estimate; `sample`: what the sample encode measured of it, scaled.
    static func track(_ lane: LanePlan, output: Int, seconds: Double, sample: Int64?) -> SizeEstimate.Track {
        let planned = planned(lane, output: output, seconds: seconds)
        guard let sample else { return planned }
        let scaled = "sample encode, scaled to \(String(format: "%.3f", seconds))s"
        if needsSample(lane) {
            return SizeEstimate.Track(output: output, bytes: sample, basis: .sample, spread: 0.1, detail: scaled)
        }
        if planned.basis == .bitrate && Double(sample) < 0.9 * Double(planned.bytes) {
            return SizeEstimate.Track(output: output, bytes: sample, basis: .sample, spread: 0.1, detail: "\(planned.detail) asked, less spent: \(scaled)")
        }
        return planned
    }

    /// A track's estimate from its settings alone.
    static func planned(_ lane: LanePlan, output: Int, seconds: Double) -> SizeEstimate.Track {
        func at(_ rate: Int, _ basis: SizeEstimate.Basis, spread: Double, _ detail: String) -> SizeEstimate.Track {
            SizeEstimate.Track(output: output, bytes: Int64(Double(rate) * seconds / 8), basis: basis, spread: spread, detail: detail)
        }
        switch lane.kind {
        case .video(let v):
            if let rate = v.bitrate { return at(rate, .bitrate, spread: 0.02, "\(rate / 1000) kb/s") }
            let fps = (v.frameRate ?? lane.track.format.averageFrameRate).map { Double($0.frames) / Double($0.seconds) } ?? 30
            let bpp = SizeEstimate.assumedBitsPerPixel(v.codec)
            let rate = Int(bpp * Double(v.width * v.height) * fps)
            return at(rate, .assumed, spread: 0.5, "assumed \(bpp) bits per pixel at \(v.width)x\(v.height)")
        case .audio(let a):
            if a.bitrate > 0 { return at(a.bitrate, .bitrate, spread: 0.02, "\(a.bitrate / 1000) kb/s") }
            let pcm = a.sampleRate * a.channels * (a.bitDepth ?? 16)
            if a.codec == .pcm { return at(pcm, .bitrate, spread: 0.0, "PCM, \(pcm / 1000) kb/s") }
            return at(pcm * 6 / 10, .assumed, spread: 0.3, "assumed 60 % of PCM's \(pcm / 1000) kb/s")
        case .passthrough:
            let rate = lane.track.format.bitRate ?? 0
            return at(rate, .copied, spread: 0.05, rate > 0 ? "copied, the source's \(rate / 1000) kb/s" : "copied, the source states no bit rate")
        case .subtitle:
            return at(0, .copied, spread: 0, "text")
        }
    }

    /// Samples a second the container frames and indexes: pictures, and sound in frames of 1024.
    static func samplesPerSecond(_ plan: ConversionPlan) -> (pictures: Double, sound: Double) {
        var pictures = 0.0, sound = 0.0
        for lane in plan.lanes {
            let f = lane.track.format
            let own = f.averageFrameRate.map { Double($0.frames) / Double($0.seconds) } ?? 30
            switch lane.kind {
            case .video(let v): pictures += v.frameRate.map { Double($0.frames) / Double($0.seconds) } ?? own
            case .audio(let a): sound += Double(a.sampleRate) / 1024
            case .passthrough where f.mediaType == .video: pictures += own
            case .passthrough: sound += Double(max(f.sampleRate, 0)) / 1024
            case .subtitle: break
            }
        }
        return (pictures, sound)
    }

    /// The spans the sample encode takes (as a request states a range: 0 is the file's start):
    /// the whole range (nil) when it is short, else `spanCount` spread evenly over it.
    static func spans(_ plan: ConversionPlan) -> [TimeRange?] {
        let range = plan.timeRange, total = plan.duration
        var length = spanLength
        if let v = plan.lanes.lazy.compactMap(\.videoSettings).first, let rate = v.frameRate ?? plan.lanes.first?.track.format.averageFrameRate {
            length = max(length, rate.frameDuration * Int64(v.gopFrames))
        }
        guard total.isNumeric, total.seconds > length.seconds * Double(spanCount) * 2 else { return [nil] }
        let step = total.seconds / Double(spanCount)
        return (0..<spanCount).map { k in
            let at = range.start - plan.source.startTime + MediaTime(value: Int64((step * (Double(k) + 0.5) - length.seconds / 2) * 1000), timescale: 1000)
            return TimeRange(start: at, duration: length)
        }
    }

    /// Encodes `span` as the plan would, into a file of its own in the temp folder: each output
    /// track's bytes, and the span's length.
    static func encode(_ span: TimeRange?, of request: ConversionRequest, plan: ConversionPlan) throws(MediaError) -> ([Int: Int64], MediaTime) {
        let ext = FilePaths.pathExtension(of: plan.outputPath)
        // A package's rendition is sampled as the fragmented file it is written as, on its own.
        var r = request.scratch(into: FilePaths.join(NSTemporaryDirectory(), "reencode-estimate-\(getpid())-\(UInt64.random(in: 0...UInt64.max))" + (ext.isEmpty ? "" : "." + ext)),
                                format: plan.format)
        if let span { r.timeRange = TimeRange(start: span.start, duration: span.duration + spanTail) }
        let p = try Planner.plan(r, asset: plan.source, sources: plan.extraSources)
        defer { unlink(r.output) }
        try ExportSession(plan: p).run()
        guard let span else { return (try streamBytes(r.output, before: .positiveInfinity), p.duration) }
        return (try streamBytes(r.output, before: span.duration), .min(span.duration, p.duration))
    }

    /// The bytes of each stream's samples in `path` that start before `end`.
    static func streamBytes(_ path: String, before end: MediaTime) throws(MediaError) -> [Int: Int64] {
        let input = try InputContainer(path: path)
        let packet = try Packet()
        var bytes: [Int: Int64] = [:]
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            let start = MediaTime(ts: packet.pts, timeBase: input.stream(i).timeBase)
            if start.isNumeric && start >= end { continue }
            bytes[i, default: 0] += Int64(packet.size)
        }
        return bytes
    }
}
