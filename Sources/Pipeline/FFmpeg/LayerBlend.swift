/// The painter's sample kernels: `below + (layer − below)·opacity` in fixed point, opacity as
/// a weight in 1/2^24 (finer than any 16-bit difference can show), rounded halves up. The result
/// lies between the two values, so in range; it is still clamped to the depth's ceiling in case a
/// source held stray high bits.
enum LayerBlend {
    static let bits = 24
    static let one = 1 << bits

    /// `opacity` (clamped to 0…1; NaN is 0) as a weight.
    static func weight(_ opacity: Double) -> Int {
        guard opacity > 0 else { return 0 }
        return opacity >= 1 ? one : Int((opacity * Double(one)).rounded())
    }

    /// `count` samples of `layer` over the same number in `canvas`. At full weight a plain copy.
    @inline(__always)
    static func row<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ layer: UnsafeRawPointer,
                                                          onto canvas: UnsafeMutableRawPointer,
                                                          count: Int, weight: Int, ceiling: Int) {
        if weight >= one {
            canvas.copyMemory(from: layer, byteCount: count * MemoryLayout<T>.size)
            return
        }
        let s = layer.assumingMemoryBound(to: T.self), d = canvas.assumingMemoryBound(to: T.self)
        let half = 1 << (bits - 1)
        for i in 0..<count {
            let below = Int(d[i])
            d[i] = T(truncatingIfNeeded: min(below + (((Int(s[i]) &- below) &* weight &+ half) >> bits), ceiling))
        }
    }

    /// One row of subsampled chroma (`canvas`, sample `cx` for cx in `columns`) under a layer
    /// whose chroma is full resolution: each canvas sample covers a footprint of 2^shiftX by the
    /// luma rows `rows` (one or two); the layer covers `n` of its F = 2^(shiftX+shiftY) pixels
    /// (those in `visible`), and the sample becomes `below + (mean − below)·opacity·n/F`, that is
    /// `below + (Σ layer − n·below)·opacity/F`, the mean being of the layer's own chroma there.
    /// `layerRows` are the layer plane's rows for `rows`, `originX` the layer's left in luma columns.
    @inline(__always)
    static func coveredRow<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type, layerRows: (UnsafeRawPointer, UnsafeRawPointer?), originX: Int,
        onto canvas: UnsafeMutableRawPointer, columns: ClosedRange<Int>, visible: Range<Int>,
        shift: (x: Int, y: Int), weight: Int, ceiling: Int
    ) {
        let k = bits + shift.x + shift.y
        let half = 1 << (k - 1)
        let d = canvas.assumingMemoryBound(to: T.self)
        let r0 = layerRows.0.assumingMemoryBound(to: T.self)
        let r1 = layerRows.1.map { $0.assumingMemoryBound(to: T.self) }
        for cx in columns {
            let x0 = max(cx << shift.x, visible.lowerBound), x1 = min((cx + 1) << shift.x, visible.upperBound)
            var sum = 0
            for x in (x0 - originX)..<(x1 - originX) { sum &+= Int(r0[x]) }
            if let r1 { for x in (x0 - originX)..<(x1 - originX) { sum &+= Int(r1[x]) } }
            let n = (x1 - x0) * (r1 == nil ? 1 : 2)
            let below = Int(d[cx])
            d[cx] = T(truncatingIfNeeded: max(0, min(below + (((sum &- n &* below) &* weight &+ half) >> k), ceiling)))
        }
    }
}
