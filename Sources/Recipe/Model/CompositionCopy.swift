/// When a composition's pictures can be copied as they are: its video track only puts segments
/// end to end. A copy cannot scale, retime, fade or draw a picture — anything that does needs
/// the pictures decoded. (Where each cut falls, and whether the files' streams match, is the
/// plan's to check: it needs the files.)
public enum CompositionCopy {
    /// The first thing in `composition` that a copy of its pictures cannot do, at its recipe
    /// position, worded to follow "but …"; nil: nothing.
    public static func obstacle(in composition: Composition) -> (mark: Mark, what: String)? {
        if let layer = composition.layers.first { return (layer.mark, "\(layer.named) is drawn over the pictures") }
        if let size = composition.renderSize { return (size.mark, "'render-size' scales the pictures") }
        if let background = composition.background, background.value != .black { return (background.mark, "'background' paints the frame") }
        if let fade = composition.fadeIn ?? composition.fadeOut { return (fade.mark, "the composition fades its pictures") }
        guard let video = composition.video else { return nil }
        if let style = video.style, !style.isDefault { return (video.mark, "the video track is styled (rect, fit, crop or opacity)") }
        for segment in video.segments {
            let name = "video segment \(segment.number)"
            if let timing = segment.timing, !timing.value.isNormalSpeed { return (timing.mark, "\(name) plays at another speed") }
            if composition.slowMotion(for: segment) == .fromSource {
                return (segment.slowMotion?.mark ?? composition.slowMotion?.mark ?? segment.mark, "\(name) plays the source's slow motion")
            }
            if let at = segment.at { return (at.mark, "\(name) is placed with 'at' (a copy cannot leave a gap)") }
            if let t = segment.transition { return (t.mark, "\(name) begins with a \(t.kind.rawValue)") }
        }
        return nil
    }
}

private extension SegmentTiming {
    /// `speed: 1`: as stored.
    var isNormalSpeed: Bool { if case .speed(let s) = self { return s.isNormal } else { return false } }
}
