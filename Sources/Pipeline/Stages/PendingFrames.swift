/// Frames a source stage made and has not handed out yet, in order: one packet can make several
/// (a decoder's burst, repeated slots), and the stage hands them out one `next()` at a time.
struct PendingFrames {
    private var frames: [TimedFrame] = []
    private var head = 0

    mutating func append(_ frame: TimedFrame) { frames.append(frame) }

    /// The oldest frame not handed out, or nil when all were (the storage is then reused).
    mutating func pop() -> TimedFrame? {
        guard head < frames.count else {
            frames.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        head += 1
        return frames[head - 1]
    }
}
