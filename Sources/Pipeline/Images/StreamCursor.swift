import Recipe

/// One stream of a file, opened once and positioned anew for every look at it: opening reads
/// the container's index (an MP4's sample tables: about 21 M instructions each time for ten
/// minutes of 1080p30), which stills used to pay once or twice per still. A read from the
/// file's start opens it anew, unseeked (a cut file may not seek there), and is kept for the
/// seeks after it.
// Not Sendable: owned by one planner or image generator, on one thread.
final class StreamCursor {
    let path: String
    let stream: Int
    private var packets: StreamPackets?
    /// How many times the file was opened (for checks).
    private(set) var opens = 0

    init(path: String, stream: Int) {
        self.path = path
        self.stream = stream
    }

    /// The stream positioned at a sync sample at or before `time` where the file's index allows
    /// (`StreamPackets.seek`: a guess where it has none; the caller checks what it reads).
    func seeked(to time: MediaTime, rounding: MediaTime.Rounding = .down) throws(MediaError) -> StreamPackets {
        let p: StreamPackets
        if let packets { p = packets } else { p = try open() }
        try p.seek(to: time, rounding: rounding)
        return p
    }

    /// The stream from the file's start, opened anew.
    func fromStart() throws(MediaError) -> StreamPackets { try open() }

    private func open() throws(MediaError) -> StreamPackets {
        let p = try StreamPackets(path: path, stream: stream)
        opens += 1
        packets = p
        return p
    }
}
