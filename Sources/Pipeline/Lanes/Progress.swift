import Dispatch
import Recipe
import Synchronization

/// How far one output track has got.
public struct LaneProgress: Sendable, Hashable {
    public var track: Int
    public var mediaType: MediaType
    /// Output media time written so far.
    public var outputTime: MediaTime
    /// Frames (video) or encoded packets (audio) written.
    public var frames: Int
}

/// A conversion's progress: by output media time over the session's duration.
public struct ConversionProgress: Sendable {
    /// 0…1, by the slowest track (subtitle tracks, being sparse, only when there is nothing else).
    public var fraction: Double
    public var outputTime: MediaTime
    public var duration: MediaTime
    /// Wall-clock seconds since the lanes started.
    public var elapsed: Double
    /// Video frames written per wall-clock second.
    public var framesPerSecond: Double
    /// Output media seconds per wall-clock second (× real time).
    public var speed: Double
    public var lanes: [LaneProgress]
    /// The last report of a conversion that finished.
    public var isFinal: Bool
    /// Which pass runs, of how many: the statistics pass (1 of 2) of two-pass rate control, then the encode.
    public var pass = 1
    public var passes = 1
}

/// Collects lane positions and reports at most every `interval` on one serial reporting queue.
final class ProgressTracker: Sendable {
    private struct State {
        var lanes: [LaneProgress]
        var lastReport: UInt64 = 0
    }
    private let state: Locked<State>
    private let duration: MediaTime
    private let started = DispatchTime.now().uptimeNanoseconds
    private let interval: UInt64 = 250_000_000
    private let queue = DispatchQueue(label: "reencode.progress")
    private let handler: (@Sendable (ConversionProgress) -> Void)?

    init(lanes: [LaneProgress], duration: MediaTime, handler: (@Sendable (ConversionProgress) -> Void)?) {
        state = Locked(State(lanes: lanes))
        self.duration = duration
        self.handler = handler
    }

    func update(lane: Int, outputTime: MediaTime, frames: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let report: ConversionProgress? = state.withLock { s in
            s.lanes[lane].outputTime = MediaTime.max(s.lanes[lane].outputTime, outputTime)
            s.lanes[lane].frames = frames
            guard handler != nil, now - s.lastReport >= interval else { return nil }
            s.lastReport = now
            return snapshot(s.lanes, now: now, final: false)
        }
        if let report, let handler { queue.async { handler(report) } }
    }

    func finish() {
        guard let handler else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let report = state.withLock { snapshot($0.lanes, now: now, final: true) }
        queue.sync { handler(report) }
    }

    private func snapshot(_ lanes: [LaneProgress], now: UInt64, final: Bool) -> ConversionProgress {
        let elapsed = Double(now - started) / 1e9
        // Subtitles are sparse: a track whose last event was long ago says nothing of how far
        // the conversion has got, so it holds no one back (unless it is all there is).
        let timed = lanes.filter { $0.mediaType != .subtitle }
        let slowest = (timed.isEmpty ? lanes : timed).map(\.outputTime).min() ?? .zero
        let d = duration.seconds
        var fraction = d > 0 && d.isFinite ? max(0, slowest.seconds) / d : 0
        fraction = final ? 1 : min(max(fraction, 0), 0.999)
        let frames = lanes.filter { $0.mediaType == .video }.map(\.frames).max() ?? 0
        return ConversionProgress(fraction: fraction, outputTime: slowest, duration: duration, elapsed: elapsed,
                                  framesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0,
                                  speed: elapsed > 0 ? max(0, slowest.seconds) / elapsed : 0,
                                  lanes: lanes, isFinal: final)
    }
}
