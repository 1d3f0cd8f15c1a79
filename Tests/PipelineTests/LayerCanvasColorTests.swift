import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// The canvas layers are drawn on is in the output's colours, whatever picture is drawn first:
/// its background has the code values of the output's range and matrix in every frame.
@Suite("Compositions: the canvas in the output's colours", .serialized)
struct LayerCanvasColorTests {
    static func made(_ path: String, pixelFormat: String, matrix: String? = nil, frames: Int) throws {
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: LayerRenderTests.rate)
        v.codecOptions = ["preset": "ultrafast"]
        v.quality = 1
        v.pixelFormat = pixelFormat
        v.colorMatrix = matrix
        v.colorPrimaries = matrix
        v.colorTransfer = matrix
        let s = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<frames {
            try s.appendPicture(at: LayerRenderTests.rate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 128)
                p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
            }
        }
        try s.finish()
    }

    /// The mean Y', Cb, Cr of the left bar (columns 0 to 31 of a 128x64 frame).
    static func leftBar(_ f: DecodedPlanes) -> [Double] {
        [f.mean(f.y, x: 4, y: 16, width: 16, height: 32, planeWidth: f.width),
         f.mean(f.cb, x: 2, y: 8, width: 8, height: 16, planeWidth: f.chromaWidth),
         f.mean(f.cr, x: 2, y: 8, width: 8, height: 16, planeWidth: f.chromaWidth)]
    }

    @Test("a full-range (yuvj420p) square picture pillarboxed in a limited-range yuv420p output: its bars are limited-range black (16, 128, 128 ±2), not 0")
    func fullRangeSource() throws {
        let dir = Scratch()
        let src = dir.file("full.mp4"), out = dir.file("out.mp4")
        try Self.made(src, pixelFormat: "yuvj420p", frames: 30)
        var req = ConversionRequest(source: src, output: out, tracks: [LayerRenderTests.video()])
        req.timeline = [SegmentRequest(source: 0)]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()], renderSize: RenderSize(width: 128, height: 64))
        let plan = try Planner.plan(req)
        #expect(plan.lanes[0].videoSettings?.pixelFormat == "yuv420p")
        try ExportSession(plan: plan).run()
        let frames = try LayerRenderTests.planes(out)
        #expect(frames.count == 30)
        let wrong = frames.enumerated().map { ($0.offset, Self.leftBar($0.element)) }
            .filter { !zip($0.1, [16.0, 128, 128]).allSatisfy { abs($0 - $1) <= 2 } }.map { "frame \($0.0): \($0.1)" }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a BT.601-tagged picture placed at 0.5 s on a blue background: the bars are BT.601 blue in every frame, before the picture as beside it")
    func backgroundByTheOutputsMatrix() throws {
        let dir = Scratch()
        let src = dir.file("sd.mp4"), out = dir.file("out.mp4")
        try Self.made(src, pixelFormat: "yuv420p", matrix: "smpte170m", frames: 15)
        var req = ConversionRequest(source: src, output: out, tracks: [LayerRenderTests.video()])
        var later = SegmentRequest(source: 0)
        later.at = MediaTime(value: 1, timescale: 2)
        req.timeline = [later]
        let blue = RecipeColor("#0000FF")!
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()], renderSize: RenderSize(width: 128, height: 64), background: blue)
        let plan = try Planner.plan(req)
        #expect(plan.lanes[0].videoSettings?.colorMatrix == "smpte170m")
        try ExportSession(plan: plan).run()
        let frames = try LayerRenderTests.planes(out)
        #expect(frames.count == 30)
        let expected = Frame.components(of: blue, depth: 8, fullRange: false, sd: true).map(Double.init)
        let wrong = frames.enumerated().map { ($0.offset, Self.leftBar($0.element)) }
            .filter { !zip($0.1, expected).allSatisfy { abs($0 - $1) <= 2 } }.map { "frame \($0.0): \($0.1) vs \(expected)" }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a background in a BT.2020 output takes BT.2020's matrix: red is 294/387/960 in 10 bits, not BT.709's")
    func backgroundInBT2020() throws {
        let painter = try LayerPainter(width: 16, height: 16, pixelFormat: AV_PIX_FMT_YUV420P10LE, background: RecipeColor("#FF0000")!,
                                       outputColor: (range: "tv", matrix: "bt2020nc", primaries: "bt2020", transfer: "arib-std-b67"))
        let canvas = try painter.canvas(like: nil)
        #expect(CompositionFadeTests.samples(canvas, plane: 0) == [294] && CompositionFadeTests.samples(canvas, plane: 1) == [387]
                && CompositionFadeTests.samples(canvas, plane: 2) == [960])
    }
}
