import Foundation
import Pipeline

/// A chunked run's measured chunk encodes (`ChunkTimes`), as `run` reports them: one line after
/// its summary, and every chunk in `--progress json`'s `done` line (docs/recipes.md).
enum ChunkTimesText {
    /// `chunks: 3 encoded by 2 workers in 4.1 s (each 1.2–2.0 s, the longest chunk 2)`.
    static func line(_ t: ChunkTimes) -> String {
        let n = t.chunks.count
        let low = t.chunks.map(\.seconds).min() ?? 0
        let slowest = t.chunks.max { $0.seconds < $1.seconds }
        return "chunks: \(n) encoded by \(t.workers) worker\(t.workers == 1 ? "" : "s") in \(String(format: "%.1f", t.wall)) s"
            + (slowest.map { " (each \(String(format: "%.1f", low))–\(String(format: "%.1f", $0.seconds)) s, the longest chunk \($0.number))" } ?? "")
    }

    /// `{"wall": 4.1, "workers": 2, "each": [{"number": 1, "worker": 0, "start": 0, "seconds": 1.9}, …]}`.
    static func object(_ t: ChunkTimes) -> [String: Any] {
        ["wall": t.wall, "workers": t.workers,
         "each": t.chunks.map { ["number": $0.number, "worker": $0.worker, "start": $0.start, "seconds": $0.seconds] as [String: Any] }]
    }
}
