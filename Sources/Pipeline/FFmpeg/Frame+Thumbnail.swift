import CFFmpeg

extension Frame {
    /// The picture's luma as a `columns`×`rows` grid of cell means, in 8-bit levels, row by row:
    /// what a scene-cut measure compares (`SceneCuts`). Each cell's mean is taken over at most
    /// 8×8 evenly spread samples, so the cost does not grow with the picture's size. Integer
    /// arithmetic on the decoded samples alone (no scaler, whose SIMD paths may round
    /// differently from machine to machine): every machine gets the same grid from the same
    /// picture. nil: a picture without a luma component of its own (RGB, palette, hardware),
    /// big-endian samples, or one smaller than the grid.
    func lumaGrid(columns: Int, rows: Int) -> [Int]? {
        guard let d = av_pix_fmt_desc_get(pixelFormat) else { return nil }
        let refused = UInt64(AV_PIX_FMT_FLAG_RGB) | UInt64(AV_PIX_FMT_FLAG_PAL) | UInt64(AV_PIX_FMT_FLAG_HWACCEL)
            | UInt64(AV_PIX_FMT_FLAG_BITSTREAM) | UInt64(AV_PIX_FMT_FLAG_BE)
        let luma = d.pointee.comp.0
        let w = Int(width), h = Int(height)
        guard d.pointee.flags & refused == 0, luma.plane == 0, luma.depth >= 8, luma.depth <= 16,
              w >= columns, h >= rows, let base = plane(0) else { return nil }
        let line = lineSize(0), step = Int(luma.step), offset = Int(luma.offset), shift = Int(luma.shift)
        let wide = luma.depth > 8, down = Int(luma.depth) - 8
        func sample(_ x: Int, _ y: Int) -> Int {
            let p = base + y * line + x * step + offset
            guard wide else { return Int(p.pointee) }
            let v = Int(UInt16(p.pointee) | UInt16(p.advanced(by: 1).pointee) << 8) >> shift
            return v >> down
        }
        var grid: [Int] = []
        grid.reserveCapacity(columns * rows)
        for r in 0..<rows {
            let y0 = r * h / rows, y1 = (r + 1) * h / rows
            let ys = Self.spread(y0, y1)
            for c in 0..<columns {
                let x0 = c * w / columns, x1 = (c + 1) * w / columns
                let xs = Self.spread(x0, x1)
                var sum = 0
                for y in ys { for x in xs { sum += sample(x, y) } }
                grid.append(sum / (xs.count * ys.count))
            }
        }
        return grid
    }

    /// At most 8 evenly spread places in [from, to) (to > from).
    private static func spread(_ from: Int, _ to: Int) -> [Int] {
        let n = min(8, to - from)
        return (0..<n).map { from + ($0 * (to - from) + (to - from) / 2) / n }
    }
}
