import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Sources whose timestamps do not start at 0 (MPEG-TS starts at 1.4 s, edit lists, cameras):
/// a trim's range is on the file's own timeline, and the seek to it must land at or before it.
@Suite("Sources that start late")
struct LateStartTests {
    /// Copies the packets of `source` into an MPEG-TS file through the project's own container
    /// writer, 1.4 s later (where FFmpeg's own TS files start); the audio's priming packet (before
    /// 0) is left out, so every stream starts at 1.4 s. A transport stream seeks by its clock
    /// references, which run ahead of the pictures.
    static func remuxToTransportStream(_ source: String, _ output: String) throws {
        let input = try InputContainer(path: source)
        let out = try OutputContainer(path: output, formatName: "mpegts")
        for i in 0..<input.streamCount {
            _ = try out.addStream(copying: input.stream(i))
        }
        try out.open(options: [])
        let packet = try Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            guard packet.pts >= 0 else { continue }
            let tb = input.stream(i).timeBase
            let shift = Int64(tb.den) * 14 / (10 * Int64(tb.num))
            packet.pts += shift
            packet.dts += shift
            packet.rescale(from: input.stream(i).timeBase, to: TimeBase(try #require(out.stream(i)).pointee.time_base))
            try out.write(packet)
        }
        try out.finish()
    }

    /// 100 stamped frames at 25 fps with one sync sample (x264's default GOP), and audio with a
    /// burst at frames 30 and 90.
    static func makeSource(_ dir: Scratch, gop: Int? = nil) throws -> String {
        let mp4 = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 25))
        v.codecOptions = ["preset": "ultrafast"]
        v.gop = gop
        try Media.make(mp4, video: v, frames: 100, audio: true)
        return mp4
    }

    @Test("a trim of an MPEG-TS that starts at 1.4 s shows the frames of the range, in sync",
          arguments: [nil, 25] as [Int?])
    func transportStream(gop: Int?) throws {
        let dir = Scratch()
        let ts = dir.file("src.ts")
        try Self.remuxToTransportStream(try Self.makeSource(dir, gop: gop), ts)
        let asset = try Asset.load(ts)
        #expect(abs(asset.startTime.seconds - 1.4) < 0.001)

        let out = dir.file("out.mp4")
        var request = ConversionRequest(source: ts, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast())),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        request.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 2, timescale: 1))
        let plan = try Planner.plan(request)
        try ExportSession(plan: plan).run()

        // Frames 25…74 of the source, each at its own time less 1 s.
        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == (25..<75).map { Optional($0) })
        for (k, s) in stamps.enumerated() {
            #expect(abs(s.pts.seconds - Double(k) * 0.04) < 0.0005, "frame \(k) at \(s.pts.seconds)")
        }
        // The burst of frame 30 is 0.2 s in, where that frame is shown.
        let onsets = try Media.burstOnsets(out)
        #expect(onsets.count == 1)
        if let first = onsets.first { #expect(abs(first - 0.2) < 0.003, "burst at \(first)") }
    }

    @Test("MKV and MP4 whose tracks start at 1.4 s: a trim counts from the file's start and shows whole frames",
          arguments: ["mkv", "mp4", "mov"])
    func lateContainers(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("src.\(ext)")
        let late = MediaTime(value: 1400, timescale: 1000)
        try TrackStartTests.make(src, videoStart: late, audioStart: late)
        let asset = try Asset.load(src)
        // The audio encoder's priming comes 1024 samples before 1.4 s where nothing hides it.
        #expect(asset.startTime >= MediaTime(value: 1378, timescale: 1000) && asset.startTime <= late, "\(asset.startTime.seconds)")

        let out = dir.file("out.mp4")
        var request = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast())),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        request.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 2), duration: MediaTime(value: 1, timescale: 1))
        let plan = try Planner.plan(request)
        let frames = (0..<60).map { late + TrackStartTests.rate.frameDuration * Int64($0) }
        let first = nearestFrame(to: asset.startTime + MediaTime(value: 1, timescale: 2), in: frames)
        let end = nearestFrame(to: asset.startTime + MediaTime(value: 3, timescale: 2), in: frames)
        // Matroska keeps times in milliseconds.
        #expect(abs(plan.timeRange.start.seconds - frames[first].seconds) < 0.0005 && abs(plan.timeRange.end.seconds - frames[end].seconds) < 0.0005,
                "\(plan.timeRange)")
        try ExportSession(plan: plan).run()

        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == (first..<end).map { Optional($0) })
        for (k, s) in stamps.enumerated() {
            #expect(abs(s.pts.seconds - Double(k) / 30) < 0.001, "frame \(k) at \(s.pts.seconds)")
        }
        // The burst of frame 15 sounds where frame 15 is shown.
        let onsets = try Media.burstOnsets(out)
        let shown = try #require(stamps.first { $0.stamp == 15 }?.pts.seconds)
        #expect(onsets.count == 1)
        if let o = onsets.first { #expect(abs(o - shown) < 0.002, "burst at \(o), frame 15 at \(shown)") }
    }
}
