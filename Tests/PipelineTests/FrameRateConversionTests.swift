import Foundation
import Pipeline
import Recipe
import Testing

@Suite("Constant frame rate conversion")
struct FrameRateConversionTests {
    @Test("120 fps with droppable frames → 30 fps: output frame k is source frame 4k; a quarter of the packets are decoded")
    func hfr120to30() throws {
        let dir = Scratch()
        let src = dir.file("hfr120.mp4")
        try Media.make(src, video: .droppableH264(width: 1280, height: 720, frameRate: FrameRate(frames: 120)), frames: 480, audio: true)
        let out = dir.file("out.mp4")
        var req = ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(rate: FrameRate(frames: 30)))),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ])
        req.selectiveDecode = true
        let result = try runConversion(req)
        let stamps = try Media.stamps(out)
        #expect(stamps.count == 120)
        for (k, s) in stamps.enumerated() {
            #expect(s.stamp == 4 * k, "output frame \(k)")
            #expect(s.pts == MediaTime(value: Int64(k), timescale: 30), "pts of output frame \(k)")
        }
        let video = result.lanes[0]
        #expect(video.packetsRead == 480)
        // Decoded: the 120 shown pictures, plus the last picture of each 120-frame GOP, which
        // x264 (closed GOP) makes a P frame: referenced, so decoded, though not shown.
        #expect(video.packetsDecoded == 124, "decoded \(video.packetsDecoded) of \(video.packetsRead)")
        #expect(video.packetsSkipped == 356)
        if let types = try FFprobe.pictureTypes(src) {
            // Cross-check: exactly the referenced (non-B) pictures and the shown ones reach the decoder.
            let needed = types.indices.filter { types[$0] != "B" || $0 % 4 == 0 }
            #expect(needed.count == video.packetsDecoded)
        }
    }
}
