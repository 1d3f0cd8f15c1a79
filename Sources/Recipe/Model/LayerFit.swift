/// How a layer's picture is made to fit its rectangle: the displayed picture (upright, square
/// pixels, after any crop) is scaled, aspect kept unless `stretch`, and centred.
public enum LayerFit: String, Sendable, Hashable, CaseIterable {
    /// All of the picture inside the rectangle; the rest of the rectangle shows what is below.
    case fit
    /// The rectangle covered; the picture's overflow is cut off, as much on each side.
    case fill
    /// The picture scaled to the rectangle exactly, aspect not kept.
    case stretch
}
