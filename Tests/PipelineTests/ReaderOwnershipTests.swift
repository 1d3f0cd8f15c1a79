import CFFmpeg
import Dispatch
import Foundation
@testable import Pipeline
import Recipe
import XCTest

/// One reader, one consumer pulling two outputs of one stream: it must never wait on its own full
/// buffer (it is the one that would empty it); two consumers wait for each other, bounded.
final class ReaderOwnershipTests: XCTestCase {
    private static let rate = FrameRate(frames: 30, seconds: 1)

    /// 10 s at 30 fps, a sync sample every second.
    private func makeSource(_ scratch: Scratch) throws -> String {
        let src = scratch.file("src.mp4")
        var format = GeneratedVideoFormat(width: 160, height: 96, frameRate: Self.rate)
        format.gop = 30
        try Media.make(src, video: format, frames: 300)
        return src
    }

    /// Pulls output 0 up to 3 s, then output 1 to the end, on another thread; nil when it did not
    /// finish within the timeout (then the reader is stopped so the thread ends).
    private func pullBoth(_ reader: AssetReader, tb: TimeBase) -> (first: [MediaTime], second: [(MediaTime, Bool)])? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        DispatchQueue.global().async {
            defer { done.signal() }
            do {
                while let p = try reader.next(0) {
                    let t = MediaTime(ts: p.pts, timeBase: tb)
                    box.first.append(t)
                    if t >= MediaTime(seconds: 3) { break }
                }
                reader.detach(0)
                while let p = try reader.next(1) { box.second.append((MediaTime(ts: p.pts, timeBase: tb), p.isKeyframe)) }
            } catch {
                box.error = error
            }
        }
        if done.wait(timeout: .now() + 30) == .timedOut {
            reader.stop()
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        XCTAssertNil(box.error)
        return (box.first, box.second)
    }

    func testOneConsumerNeverWaitsOnItsOwnBuffer() throws {
        let scratch = Scratch()
        let src = try makeSource(scratch)
        let asset = try Asset.load(src)
        let video = try XCTUnwrap(asset.track(.video, ordinal: 0)).index
        // A small capacity makes a consumer that waited on its own buffer block at once.
        let reader = try AssetReader(asset: asset, streams: [video, video], consumers: [0, 0], capacity: 4)
        let tb = reader.stream(forOutput: 0).timeBase
        let pulled = try XCTUnwrap(pullBoth(reader, tb: tb), "the consumer waited on its own full buffer (deadlock)")
        let last = try XCTUnwrap(pulled.first.last)
        XCTAssertTrue(last >= MediaTime(seconds: 3) && last < MediaTime(seconds: 4), "\(last)")
        // Output 1 got every packet of the file, once, in order, from the first sync sample.
        XCTAssertEqual(pulled.second.first?.1, true)
        XCTAssertEqual(pulled.second.map(\.0), (0..<300).map { Self.rate.frameDuration * Int64($0) })
    }

    /// Two consumers still wait for each other: a consumer that runs ahead stops at the other's
    /// full buffer (memory stays flat), and the other's pulls let it go on.
    func testSeparateConsumersStayBounded() throws {
        let scratch = Scratch()
        let src = try makeSource(scratch)
        let asset = try Asset.load(src)
        let video = try XCTUnwrap(asset.track(.video, ordinal: 0)).index
        let reader = try AssetReader(asset: asset, streams: [video, video], capacity: 8)
        let counts = ResultBox()
        let group = DispatchGroup()
        for o in 0..<2 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                var n = 0
                while true {
                    guard (try? reader.next(o)) != nil else { break }
                    n += 1
                }
                counts.lock.withLock { counts.counts[o] = n }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(counts.counts, [0: 300, 1: 300])
        XCTAssertLessThanOrEqual(reader.mostBuffered(0), 8 + 1)
        XCTAssertLessThanOrEqual(reader.mostBuffered(1), 8 + 1)
    }
}

// SAFETY: written by one worker thread before it signals, read after the wait; `counts` under `lock`.
private final class ResultBox: @unchecked Sendable {
    var first: [MediaTime] = []
    var second: [(MediaTime, Bool)] = []
    var error: Error?
    let lock = NSLock()
    var counts: [Int: Int] = [:]
}
