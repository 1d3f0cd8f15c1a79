import Recipe

/// The end of a composition's video track drawn only for its stills (no output writes the
/// composition's video, or none draws it at its render size): each picture goes to the stills'
/// taps, which draw and keep only those a still shows. No encoder, no writer input: nothing is
/// encoded or written here. Once every still is made, the drawing stops (`Stop`): the rest of
/// the timeline is not read.
final class DrawnStillSink: SinkStage {
    /// Thrown once every still is made: the lane ends there, and its drawing counts as done.
    static let stop = MediaError(.cancelled, "every still of the composition is drawn")

    private let stills: [ComposedStillTap]
    private let timeBase: TimeBase
    /// Set when every still is made (the lane then ends with `stop`).
    private let drawnAll: Locked<Bool>
    private(set) var unitsOut = 0
    let packetsWritten = 0
    let encoders = 0

    init(stills: [ComposedStillTap], input: PictureFormat, drawnAll: Locked<Bool>) {
        self.stills = stills
        self.drawnAll = drawnAll
        timeBase = TimeBase(input.timeBase)
    }

    func consume(_ timed: TimedFrame) throws(MediaError) {
        guard case .picture(let source, let pts, _) = timed else { return }
        unitsOut += 1
        for tap in stills { try tap.take(source, at: MediaTime(ts: pts, timeBase: timeBase)) }
        if stills.allSatisfy(\.isDone) {
            drawnAll.withLock { $0 = true }
            throw Self.stop
        }
    }

    func finish() throws(MediaError) {
        for tap in stills { try tap.finish() }
    }
}
