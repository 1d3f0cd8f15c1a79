import Recipe

/// Where a layer's picture is drawn and which part of it, in whole pixels: the arithmetic of a
/// `LayerPlacement` for one picture size, orientation and pixel aspect (no pixels touched).
///
/// Three coordinate spaces: *stored* (the decoded picture's pixels), *displayed* (pixel aspect
/// applied to the stored width, then turned upright; the crop is given here) and *output* (the
/// render frame). Sizes are rounded to the nearest whole pixel, halves up, and never below 1.
struct LayerGeometry: Equatable {
    /// The part of the displayed picture that is drawn (the crop, less what `fill` cuts off).
    let shown: PixelRect
    /// Where it goes in the output frame (may be odd, or partly outside the frame).
    let destination: PixelRect
    /// `shown` in stored pixels, before the turn: what is handed to the scaler.
    let stored: PixelRect

    init(picture: (width: Int32, height: Int32), rotation: Int, pixelAspect: Ratio,
         placement: LayerPlacement, frame: (width: Int32, height: Int32)) throws(MediaError) {
        let turns = PictureFitter.quarterTurns(rotation)
        let par = pixelAspect.num > 0 && pixelAspect.den > 0 ? pixelAspect : .square
        let upright = Self.displayedSize(picture: picture, quarterTurns: turns, pixelAspect: par)
        let rect = placement.rect ?? PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)
        guard rect.width > 0, rect.height > 0 else {
            throw MediaError(.invalidSettings, "a layer's rectangle \(rect) is empty")
        }
        let crop = try Self.clamped(placement.crop, to: upright)
        (shown, destination) = Self.fitted(crop, into: rect, fit: placement.fit)
        stored = Self.storedRegion(of: shown, picture: picture, quarterTurns: turns, pixelAspect: par)
    }

    /// The picture as displayed: the pixel aspect stretches the stored width (as ffmpeg's
    /// `scale=iw*sar:ih` does), then a quarter turn swaps the axes.
    static func displayedSize(picture: (width: Int32, height: Int32), quarterTurns: Int,
                              pixelAspect par: Ratio) -> (width: Int32, height: Int32) {
        let w = Int32(clamping: max(roundedDivision(Int64(picture.width) * Int64(par.num), Int64(par.den)), 1))
        let h = max(picture.height, 1)
        return quarterTurns % 2 == 1 ? (h, w) : (w, h)
    }

    /// The crop inside the displayed picture (all of it when nil); nothing left is an error.
    static func clamped(_ crop: PixelRect?, to size: (width: Int32, height: Int32)) throws(MediaError) -> PixelRect {
        guard let c = crop else { return PixelRect(x: 0, y: 0, width: size.width, height: size.height) }
        let x0 = max(Int64(c.x), 0), y0 = max(Int64(c.y), 0)
        let x1 = min(Int64(c.x) + Int64(c.width), Int64(size.width)), y1 = min(Int64(c.y) + Int64(c.height), Int64(size.height))
        guard c.width > 0, c.height > 0, x1 > x0, y1 > y0 else {
            throw MediaError(.invalidSettings, "the crop \(c) leaves nothing of the \(size.width)x\(size.height) picture")
        }
        return PixelRect(x: Int32(x0), y: Int32(y0), width: Int32(x1 - x0), height: Int32(y1 - y0))
    }

    /// The part of `crop` shown and where it goes in `rect`.
    /// fit: the largest size of the crop's aspect inside the rectangle, centred (an odd leftover
    /// puts the extra pixel right or below). fill: the whole rectangle, the crop's overflow cut
    /// off its two sides equally (an odd pixel more off the right or bottom). stretch: the crop
    /// into the whole rectangle.
    static func fitted(_ crop: PixelRect, into rect: PixelRect, fit: LayerFit) -> (shown: PixelRect, destination: PixelRect) {
        let (cw, ch) = (Int64(crop.width), Int64(crop.height))
        let (rw, rh) = (Int64(rect.width), Int64(rect.height))
        let wider = cw * rh > ch * rw // the crop is wider than the rectangle
        switch fit {
        case .stretch:
            return (crop, rect)
        case .fit:
            let (w, h) = wider ? (rw, min(max(roundedDivision(rw * ch, cw), 1), rh))
                               : (min(max(roundedDivision(rh * cw, ch), 1), rw), rh)
            let d = PixelRect(x: rect.x + Int32((rw - w) / 2), y: rect.y + Int32((rh - h) / 2),
                              width: Int32(w), height: Int32(h))
            return (crop, d)
        case .fill:
            var s = crop
            if wider {
                let kept = min(max(roundedDivision(rw * ch, rh), 1), cw)
                s.x += Int32((cw - kept) / 2)
                s.width = Int32(kept)
            } else {
                let kept = min(max(roundedDivision(rh * cw, rw), 1), ch)
                s.y += Int32((ch - kept) / 2)
                s.height = Int32(kept)
            }
            return (s, rect)
        }
    }

    /// `shown` (displayed pixels) in the stored picture: turned back, then the pixel aspect
    /// undone on the columns (edges rounded, at least one column).
    static func storedRegion(of shown: PixelRect, picture: (width: Int32, height: Int32),
                             quarterTurns turns: Int, pixelAspect par: Ratio) -> PixelRect {
        let upright = displayedSize(picture: picture, quarterTurns: 0, pixelAspect: par)
        let (p, h) = (upright.width, upright.height) // stored, pixel aspect applied
        let (x, y, w, ht) = (shown.x, shown.y, shown.width, shown.height)
        // Inverse of copyTurned's maps (D(x, y) = S(…)), on the whole rectangle.
        let r: PixelRect = switch turns {
        case 1: PixelRect(x: y, y: h - x - w, width: ht, height: w)
        case 2: PixelRect(x: p - x - w, y: h - y - ht, width: w, height: ht)
        case 3: PixelRect(x: p - y - ht, y: x, width: ht, height: w)
        default: shown
        }
        let sw = Int64(max(picture.width, 1))
        let column = { (c: Int32) in min(max(roundedDivision(Int64(c) * Int64(par.den), Int64(par.num)), 0), sw) }
        let x0 = min(column(r.x), sw - 1)
        let x1 = max(column(r.x + r.width), x0 + 1)
        return PixelRect(x: Int32(x0), y: r.y, width: Int32(x1 - x0), height: r.height)
    }

    /// n/d to the nearest whole number, halves up (n ≥ 0, d > 0).
    static func roundedDivision(_ n: Int64, _ d: Int64) -> Int64 { (2 * n + d) / (2 * d) }
}
