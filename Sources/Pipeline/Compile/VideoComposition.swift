import Recipe

/// What a recipe asks of a composition's pictures beyond one track fitted in the whole frame
/// (AVVideoComposition): its video tracks drawn bottom to top, each at its place with its
/// opacity, over a background colour, in a render frame of a size.
public struct VideoCompositionRequest: Sendable, Hashable {
    /// Per video track: 0 the composition's `video:`, j its layer j (`SegmentRequest.layer`).
    public var styles: [VideoLayerStyle]
    /// nil: the largest picture of the video track's files, as displayed.
    public var renderSize: RenderSize?
    public var background: RecipeColor
    /// The most of the layers that may show at once (`LayerBound`).
    public var layerLimit = LayerBound.defaultLimit

    public init(styles: [VideoLayerStyle], renderSize: RenderSize? = nil, background: RecipeColor = .black) {
        self.styles = styles; self.renderSize = renderSize; self.background = background
    }
}

/// One video layer of a plan, as the compositor draws it: the composition's video track (two
/// of them when it cross-fades: its segments alternate between them so that two can overlap)
/// or one of its `layers:`.
public struct VideoLayer: Sendable, Hashable {
    /// `video`, `video (cross-fades)`, `layer 1`, for `plan`.
    public let name: String
    /// Where its pictures go, in output pixels (a percentage crop is resolved per picture).
    public let placement: LayerPlacement
    /// A crop as written (pixels or percentages of each picture's displayed size); nil: none.
    public let crop: RecipeRect?
    /// Its opacity over the timeline (with a cross-fade's ramps); nil: 1 throughout.
    public let opacity: Keyframes?
    /// The video track's roll when it cross-fades: 0 the lower, 1 the upper (nil: not a roll).
    /// The upper roll's pictures are whole frames, their bars in the background colour as the
    /// track shows them alone, and the lower roll is drawn so that the two mix linearly under
    /// the track's own opacity (`VideoCompositor`).
    public var roll: Int?

    public init(name: String, placement: LayerPlacement, crop: RecipeRect? = nil, opacity: Keyframes? = nil) {
        self.name = name; self.placement = placement; self.crop = crop; self.opacity = opacity
    }

    /// The placement for a picture displayed `width`×`height`: the crop in its pixels (kept
    /// inside the picture when it is drawn, `LayerGeometry`).
    func placement(forDisplayed width: Int, _ height: Int) -> LayerPlacement {
        guard let crop else { return placement }
        let c = crop.pixels(width: width, height: height)
        var p = placement
        p.crop = PixelRect(x: Int32(clamping: c.x), y: Int32(clamping: c.y), width: Int32(clamping: c.width), height: Int32(clamping: c.height))
        return p
    }
}
