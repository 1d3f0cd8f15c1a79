
/// Write access to a planar YUV picture being made (8- or 16-bit samples), with fills fast
/// enough for debug builds: whole rows and rectangles, not single pixels.
public struct PictureBuffer: ~Copyable {
    let frame: Frame
    public let width: Int
    public let height: Int
    /// 8 or 10.
    public let bitDepth: Int

    /// Fills a rectangle of plane 0 (luma), 1 or 2 (chroma, in chroma coordinates) with an
    /// 8-bit-scale value; 10-bit pictures get it shifted.
    public func fill(plane: Int, x: Int, y: Int, width w: Int, height h: Int, value: Int) {
        guard let base = frame.plane(Int32(plane)) else { return }
        let line = frame.lineSize(Int32(plane))
        let v = bitDepth > 8 ? value << (bitDepth - 8) : value
        for row in y..<(y + h) {
            if bitDepth > 8 {
                let p = UnsafeMutableRawPointer(base + row * line).assumingMemoryBound(to: UInt16.self) + x
                p.update(repeating: UInt16(v), count: w)
            } else {
                (base + row * line + x).update(repeating: UInt8(v), count: w)
            }
        }
    }

    /// Fills a rectangle of a plane with a sample value at the picture's own bit depth (an exact
    /// 10-bit code value, say).
    public func fill(plane: Int, x: Int, y: Int, width w: Int, height h: Int, sample: Int) {
        let shift = bitDepth > 8 ? bitDepth - 8 : 0
        if shift == 0 { fill(plane: plane, x: x, y: y, width: w, height: h, value: sample); return }
        guard let base = frame.plane(Int32(plane)) else { return }
        let line = frame.lineSize(Int32(plane))
        for row in y..<(y + h) {
            UnsafeMutableRawPointer(base + row * line).assumingMemoryBound(to: UInt16.self)
                .advanced(by: x).update(repeating: UInt16(clamping: sample), count: w)
        }
    }

    /// Copies 8-bit samples into row `y` of a plane (8-bit pictures only), from column 0.
    public func setRow(plane: Int, y: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard bitDepth == 8, let base = frame.plane(Int32(plane)), let src = bytes.baseAddress else { return }
        (base + y * frame.lineSize(Int32(plane))).update(from: src, count: bytes.count)
    }

    /// Chroma plane size for 4:2:0.
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
}
