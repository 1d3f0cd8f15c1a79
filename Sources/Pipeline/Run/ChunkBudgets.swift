import Foundation
import Recipe

/// Per-chunk bit budgets for a chunked output coded at a bitrate (`ChunkRate.budgets`): chunks
/// coded apart at the whole's bitrate each would give a still chunk as many bits as a busy one,
/// and per-chunk averages (Av1an's mistake) spend the film's bits by chunk, not by need. So a
/// first pass measures each chunk's complexity — its pictures coded at one constant quality by a
/// fast encoder (H.264, x264 `ultrafast`, quality 23) fitted in 320×320, the bytes it took — and
/// chunk k's budget is the whole's bits (bitrate × duration) × its share of the bytes, as a bitrate
/// over its length. A constant-quality encode spends bits where the pictures need them, which is
/// what two-pass rate control does over one file (it spends a bitrate at the qualities its first
/// pass measured); the budgets sum to the whole's bits, so the file lands where its chunks do.
/// Each chunk is then coded to its budget in two passes (one-pass ABR overshoots a chunk whose
/// pictures change within it by far more than the ±3 % the whole must hold; docs/recipes.md).
enum ChunkBudgets {
    /// The first pass's encoder settings: cheap, and alike for every output codec (a measure of
    /// the pictures, not of the output's encoder).
    static let measuringQuality = 23.0
    static let measuringBox = 320
    static let measuringOptions = ["preset": "ultrafast"]

    /// A bitrate-coded chunked output whose budgets are not set yet.
    static func isNeeded(_ plan: ConversionPlan) -> Bool {
        guard let c = plan.chunking, case .budgets = c.rate else { return false }
        return c.chunks.contains { $0.bitrate == nil }
    }

    /// Where the first pass writes its chunks, inside the chunks' folder (removed with it).
    static func measuringFolder(_ folder: String) -> String { FilePaths.join(folder, "first-pass") }

    /// The first pass's plan: the output's video track alone over the same range, with the same
    /// chunks, coded at the measuring settings; `ChunkWorkers` runs it as it runs the chunks.
    static func measuringPlan(_ plan: ConversionPlan, folder: String) throws(MediaError) -> ConversionPlan {
        guard var chunking = plan.chunking, var r = plan.request else {
            throw MediaError(.processing, "a chunked encode's first pass needs the plan's request", file: plan.outputPath)
        }
        let video = r.tracks.filter { if case .video = $0.mode { return true } else { return false } }
        guard video.count == 1, case .video(var v) = video[0].mode else {
            throw MediaError(.processing, "a chunked encode's request has \(video.count) encoded video tracks, not one", file: plan.outputPath)
        }
        v.codec = .h264
        v.quality = measuringQuality
        v.bitrate = nil
        v.maxBitrate = nil
        v.passes = nil
        v.profile = nil
        v.level = nil
        v.pixelFormat = nil
        v.codecOptions = measuringOptions
        // Fitted in the box (never upscaled): the pictures' detail and motion, at a fraction of the cost.
        v.width = measuringBox
        v.height = measuringBox
        var track = video[0]
        track.mode = .video(v)
        r.tracks = [track]
        r.audioMix = nil
        r.fade = nil
        let measuring = measuringFolder(folder)
        guard mkdir(measuring, 0o700) == 0 else {
            throw MediaError(.io, "cannot make a folder for the first pass: \(String(cString: strerror(errno)))", file: measuring)
        }
        r = r.scratch(into: FilePaths.join(measuring, "whole.mp4"), format: .mp4)
        var made = try Planner.plan(r, asset: plan.source, sources: plan.extraSources)
        guard made.lanes.count == 1, made.lanes[0].videoSettings != nil else {
            throw MediaError(.processing, "the first pass's plan has \(made.lanes.count) tracks, not the video alone", file: plan.outputPath)
        }
        chunking.lane = 0
        made.chunking = chunking
        // Its chunks are planned and run each on its own (`ChunkedRun.chunkPlan`).
        return made.droppingOpenedEncoders()
    }

    /// `plan` with each chunk's budget set from the first pass's chunk files in `folder`.
    static func budgeted(_ plan: ConversionPlan, measuring: ConversionPlan, folder: String) throws(MediaError) -> ConversionPlan {
        guard var chunking = plan.chunking, case .budgets(let bitrate) = chunking.rate,
              let s = measuring.chunking.flatMap({ measuring.lanes[$0.lane].videoSettings }) else { return plan }
        var bytes: [Int] = []
        for chunk in chunking.chunks {
            bytes.append(try codedBytes(ChunkedRun.file(measuringFolder(folder), number: chunk.number, settings: s)))
        }
        let lengths = chunking.chunks.map { chunk in
            chunk.outputRange.end.isNumeric ? (chunk.outputRange.end - chunk.outputRange.start).seconds : 0
        }
        let floor = plan.lanes[chunking.lane].videoSettings.map { leastBitrate($0, frames: chunking.frames, seconds: lengths.reduce(0, +)) } ?? 1000
        for (k, b) in split(bitrate: bitrate, lengths: lengths, complexities: bytes, floor: floor).enumerated() { chunking.chunks[k].bitrate = b }
        var made = plan
        made.chunking = chunking
        return made
    }

