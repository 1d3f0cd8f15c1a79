import Foundation
import Pipeline
import Recipe
import Synchronization
import Testing

@Suite("Failures leave nothing behind")
struct FailureTests {
    @Test("cancelling mid-conversion stops it: .cancelled, no output or temp file, no progress reported after it returned")
    func cancel() throws {
        // How fast it stops is a speed, measured in bench/cancel-latency.py, not asserted here.
        let dir = Scratch()
        let src = dir.file("long.mp4")
        var v = GeneratedVideoFormat(width: 640, height: 360, frameRate: FrameRate(frames: 60))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 600, audio: true)
        let plan = try Planner.plan(ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [
            // A slow preset so the conversion is surely still running when cancelled.
            TrackRequest(.type(.video, 0), .video(VideoSettings(codecOptions: ["preset": "veryslow"]))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ]))
        let session = ExportSession(plan: plan)
        struct Seen { var fraction = 0.0; var returned = false; var lateReports = 0 }
        let seen = Mutex(Seen())
        // Cancelled on the first evidence that the lanes run (a progress report past 0), not
        // after a fixed delay.
        #expect(throws: MediaError.cancelled(file: src)) {
            try session.run { p in
                let first = seen.withLock { s -> Bool in
                    if s.returned { s.lateReports += 1 }
                    defer { s.fraction = max(s.fraction, p.fraction) }
                    return s.fraction == 0 && p.fraction > 0
                }
                if first { session.cancel() }
            }
        }
        seen.withLock { $0.returned = true }
        #expect(session.isCancelled)
        let fraction = seen.withLock { $0.fraction }
        #expect(fraction > 0 && fraction < 1, "\(fraction)")
        #expect(dir.contents == ["long.mp4"])
        // The lanes have stopped: run returned only after every lane ended, and reports come
        // from lanes, so none follows (a short wait gives a straggler its chance to show).
        Thread.sleep(forTimeInterval: 0.5)
        #expect(seen.withLock { $0.lateReports } == 0)
    }

    @Test("a truncated file fails with the file, track and media time, and leaves no output")
    func truncated() throws {
        let dir = Scratch()
        let src = dir.file("cut.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 300, audio: true)
        // The index is at the front (faststart); cut the media data off at 60 %.
        let size = try FileManager.default.attributesOfItem(atPath: src)[.size] as! Int
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: src))
        try h.truncate(atOffset: UInt64(size * 6 / 10))
        try h.close()
        let out = dir.file("out.mp4")
        do {
            try runConversion(ConversionRequest(source: src, output: out, tracks: [
                TrackRequest(.type(.video, 0), .video(.fast())),
                TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
            ]))
            Issue.record("a truncated file converted")
        } catch let e as MediaError {
            #expect(e.file == src)
            #expect(e.track != nil)
            #expect(e.time != nil)
            #expect(e.kind == .processing)
            #expect(e.description.hasPrefix("\(src): track "))
            #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(e)")
        }
        #expect(dir.contents == ["cut.mp4"])
    }

    @Test("an existing output is an error unless overwriting was asked for")
    func existingOutput() throws {
        let dir = Scratch()
        let src = dir.file("a.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 10)
        let out = dir.file("b.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        var req = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .video(.fast()))])
        #expect(throws: MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: out)) {
            try runConversion(req)
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me")
        req.overwrite = true
        try runConversion(req)
        #expect(try Media.stamps(out).count == 10)
        #expect(Set(dir.contents) == ["a.mp4", "b.mp4"])
    }

    @Test("a file that is not media: notMedia, exit 66")
    func notMedia() throws {
        let dir = Scratch()
        let junk = dir.file("junk.mp4")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: junk))
        do {
            _ = try Asset.load(junk)
            Issue.record("junk loaded")
        } catch {
            #expect(error.kind == .notMedia)
            #expect(error.exitCode == 66)
            #expect(error.file == junk)
        }
        #expect(throws: MediaError(.inputMissing, "no such file", file: dir.file("none.mp4"), code: .errno(ENOENT))) {
            try Asset.load(dir.file("none.mp4"))
        }
    }
}
