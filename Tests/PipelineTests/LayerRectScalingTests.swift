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
        var style = VideoLayerStyle()
        style.rect = RecipeRect(x: .pixels(901), y: .pixels(41), width: .pixels(319), height: .pixels(679))
        let plan = try LayerPlanTests.insetPlan(Scratch(), style: style)
        #expect(plan.videoLayers[1].placement.rect == PixelRect(x: 451, y: 21, width: 159, height: 339))
    }
}
