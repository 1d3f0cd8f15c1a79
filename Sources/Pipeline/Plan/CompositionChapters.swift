import Recipe

/// A composition's chapters: each file's chapters, as far as its segments show them, moved (and
/// scaled) to where those segments play. A chapter cut by a segment boundary keeps the part the
/// segment shows; the pieces of one chapter that end up next to each other (a cut-out inside it)
/// are one chapter again. What no segment shows is dropped, and said.
enum CompositionChapters {
    static func map(_ timeline: TimeMapping, sources: [Asset]) -> (chapters: [Chapter], notices: [PlanNotice]) {
        var pieces: [(chapter: Chapter, key: ChapterKey)] = []
        var shown: Set<ChapterKey> = []
        for segment in timeline.segments where sources.indices.contains(segment.source) {
            let file = sources[segment.source]
            for (i, c) in file.chapters.enumerated() {
                guard let clipped = c.clipped(to: segment.sourceRange) else { continue }
                let start = segment.targetStart + segment.targetLength(of: clipped.start)
                let end = clipped.end.isNumeric ? segment.targetStart + segment.targetLength(of: clipped.end) : segment.targetRange.end
                let key = ChapterKey(source: segment.source, index: i)
                shown.insert(key)
                pieces.append((Chapter(start: start, end: end, title: c.title), key))
            }
        }
        pieces.sort { $0.chapter.start < $1.chapter.start }
        var joined: [(chapter: Chapter, key: ChapterKey)] = []
        for p in pieces {
            if let last = joined.last, last.key == p.key, last.chapter.end == p.chapter.start {
                joined[joined.count - 1].chapter.end = p.chapter.end
            } else {
                joined.append(p)
            }
        }
        var notices: [PlanNotice] = []
        for (k, file) in sources.enumerated() {
            let hidden = file.chapters.indices.filter { !shown.contains(ChapterKey(source: k, index: $0)) }
            guard !hidden.isEmpty else { continue }
            let names = hidden.map { file.chapters[$0].title.map { "\"\($0)\"" } ?? "untitled" }.joined(separator: ", ")
            notices.append(PlanNotice(.dropped, "chapters", "\(hidden.count) of \(file.chapters.count) chapters of \(FilePaths.name(of: file.path)) lie outside its segments: \(names)"))
        }
        let (kept, far) = Keeping.keptChapters(joined.map(\.chapter), range: TimeRange(start: .zero, duration: .positiveInfinity))
        return (kept, notices + far)
    }

    private struct ChapterKey: Hashable {
        let source: Int
        let index: Int
    }
}
