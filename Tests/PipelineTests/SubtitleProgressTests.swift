import Foundation
@testable import Pipeline
import Recipe
import Synchronization
import Testing

/// Progress is measured by the slowest track, but a subtitle track is sparse: its last event
/// may lie far behind the pictures written, and must not hold the progress there.
@Suite("Progress with a subtitle track")
struct SubtitleProgressTests {
    @Test("a subtitle track whose last event was at 1 s does not hold back a conversion whose video is at 50 s of 100")
    func sparseSubtitles() throws {
        let reports = Mutex<[ConversionProgress]>([])
        let tracker = ProgressTracker(
            lanes: [LaneProgress(track: 0, mediaType: .video, outputTime: .zero, frames: 0),
                    LaneProgress(track: 2, mediaType: .subtitle, outputTime: .zero, frames: 0)],
            duration: MediaTime(seconds: 100), handler: { p in reports.withLock { $0.append(p) } })
        tracker.update(lane: 1, outputTime: MediaTime(seconds: 1), frames: 1)
        Thread.sleep(forTimeInterval: 0.3)  // reports come at most every 250 ms
        tracker.update(lane: 0, outputTime: MediaTime(seconds: 50), frames: 500)
        tracker.finish()
        let seen = reports.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen.dropFirst().first?.fraction == 0.5)
        #expect(seen.dropFirst().first?.outputTime == MediaTime(seconds: 50))
    }

    @Test("subtitles alone are measured by themselves")
    func onlySubtitles() throws {
        let reports = Mutex<[ConversionProgress]>([])
        let tracker = ProgressTracker(lanes: [LaneProgress(track: 0, mediaType: .subtitle, outputTime: .zero, frames: 0)],
                                      duration: MediaTime(seconds: 10), handler: { p in reports.withLock { $0.append(p) } })
        tracker.update(lane: 0, outputTime: MediaTime(seconds: 4), frames: 1)
        tracker.finish()
        #expect(reports.withLock { $0.first?.fraction } == 0.4)
    }
}
