import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A layer's rectangle scaled from render pixels to output pixels by its edges: a rectangle that
/// ends at the render frame's edge ends at the output's, and two that meet still meet.
@Suite("Compositions: layer rectangles at the output's size")
struct LayerRectScalingTests {
    @Test("in a 1280x720 render drawn at 640x360, x 901 width 319 (ending at 1220) becomes x 451 width 159 (ending at 610), not 160 (611)")
    func scaledByEdges() throws {
        let dir = Scratch()
        let main = dir.file("main.mp4"), inset = dir.file("inset.mp4")
        var big = GeneratedVideoFormat(width: 1280, height: 720, frameRate: FrameRate(frames: 30))
        big.codecOptions = ["preset": "ultrafast"]
        try Media.make(main, video: big, frames: 30)
        try CompositionFadeTests.grey(inset, y: 100, frames: 30)
        var layer = SegmentRequest(source: 1)
        layer.list = .video
        layer.layer = 1
        var style = VideoLayerStyle()
        style.rect = RecipeRect(x: .pixels(901), y: .pixels(41), width: .pixels(319), height: .pixels(679))
        var req = ConversionRequest(source: main, output: dir.file("out.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, width: 640, height: 360, quality: 1, codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = [inset]
        req.timeline = [SegmentRequest(source: 0), layer]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(), style])
        let plan = try Planner.plan(req)
        #expect(plan.videoLayers[1].placement.rect == PixelRect(x: 451, y: 21, width: 159, height: 339))
    }
}
