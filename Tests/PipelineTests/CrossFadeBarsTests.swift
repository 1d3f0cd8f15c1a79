import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A cross-fade between files of different shapes: the incoming picture is shown as it would be
/// alone — fitted, its bars in the background colour — so the bars fade with it instead of the
/// outgoing picture staying whole there until the fade ends.
@Suite("Compositions: cross-fades between pictures of different shapes", .serialized)
struct CrossFadeBarsTests {
    @Test("a wide blue picture cross-fades into a square red one (pillarboxed, on black): in the bars, blue·(1 − x) + black·x every frame (±2), never blue to the end")
    func barsFadeWithThePicture() throws {
        let dir = Scratch()
        let blue = dir.file("blue.mp4"), red = dir.file("red.mp4"), out = dir.file("out.mp4")
        let b = Frame.components(of: RecipeColor("#0000FF")!, depth: 8, fullRange: false, sd: false)
        let r = Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false)
        try LayerRenderTests.solid(blue, b, frames: 60, width: 128, height: 64)
        try LayerRenderTests.solid(red, r, frames: 60, width: 64, height: 64)
        var req = ConversionRequest(source: blue, output: out, tracks: [LayerRenderTests.video()])
        req.sources = [red]
        req.timeline = [SegmentRequest(source: 0), LayerRenderTests.crossFaded(SegmentRequest(source: 1))]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle()])
        try ExportSession(plan: try Planner.plan(req)).run()
        let frames = try LayerRenderTests.planes(out)
        #expect(frames.count == 120)
        let black = [16, 128, 128]
        var wrong: [String] = []
        for (k, f) in frames.enumerated() {
            let x = min(1, max(0, Double(k) / 30 - 1.5))
            let expected = zip(b, black).map { Double($0) + (Double($1) - Double($0)) * x }
            // The left bar (the red picture covers columns 32 to 95).
            let got = LayerCanvasColorTests.leftBar(f)
            if zip(got, expected).contains(where: { abs($0 - $1) > 2 }) { wrong.append("frame \(k): \(got), expected \(expected)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a red to blue cross-fade on a video track at opacity 0.5 over black: every frame black + 0.5·(the linear mix of its time) (±2)")
    func underTheTracksOpacity() throws {
        let dir = Scratch()
        let red = dir.file("red.mp4"), blue = dir.file("blue.mp4"), out = dir.file("out.mp4")
        let r = Frame.components(of: RecipeColor("#FF0000")!, depth: 8, fullRange: false, sd: false)
        let b = Frame.components(of: RecipeColor("#0000FF")!, depth: 8, fullRange: false, sd: false)
        try LayerRenderTests.solid(red, r, frames: 60)
        try LayerRenderTests.solid(blue, b, frames: 60)
        var req = ConversionRequest(source: red, output: out, tracks: [LayerRenderTests.video()])
        req.sources = [blue]
        req.timeline = [SegmentRequest(source: 0), LayerRenderTests.crossFaded(SegmentRequest(source: 1))]
        req.videoComposition = VideoCompositionRequest(styles: [VideoLayerStyle(opacity: Keyframes(constant: 0.5))])
        try ExportSession(plan: try Planner.plan(req)).run()
        let frames = try LayerRenderTests.planes(out)
        #expect(frames.count == 120)
        let black = [16, 128, 128]
        var wrong: [String] = []
        for (k, f) in frames.enumerated() {
            let x = min(1, max(0, Double(k) / 30 - 1.5))
            let expected = (0..<3).map { i -> Double in
                let mix = Double(r[i]) + (Double(b[i]) - Double(r[i])) * x
                return Double(black[i]) + 0.5 * (mix - Double(black[i]))
            }
            let got = LayerRenderTests.middle(f)
            if zip(got, expected).contains(where: { abs($0 - $1) > 2 }) { wrong.append("frame \(k): \(got), expected \(expected)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }
}
