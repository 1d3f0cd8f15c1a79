import Dispatch
import Foundation
@testable import Pipeline
import Synchronization
import Testing

/// What each lane saw: the thread it ran on and the FFmpeg line it was handed.
private final class Seen: Sendable {
    let runs = Mutex<[(thread: UInt, line: String?)]>([])
    let recordedOn = Mutex<[UInt]>([])
}

/// A lane whose work only reads the FFmpeg line its thread has kept.
private final class LogReadingWork: LaneWork {
    var statistics = LaneStatistics(track: 0)
    let seen: Seen
    init(seen: Seen) { self.seen = seen }
    func run() throws(MediaError) {
        let line = FFmpegLog.takeLast()
        seen.runs.withLock { $0.append((UInt(pthread_self()), line)) }
    }
}

@Suite("FFmpeg's line per lane")
struct LaneLogLineTests {
    @Test("a line left on a pooled thread by earlier work never becomes a new lane's line")
    func staleLineForgotten() {
        let seen = Seen()
        // Until libdispatch has run 10 lanes on the thread that kept the line (most do; under load
        // fewer), at most 1000 lanes.
        var lanes = 0
        for i in 0..<1000 {
            let matched = zip(seen.runs.withLock { $0.map(\.thread) }, seen.recordedOn.withLock { $0 }).filter { $0 == $1 }.count
            if matched >= 10 { break }
            lanes += 1
            let lane = Lane(name: "log-\(i)", work: LogReadingWork(seen: seen))
            // Earlier work on the same serial queue leaves a line behind on its pooled thread, as
            // a lane of another file would. Both are queued before the queue runs, so that one
            // drain runs them one after the other, mostly on one thread (queued apart, a loaded
            // machine's libdispatch once gave the lane another thread 1000 times in 1000).
            lane.queue.suspend()
            lane.queue.async {
                FFmpegLog.record("[h264] another file's warning \(i)")
                seen.recordedOn.withLock { $0.append(UInt(pthread_self())) }
            }
            let group = DispatchGroup()
            lane.start(in: group) { _ in }
            lane.queue.resume()
            group.wait()
        }
        let runs = seen.runs.withLock { $0 }, recordedOn = seen.recordedOn.withLock { $0 }
        #expect(runs.count == recordedOn.count && runs.count == lanes)
        // Where libdispatch ran the lane on the thread that kept the line (the usual case), the
        // lane must not be handed it. (On another thread the line may come back through the
        // single-conversion fallback, which is this file's own line in a real run.)
        let sameThread = (0..<min(runs.count, recordedOn.count)).filter { runs[$0].thread == recordedOn[$0] }
        #expect(sameThread.count >= 10, "the lane ran on the recording thread only \(sameThread.count) times in \(lanes)")
        let stale = sameThread.compactMap { runs[$0].line }.filter { $0.contains("another file's warning") }
        #expect(stale.isEmpty, "\(stale.prefix(3))")
    }
}
