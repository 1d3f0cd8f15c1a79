import Recipe

/// Times for decoded pictures that come without one. FFmpeg's Matroska reader gives no timestamp
/// to a block before the file's 0 (a file muxed with negative timestamps: `-avoid_negative_ts
/// disabled`, an edit's pre-roll), so its first pictures come untimed — in presentation order,
/// as the decoder gives every picture — before the first timed one. Each is placed one frame
/// before the picture after it; an untimed picture after a timed one, one frame after it.
/// Dropped, they were lost and the video started late against its sound.
struct UntimedPictures {
    /// Leading pictures still without a time, oldest first.
    private var held: [Frame] = []
    /// The time given to the last picture placed; invalid before the first.
    private var previous: MediaTime = .invalid
    /// The most pictures held waiting for a timed one (a stream that has none at all is then
    /// placed from `start`): a GOP's leading pictures are far fewer.
    static let limit = 120

    /// The pictures that can be shown now, with their times: `frame` (its own time `stated`,
    /// invalid when it has none) and any held before it. `duration`: one frame's length.
    mutating func place(_ frame: Frame, stated: MediaTime, duration: MediaTime, start: MediaTime) -> [(Frame, MediaTime)] {
        if stated.isNumeric {
            // As the asset placed them when it found where the track starts (`UntimedLead`).
            let placed = Array(zip(held, UntimedLead.place(count: held.count, before: stated, frame: duration)))
            held.removeAll()
            previous = stated
            return placed + [(frame, stated)]
        }
        if previous.isNumeric {
            previous = previous + duration
            return [(frame, previous)]
        }
        held.append(frame)
        return held.count >= Self.limit ? flush(from: start, duration: duration) : []
    }

    /// The pictures still held (the stream ended, or gave none a time), one frame apart from
    /// `start`.
    mutating func flush(from start: MediaTime, duration: MediaTime) -> [(Frame, MediaTime)] {
        let placed = held.enumerated().map { k, f in (f, start + duration * Int64(k)) }
        if let last = placed.last { previous = last.1 }
        held.removeAll()
        return placed
    }
}
