import Foundation
import Recipe

/// An output ended at its file-length limit (AVAssetExportSession's `fileLengthLimit`): the run
/// writes it whole (or until it has passed the limit) to a temp file, and this copies the part
/// that fits into another. It ends at the last *whole point* of its leading track (its first
/// video track, else its first): a point in decode order where every picture shown so far is
/// written and none is missing (with B-frames, the end of a group of them), for which the whole
/// file, index included, is at most the limit. Every other track ends there too: a sound frame
/// is kept when its middle is before that instant (so sound ends within half a frame of it).
/// The smallest output it makes holds the leading track's first GOP; a limit below that is refused.
enum LengthCut {
    /// One sample of the temp file, in file (decode) order.
    struct Sample {
        let stream: Int
        let start: MediaTime
        let end: MediaTime
        let size: Int64
        let isKey: Bool
    }

    /// A place the output may end: the leading track's first `count` samples (decode order),
    /// everything else up to `end`.
    struct Point {
        let count: Int
        let end: MediaTime
        /// When the last picture shown starts.
        let lastStart: MediaTime
    }

    /// Cuts `temp` into `output` when it is larger than `limit`; nil when it fits as it is
    /// (`output` is then not written). Throws `.invalidSettings` when not even the first GOP fits.
    static func cut(_ temp: String, into output: String, limit: FileLengthLimit, plan: ConversionPlan) throws(MediaError) -> LimitStop? {
        guard fileSize(temp) > limit.bytes else { return nil }
        let file = try TempContents(temp)
        let leading = file.leading
        let points = wholePoints(file.samples.filter { $0.stream == leading })
        guard !points.isEmpty else {
            throw MediaError(.processing, "the output's first track has no point to end at", file: plan.outputPath)
        }
        // The first GOP: every sample of the leading track before its second keyframe.
        let keys = file.samples.filter { $0.stream == leading }.enumerated().filter { $0.element.isKey }.map(\.offset)
        let firstGOP = keys.dropFirst().first ?? Int.max
        let smallest = points.firstIndex { $0.count >= firstGOP } ?? points.count - 1
        var sizes: [Int: Int64] = [:], written = -1
        func size(_ i: Int) throws(MediaError) -> Int64 {
            if let s = sizes[i] { return s }
            sizes[i] = try write(file, into: output, keeping: points[i], plan: plan)
            written = i
            return sizes[i]!
        }
        let least = try size(smallest)
        guard least <= limit.bytes else {
            throw MediaError(.invalidSettings, "'file-length-limit' is \(limit.description), less than the output's first GOP (to \(points[smallest].end.secondsDescription)) "
                             + "needs: the smallest limit this output takes is \(ByteCount.describe(least))",
                             file: limit.origin ?? plan.outputPath, setting: "file-length-limit")
        }
        // The file grows with each point: search between the first GOP and the last point whose
        // samples alone fit, writing each point tried.
        var low = smallest, high = points.count - 1
        let payload = file.payloads(points)
        while high > low && payload[high] > limit.bytes { high -= 1 }
        while high > low {
            let mid = (low + high + 1) / 2
            if try size(mid) <= limit.bytes { low = mid } else { high = mid - 1 }
        }
        if written != low { sizes[low] = try write(file, into: output, keeping: points[low], plan: plan) }
        return LimitStop(end: points[low].end, lastFrame: file.leadingIsVideo ? points[low].lastStart : nil, bytes: sizes[low]!, limit: limit)
    }

    /// The points where the leading track is whole, in decode order: after sample k when the
    /// pictures written so far are exactly the first k + 1 shown.
    static func wholePoints(_ samples: [Sample]) -> [Point] {
        let shown = samples.map(\.start).filter(\.isNumeric).sorted()
        guard shown.count == samples.count else { return [] }
        var points: [Point] = [], latest = MediaTime.invalid, latestEnd = MediaTime.invalid
        for (k, s) in samples.enumerated() {
            if !latest.isNumeric || s.start > latest { (latest, latestEnd) = (s.start, s.end) }
            guard latest == shown[k] else { continue }
            // A picture without a length ends where the next one shown starts.
            let end = latestEnd > latest ? latestEnd : k + 1 < shown.count ? shown[k + 1] : latest
            points.append(Point(count: k + 1, end: end, lastStart: latest))
        }
        return points
    }

