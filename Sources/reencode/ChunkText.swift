import Foundation
import Pipeline
import Recipe

/// How a chunked encode splits the output's video, as `plan` shows it (docs/recipes.md,
/// "Encoding in chunks"): the workers and each chunk's source range (counted from the file's
/// start, as recipes count), place on the output, pictures and why it ends there.
enum ChunkText {
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let c = p.chunking else { return [] }
        var lines = ["", "chunks   \(c.chunks.count) chunk\(c.chunks.count == 1 ? "" : "s") of the video (\(c.frames) pictures, split on the keyframe grid every \(c.gopFrames) pictures), "
                     + "\(c.workers) at once with \(c.threadsPerWorker) thread\(c.threadsPerWorker == 1 ? "" : "s") each; joined without encoding again, then checked"]
        if case .budgets(let bitrate) = c.rate { lines.append(budgetRule(bitrate)) }
        for chunk in c.chunks {
            lines.append("  chunk \(chunk.number)  \(range(chunk, p))  \(chunk.frames) picture\(chunk.frames == 1 ? "" : "s")  at \(chunk.outputRange.start.secondsDescription)  ends: \(chunk.why)")
        }
        lines.append("  scene cuts looked for at \(c.placesMeasured + c.placesUnmeasured) grid place\(c.placesMeasured + c.placesUnmeasured == 1 ? "" : "s")"
                     + (c.placesUnmeasured > 0 ? " (\(c.placesUnmeasured) not measured: too far from a source keyframe, split as on the grid)" : "")
                     + ", \(c.chunks.count { $0.difference != nil }) chosen")
        lines.append("  predicted: " + predicted(p))
        return lines
    }

    /// The predicted wall times and how they were predicted (`ChunkPrediction`).
    static func predicted(_ p: ConversionPlan) -> String {
        guard let c = p.chunking else { return "" }
        guard let e = p.chunkPrediction else {
            return "no wall time (the speed table has no rate for this encoder and preset; docs/engine.md)"
        }
        return "\(seconds(e.chunked)) in chunks (\(seconds(e.encodes)) encoding on \(c.workers) worker\(c.workers == 1 ? "" : "s"), longest first, "
            + "+ \(seconds(e.join)) joining and checking) against \(seconds(e.onePiece)) in one piece, "
            + "from \(e.encoder) at \(String(format: "%g", e.rate)) megapixels per core-second (a table measured with ffmpeg, docs/engine.md)"
    }

    private static func seconds(_ s: Double) -> String { String(format: s < 10 ? "%.1f s" : "%.0f s", s) }

    static func object(_ p: ConversionPlan) -> Any {
        guard let c = p.chunking else { return NSNull() }
        let start = p.source.startTime
        return ["pictures": c.frames, "gopFrames": c.gopFrames, "workers": c.workers, "threadsPerWorker": c.threadsPerWorker, "rate": rate(c.rate),
                "chunks": c.chunks.map { chunk -> [String: Any] in
                    ["number": chunk.number, "start": (chunk.sourceRange.start - start).seconds,
                     "end": chunk.sourceRange.end.isNumeric ? (chunk.sourceRange.end - start).seconds : NSNull(),
                     "at": chunk.outputRange.start.seconds, "pictures": chunk.frames, "why": chunk.why,
                     "difference": chunk.difference ?? NSNull()]
                },
                "placesMeasured": c.placesMeasured, "placesUnmeasured": c.placesUnmeasured,
                "predicted": prediction(p)] as [String: Any]
    }

    private static func prediction(_ p: ConversionPlan) -> Any {
        guard let e = p.chunkPrediction else { return NSNull() }
        return ["chunked": e.chunked, "encodes": e.encodes, "join": e.join, "onePiece": e.onePiece,
                "encoder": e.encoder, "rate": e.rate] as [String: Any]
    }

    /// How a bitrate-coded output's chunk budgets are set: each chunk's is known only after the
    /// run's first pass, so `plan` states the rule.
    private static func budgetRule(_ bitrate: Int) -> String {
        "  budgets  \(bitrate / 1000) kb/s over the whole video, shared by the chunks as a first pass measures them "
            + "(each chunk coded fast at one quality: its share of the bits is its share of those bytes); each chunk coded to its budget in two passes"
    }

    private static func rate(_ rate: ChunkRate) -> [String: Any] {
        switch rate {
        case .quality: return ["kind": "quality"]
        case .budgets(let bitrate): return ["kind": "budgets", "bitrate": bitrate, "chunkPasses": 2]
        }
    }

    private static func range(_ chunk: ChunkedEncode.Chunk, _ p: ConversionPlan) -> String {
        let start = p.source.startTime
        return TimeRange(start: chunk.sourceRange.start - start, end: chunk.sourceRange.end - start).description
    }
}
