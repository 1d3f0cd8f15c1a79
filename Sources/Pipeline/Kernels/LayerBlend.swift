/// The painter's sample kernels: `below + (layer − below)·opacity` in fixed point, opacity as
/// a weight in 1/2^24 (finer than any 16-bit difference can show; row blends of up to 12 bits
/// use it in 1/2^15), rounded halves up. The result
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
        if ceiling < 1 << 12 {
            // Up to 12 bits: 32-bit arithmetic, which vectorizes, with the weight in 1/2^15
            // (off by at most 4095/2^16 of a code value before rounding).
            let w = Int32((weight + (1 << (bits - 16))) >> (bits - 15))
            for i in 0..<count {
                let below = Int32(truncatingIfNeeded: d[i])
                let v = below &+ ((Int32(truncatingIfNeeded: s[i]) &- below) &* w &+ (1 << 14)) >> 15
                d[i] = T(truncatingIfNeeded: min(v, Int32(ceiling)))
            }
            return
        }
        let half = 1 << (bits - 1)
        for i in 0..<count {
            let below = Int(d[i])
            d[i] = T(truncatingIfNeeded: min(below + (((Int(s[i]) &- below) &* weight &+ half) >> bits), ceiling))
        }
    }

    /// One row of subsampled chroma (`canvas`, sample `cx` for cx in `columns`) under a layer
    /// whose chroma is full resolution: each canvas sample covers a footprint of 2^shiftX pixels
    /// across by one or two luma rows (`layerRows`: the layer plane's rows there, the second nil
    /// when only one is covered or the chroma is not subsampled down); the layer covers n of the
    /// footprint's F = 2^(shiftX+shiftY) pixels (those in `visible`, luma columns), and the sample
    /// becomes `below + (mean − below)·opacity·n/F`, that is `below + (Σ layer − n·below)·opacity/F`,
    /// the mean being of the layer's own chroma there. `originX`: the layer's left in luma columns.
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
        @inline(__always) func mix(_ cx: Int, _ sum: Int, _ n: Int) {
            let below = Int(d[cx])
            d[cx] = T(truncatingIfNeeded: max(0, min(below + (((sum &- n &* below) &* weight &+ half) >> k), ceiling)))
        }
        // Samples whose footprint is all inside `visible` (all but at most the first and last).
        let inner = ((visible.lowerBound + (1 << shift.x) - 1) >> shift.x)..<(visible.upperBound >> shift.x)
        @inline(__always) func edge(_ cx: Int) {
            let x0 = max(cx << shift.x, visible.lowerBound) - originX, x1 = min((cx + 1) << shift.x, visible.upperBound) - originX
            var sum = 0
            for x in x0..<x1 { sum &+= Int(r0[x]) &+ (r1.map { Int($0[x]) } ?? 0) }
            mix(cx, sum, (x1 - x0) * (r1 == nil ? 1 : 2))
        }
        if !inner.contains(columns.lowerBound) { edge(columns.lowerBound) }
        if columns.upperBound != columns.lowerBound && !inner.contains(columns.upperBound) { edge(columns.upperBound) }
        guard !inner.isEmpty else { return }
        let n = (1 << shift.x) * (r1 == nil ? 1 : 2)
        switch (shift.x, r1) {
        case (1, let r1?):
            for cx in inner { let x = 2 * cx - originX; mix(cx, Int(r0[x]) &+ Int(r0[x + 1]) &+ Int(r1[x]) &+ Int(r1[x + 1]), n) }
        case (1, nil):
            for cx in inner { let x = 2 * cx - originX; mix(cx, Int(r0[x]) &+ Int(r0[x + 1]), n) }
        case (_, let r1?):
            for cx in inner { let x = cx - originX; mix(cx, Int(r0[x]) &+ Int(r1[x]), n) }
        case (_, nil):
            for cx in inner { mix(cx, Int(r0[cx - originX]), n) }
        }
    }
}