    /// Each chunk's bitrate: the whole's bits (`bitrate` × the lengths together) by its share of
    /// `complexities`, over its length; an even split where nothing was measured. Every chunk
    /// first gets `floor` (b/s), the rest is shared: an encoder cannot code a still chunk in next
    /// to no bits (x264 refuses a budget under what its pictures take at its coarsest quantizer),
    /// so a floor keeps the budgets codable and the sum the whole's bits.
    static func split(bitrate: Int, lengths: [Double], complexities: [Int], floor: Int) -> [Int] {
        let seconds = lengths.reduce(0, +)
        let bits = Double(bitrate) * seconds
        let floors = lengths.map { Double(floor) * $0 }
        let spare = floors.reduce(0, +) < bits ? bits - floors.reduce(0, +) : bits
        let kept = spare < bits ? floors : lengths.map { _ in 0 }
        let total = complexities.reduce(0, +)
        return zip(lengths, zip(complexities, kept)).map { length, measured in
            guard length > 0 else { return bitrate }
            let share = total > 0 ? Double(measured.0) / Double(total) : length / seconds
            return max(1000, Int(((measured.1 + spare * share) / length).rounded()))
        }
    }

    /// The least bitrate a chunk is given: 0.005 bits per pixel per picture, about three times what
    /// x264 asks of a still grey picture at its coarsest quantizer, and half the least a
    /// `target-size` derives (0.01), so the floors never take more than half the whole's bits.
    static func leastBitrate(_ s: ResolvedVideoSettings, frames: Int, seconds: Double) -> Int {
        guard seconds > 0 else { return 1000 }
        return max(1000, Int(0.005 * Double(s.width * s.height) * Double(frames) / seconds))
    }

    /// The chunks to code again, once: those whose file in `folder` missed its budget by more than
    /// 1 % of the whole's bits, each with its budget scaled by budget / what it took (the encoder
    /// spent that ratio too much or too little at its budget; asked for the scaled one it lands
    /// near the budget). nil: every chunk landed near enough. x264's two passes land a steady 4 s
    /// chunk within 1 %, but one whose pictures change within it by the thread count's whim
    /// (+11 % with 1 thread, −7 % with 8); a still chunk's shortfall, which no budget lifts, is
    /// too few bits to count.
    static func correction(_ plan: ConversionPlan, folder: String) throws(MediaError) -> ConversionPlan? {
        guard var chunking = plan.chunking, case .budgets(let bitrate) = chunking.rate,
              let s = plan.lanes[chunking.lane].videoSettings else { return nil }
        let whole = Double(bitrate) * chunking.chunks.reduce(0) { $0 + length($1) }
        var again: [ChunkedEncode.Chunk] = []
        for var chunk in chunking.chunks {
            guard let budget = chunk.bitrate, length(chunk) > 0 else { continue }
            let spent = Double(try codedBytes(ChunkedRun.file(folder, number: chunk.number, settings: s))) * 8
            let asked = Double(budget) * length(chunk)
            guard abs(spent - asked) > 0.01 * whole, spent > 0 else { continue }
            chunk.bitrate = max(1000, Int((Double(budget) * asked / spent).rounded()))
            again.append(chunk)
        }
        guard !again.isEmpty else { return nil }
        chunking.chunks = again
        var made = plan
        made.chunking = chunking
        return made
    }

    private static func length(_ chunk: ChunkedEncode.Chunk) -> Double {
        chunk.outputRange.end.isNumeric ? (chunk.outputRange.end - chunk.outputRange.start).seconds : 0
    }

    /// The bytes of a file's coded pictures (its packets, not its container).
    static func codedBytes(_ path: String) throws(MediaError) -> Int {
        let input = try InputContainer(path: path)
        let packet = try Packet()
        var bytes = 0
        while try input.read(into: packet) { bytes += packet.size }
        return bytes
    }
}

extension ChunkBudgets {
    /// How much of `chunk` a report from its session says is done, as output time: a chunk coded
    /// in two passes counts its first pass as the first half and its second as the second, so
    /// the chunks' progress only rises.
    static func encoded(_ p: ConversionProgress, chunk: ChunkedEncode.Chunk) -> MediaTime {
        guard p.passes == 2, p.outputTime.isNumeric, chunk.outputRange.end.isNumeric else { return p.outputTime }
        let length = (chunk.outputRange.end - chunk.outputRange.start).seconds
        let done = (p.pass == 2 ? length : 0) + min(p.outputTime.seconds, length)
        return MediaTime(value: Int64((done / 2 * 1_000_000).rounded()), timescale: 1_000_000)
    }
}
