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
        for chunk in c.chunks {
            lines.append("  chunk \(chunk.number)  \(range(chunk, p))  \(chunk.frames) picture\(chunk.frames == 1 ? "" : "s")  at \(chunk.outputRange.start.secondsDescription)  ends: \(chunk.why)")
        }
        return lines
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard let c = p.chunking else { return NSNull() }
        let start = p.source.startTime
        return ["pictures": c.frames, "gopFrames": c.gopFrames, "workers": c.workers, "threadsPerWorker": c.threadsPerWorker,
                "chunks": c.chunks.map { chunk -> [String: Any] in
                    ["number": chunk.number, "start": (chunk.sourceRange.start - start).seconds,
                     "end": chunk.sourceRange.end.isNumeric ? (chunk.sourceRange.end - start).seconds : NSNull(),
                     "at": chunk.outputRange.start.seconds, "pictures": chunk.frames, "why": chunk.why]
                }] as [String: Any]
    }

    private static func range(_ chunk: ChunkedEncode.Chunk, _ p: ConversionPlan) -> String {
        let start = p.source.startTime
        return TimeRange(start: chunk.sourceRange.start - start, end: chunk.sourceRange.end - start).description
    }
}
