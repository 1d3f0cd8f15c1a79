import Recipe

/// A rectangle of whole pixels in a picture: x, y may be odd or negative (partly outside the
/// frame); width and height are positive.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int32, y: Int32, width: Int32, height: Int32
    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// `640x360+1240+40`, as ffmpeg and X geometry write it.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Where a layer's pictures go in the output frame and how they are made to fit there
/// (AVVideoCompositionLayerInstruction's transform and crop, as a value).
public struct LayerPlacement: Sendable, Hashable {
    /// In output pixels; nil: the whole frame.
    public var rect: PixelRect?
    public var fit: LayerFit
    /// The part of each picture shown, in its displayed (upright, square-pixel) pixels; nil: all.
    public var crop: PixelRect?

    public init(rect: PixelRect? = nil, fit: LayerFit = .fit, crop: PixelRect? = nil) {
        self.rect = rect; self.fit = fit; self.crop = crop
    }

    /// The whole frame, the whole picture fitted inside it: what a composition without layers does.
    public static let whole = LayerPlacement()
    public var isWhole: Bool { self == .whole }
}