    /// Copies the samples `point` keeps into `output` (replacing it); the file's size.
    static func write(_ file: TempContents, into output: String, keeping point: Point, plan: ConversionPlan) throws(MediaError) -> Int64 {
        unlink(output)
        let input = try InputContainer(path: file.path)
        let writer = try AssetWriter(path: output, format: plan.format, names: plan.outputPath)
        var inputs: [Int: Int] = [:]
        for i in 0..<input.streamCount where file.copied.contains(i) {
            let track = file.asset.track(index: i)
            inputs[i] = try writer.addPassthroughInput(from: input.stream(i), rotation: track?.format.rotation ?? 0,
                                                       metadata: track?.outputMetadata ?? [:])
        }
        try writer.start(kept: plan.kept, optimizeForNetwork: plan.optimizeForNetwork)
        let packet = try Packet()
        var k = 0
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            guard let to = inputs[i] else { continue }
            defer { k += 1 }
            guard file.samples.indices.contains(k), file.keeps(sample: k, point) else { continue }
            try writer.append(packet, to: to)
        }
        try writer.finish()
        return fileSize(output)
    }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}

/// What a temp file holds, sample by sample, for `LengthCut`.
struct TempContents {
    let path: String
    let asset: Asset
    /// Every sample of the copied streams, in file order.
    let samples: [LengthCut.Sample]
    /// The streams copied: pictures, sound and text (cover art is the plan's to add again).
    let copied: Set<Int>
    /// The track the cut follows: the first video track, else the first.
    let leading: Int
    let leadingIsVideo: Bool
    /// Per stream, its samples so far when each sample is read (the leading track's are counted).
    private let ordinals: [Int]

    init(_ path: String) throws(MediaError) {
        self.path = path
        asset = try Asset.load(path)
        let input = try InputContainer(path: path)
        var copied = Set<Int>()
        for i in 0..<input.streamCount where !input.stream(i).isAttachedPicture { copied.insert(i) }
        var samples: [LengthCut.Sample] = []
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            guard copied.contains(i) else { continue }
            let tb = input.stream(i).timeBase
            let start = MediaTime(ts: packet.pts, timeBase: tb)
            let end = packet.duration > 0 ? MediaTime(ts: packet.pts + packet.duration, timeBase: tb) : start
            samples.append(LengthCut.Sample(stream: i, start: start, end: end, size: Int64(packet.size), isKey: packet.isKeyframe))
        }
        let video = copied.sorted().first { input.stream($0).mediaType == .video }
        guard let leading = video ?? copied.min() else {
            throw MediaError(.processing, "the output holds no track to cut at its file-length limit", file: path)
        }
        self.samples = samples
        self.copied = copied
        self.leading = leading
        leadingIsVideo = video != nil
        var counts: [Int: Int] = [:]
        ordinals = samples.map { s in defer { counts[s.stream, default: 0] += 1 }; return counts[s.stream, default: 0] }
    }

    /// Whether the output cut at `point` keeps `sample`: the leading track's first `count`, and
    /// of the others, those whose middle is before the point's end.
    func keeps(_ sample: LengthCut.Sample, _ point: LengthCut.Point) -> Bool {
        guard sample.stream != leading else { return true }
        guard sample.start.isNumeric else { return false }
        return sample.start + sample.end <= point.end + point.end
    }

    /// Whether sample `k` (file order) is kept at `point`.
    func keeps(sample k: Int, _ point: LengthCut.Point) -> Bool {
        let s = samples[k]
        return s.stream == leading ? ordinals[k] < point.count : keeps(s, point)
    }

    /// The bytes of the samples each point keeps (without the container's own).
    func payloads(_ points: [LengthCut.Point]) -> [Int64] {
        var lead: [Int64] = [0]
        for s in samples where s.stream == leading { lead.append(lead.last! + s.size) }
        // The other samples by their middle (twice it: start + end), with running sums.
        let others = samples.filter { $0.stream != leading && $0.start.isNumeric }.map { ($0.start + $0.end, $0.size) }.sorted { $0.0 < $1.0 }
        var sums: [Int64] = [0]
        for o in others { sums.append(sums.last! + o.1) }
        return points.map { p in
            let twice = p.end + p.end
            var lo = 0, hi = others.count
            while lo < hi { let mid = (lo + hi) / 2; if others[mid].0 <= twice { lo = mid + 1 } else { hi = mid } }
            return lead[min(p.count, lead.count - 1)] + sums[lo]
        }
    }
}
