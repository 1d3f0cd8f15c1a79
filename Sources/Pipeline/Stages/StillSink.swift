import Recipe

/// Stills taken from a lane's decoded pictures beside the renditions it feeds (`TeeSink`): one
/// decode for all. The lane keeps the source's timing, so each picture's own presentation
/// time says which stills show it; a frame the lane does not hand over (one before its time
/// range, a keyframe past it) is decoded on its own afterwards (`ImageGenerator.decodeMissing`).
final class StillSink: SinkStage {
    /// Stills are encoded apart, one image at a time (not an output track's encoder).
    let encoders = 0
    let maker: StillMaker
    private let timeBase: TimeBase
    private let isCancelled: () -> Bool

    init(_ maker: StillMaker, timeBase: TimeBase, isCancelled: @escaping () -> Bool) {
        self.maker = maker
        self.timeBase = timeBase
        self.isCancelled = isCancelled
    }

    // A still sink writes no media track: the lane's own counters are its renditions'.
    var unitsOut: Int { maker.found.count }
    var packetsWritten: Int { 0 }

    func consume(_ frame: TimedFrame) throws(MediaError) {
        guard case .picture(let picture, _, _) = frame else { return }
        try maker.take(picture, at: MediaTime(ts: picture.decodedTimestamp, timeBase: timeBase), isCancelled: isCancelled)
    }

    // The sheet is written once the frames the lane did not hand over are made too.
    func finish() throws(MediaError) {}
}
