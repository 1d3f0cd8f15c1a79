/// A length in a layer's rectangle: whole pixels, or a percentage of the frame it is measured in
/// (the render frame for `rect`, the displayed picture for `crop`).
public enum RecipeLength: Sendable, Hashable, CustomStringConvertible {
    case pixels(Int)
    case percent(Double)

    /// Whole pixels of `whole`: a percentage rounded to the nearest pixel, halves up.
    public func pixels(of whole: Int) -> Int {
        switch self {
        case .pixels(let p): return p
        case .percent(let q): return Int((q * Double(whole) / 100).rounded(.toNearestOrAwayFromZero))
        }
    }

    public var description: String {
        switch self {
        case .pixels(let p): return "\(p)"
        case .percent(let q): return q == q.rounded() ? "\(Int(q))%" : "\(q)%"
        }
    }
}

/// `{ x: 1240, y: 40, width: 640, height: 360 }` or in percentages (`width: 25%`).
public struct RecipeRect: Sendable, Hashable {
    public let x: RecipeLength, y: RecipeLength, width: RecipeLength, height: RecipeLength
    public let mark: Mark
    public init(x: RecipeLength, y: RecipeLength, width: RecipeLength, height: RecipeLength, mark: Mark = Mark(line: 0, column: 0)) {
        self.x = x; self.y = y; self.width = width; self.height = height; self.mark = mark
    }

    /// In whole pixels of a `width`×`height` frame.
    public func pixels(width w: Int, height h: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        (x.pixels(of: w), y.pixels(of: h), width.pixels(of: w), height.pixels(of: h))
    }
}

/// How a video track of a composition is drawn into the output frame (AVVideoComposition's layer
/// instruction): where, how it fits there, which part of its pictures, how opaque.
public struct VideoLayerStyle: Sendable, Hashable {
    /// Where in the render frame; nil: all of it.
    public var rect: RecipeRect?
    public var fit: LayerFit?
    /// The part of each picture shown, in its displayed (upright) pixels; nil: all of it.
    public var crop: RecipeRect?
    /// 0 (invisible) to 1; ramps over the timeline. nil: 1.
    public var opacity: Keyframes?

    public init(rect: RecipeRect? = nil, fit: LayerFit? = nil, crop: RecipeRect? = nil, opacity: Keyframes? = nil) {
        self.rect = rect; self.fit = fit; self.crop = crop; self.opacity = opacity
    }

    /// Nothing said: the whole picture fitted in the whole frame, opaque.
    public var isDefault: Bool { rect == nil && (fit == nil || fit == .fit) && crop == nil && opacity == nil }
}

/// `render-size: 1920x1080`: the size of the frame the layers are drawn in.
public struct RenderSize: Sendable, Hashable, CustomStringConvertible {
    public let width: Int, height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }
}
