import Foundation
@testable import Pipeline
import Recipe
import Synchronization
import Testing

/// The slow-motion readers on inputs the byte-built tests did not reach: a 64-bit box size and a
/// named pipe.
@Suite("Slow-motion reader edges")
struct SlowMotionReaderEdgeTests {
    typealias T = SlowMotionSEFTests

    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8((v >> (8 * UInt64($0))) & 0xff) } }

    @Test("an smta box with a 64-bit size (size field 1, then the size) is read from after its 16-byte header")
    func largeSizeSmta() throws {
        let body: [UInt8] = [0, 0, 0, 0] + T.saut([0, 12, 1, 4])
        let wide = T.be32(1) + Array("smta".utf8) + Self.be64(UInt64(16 + body.count)) + body
        let read = try T.readSmta(T.mp4(smta: wide))
        #expect(read == .init(recordingMode: 12, temporalLayerCount: 4, captureRate: FrameRate(frames: 240)))
        #expect(read == (try T.readSmta(T.mp4(smta: T.smta(T.saut([0, 12, 1, 4]))))))
    }

    @Test("a named pipe nobody writes to is no slow-motion data, at once (it used to block in open)")
    func namedPipe() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("slowmo-fifo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("clip.mp4").path
        #expect(mkfifo(path, 0o600) == 0)
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<SlowMotionInfo?, MediaError>?>(nil)
        Thread.detachNewThread {
            let r: Result<SlowMotionInfo?, MediaError>
            do throws(MediaError) { r = .success(try SlowMotionReader.read(path: path, metadata: ["com.android.capture.fps": "240.000000"], isMP4: true)) } catch { r = .failure(error) }
            result.withLock { $0 = r }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 5) == .success
        #expect(finished, "reading the pipe blocked")
        if !finished {
            // Unblock the reader so that the thread ends: a writer that leaves at once.
            let w = open(path, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
            done.wait()
        }
        let info = try result.withLock { $0 }?.get()
        #expect(info == SlowMotionInfo(androidCaptureRate: FrameRate(frames: 240)))
    }
}
