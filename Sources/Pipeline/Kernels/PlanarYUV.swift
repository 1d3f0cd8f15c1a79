/// A pixel format the layer painter draws in: Y', Cb, Cr each in a plane of its own, 8 bits in a
/// byte or 9 to 16 bits in two little-endian bytes (low bits), chroma subsampled at most 2:1 each way.
/// (FFmpeg/PlanarYUV+FFmpeg.swift reads it from an FFmpeg pixel format.)
struct PlanarYUV: Equatable {
    let depth: Int
    /// Bytes of one sample: 1 or 2.
    let sampleBytes: Int
    /// Chroma subsampling across and down, as powers of two (0 or 1).
    let shiftX: Int, shiftY: Int

    var ceiling: Int { (1 << depth) - 1 }

    /// Whether a layer at `rect` has an edge inside a chroma sample (an odd column or row where
    /// chroma is shared by two), so that it must be drawn from full-resolution chroma.
    func splitsChroma(_ rect: PixelRect) -> Bool {
        let oddX = shiftX > 0 && (rect.x & 1 != 0 || rect.width & 1 != 0)
        let oddY = shiftY > 0 && (rect.y & 1 != 0 || rect.height & 1 != 0)
        return oddX || oddY
    }
}
