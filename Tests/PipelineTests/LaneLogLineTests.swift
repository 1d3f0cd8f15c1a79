import Dispatch
import Foundation
@testable import Pipeline
import Synchronization
import Testing

private final class Seen: Sendable { let lines = Mutex<[String?]>([]) }

/// A lane whose work only reads the FFmpeg line its thread has kept.
private final class LogReadingWork: LaneWork {
    var statistics = LaneStatistics(track: 0)
    let seen: Seen
    init(seen: Seen) { self.seen = seen }
    func run() throws(MediaError) { let line = FFmpegLog.takeLast(); seen.lines.withLock { $0.append(line) } }
}

@Suite("FFmpeg's line per lane")
struct LaneLogLineTests {
    @Test("a line left on a pooled thread by earlier work never becomes a new lane's line")
    func staleLineForgotten() {
        let seen = Seen()
        for i in 0..<50 {
            let lane = Lane(name: "log-\(i)", work: LogReadingWork(seen: seen))
            // Earlier work on the same serial queue (libdispatch drains it on one pooled thread)
            // leaves a line behind, as a lane of another file would.
            lane.queue.async { FFmpegLog.record("[h264] another file's warning \(i)") }
            let group = DispatchGroup()
            lane.start(in: group) { _ in }
            group.wait()
        }
        let lines = seen.lines.withLock { $0 }
        #expect(lines.count == 50)
        // Other tests converting side by side may leave process-wide lines of their own; what must
        // never come back is the line the earlier work left on this lane's thread.
        let stale = lines.compactMap { $0 }.filter { $0.contains("another file's warning") }
        #expect(stale.isEmpty, "\(stale.prefix(3))")
    }
}
