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
            let st = out.addStream()
            #expect(avcodec_parameters_copy(st.pointee.codecpar, input.stream(i).pointee.codecpar) >= 0)
            st.pointee.codecpar.pointee.codec_tag = 0
            st.pointee.time_base = input.stream(i).pointee.time_base
        }
        try out.open(options: [])
        let packet = Packet()
        while try input.read(into: packet) {
            let i = Int(packet.streamIndex)
            guard packet.pts >= 0 else { continue }
            let tb = input.stream(i).pointee.time_base
            let shift = Int64(tb.den) * 14 / (10 * Int64(tb.num))
            packet.pts += shift
            packet.dts += shift
            packet.rescale(from: input.stream(i).pointee.time_base, to: out.stream(i).pointee.time_base)
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
}
