import Recipe

extension ChunkedEncode {
    /// The chunks' indices, longest first: how workers take them (the last to start is short,
    /// so all end near together) and how a prediction schedules them.
    var longestFirst: [Int] { chunks.indices.sorted { chunks[$0].frames > chunks[$1].frames } }

    /// Each chunk's first picture, an index into the output's pictures (0 first).
    var starts: [Int] {
        var first = 0
        return chunks.map { c in
            defer { first += c.frames }
            return first
        }
    }

    /// The same pictures split at `starts` (each chunk's first picture; `why` says per chunk why
    /// it ends there) instead of this plan's places: how several machines encode one output from
    /// the split the first of them planned (`SharedChunks`), whatever each would have chosen
    /// itself. Nil when `starts` cannot split these pictures: not rising from 0, past the last
    /// picture, or off the keyframe grid (a chunk must start with its encoder's first keyframe
    /// where one encode would put one).
    func splitting(at starts: [Int], why: [String]) -> ChunkedEncode? {
        guard let first = chunks.first, let last = chunks.last, starts.first == 0, why.count == starts.count,
              zip(starts, starts.dropFirst()).allSatisfy({ $0 < $1 }), starts[starts.count - 1] < frames,
              starts.allSatisfy({ $0 % gopFrames == 0 }) else { return nil }
        // The source time of the output's first picture, less its output time.
        let origin = first.sourceRange.start - frameTimes[0]
        let split = starts.indices.map { k in
            let begin = starts[k]
            let end = k + 1 < starts.count ? starts[k + 1] : frames
            let isLast = k + 1 == starts.count
            return Chunk(number: k + 1,
                         sourceRange: TimeRange(start: origin + frameTimes[begin], end: isLast ? last.sourceRange.end : origin + frameTimes[end]),
                         outputRange: TimeRange(start: frameTimes[begin], end: isLast ? last.outputRange.end : frameTimes[end]),
                         frames: end - begin, why: why[k])
        }
        var made = ChunkedEncode(lane: lane, chunks: split, workers: max(1, min(workers, split.count)), threadsPerWorker: threadsPerWorker,
                                 gopFrames: gopFrames, frameTimes: frameTimes, files: nil)
        made.rate = rate
        made.cores = cores
        return made
    }
}
