import Recipe

/// A decoded picture, as 8-bit luma (enough to read frame stamps and compare pictures).
/// A decoded picture's code values, plane by plane, rows packed.
public struct DecodedPlanes: Sendable {
    public let pts: MediaTime
    public let width: Int, height: Int
    public let chromaWidth: Int, chromaHeight: Int
    public let y: [Int], cb: [Int], cr: [Int]

    /// The mean of a plane's values over a rectangle (in that plane's own coordinates).
    public func mean(_ plane: [Int], x: Int, y top: Int, width w: Int, height h: Int, planeWidth: Int) -> Double {
        var sum = 0
        for row in top..<(top + h) { for col in x..<(x + w) { sum += plane[row * planeWidth + col] } }
        return Double(sum) / Double(max(1, w * h))
    }
}

public struct DecodedPicture: Sendable {
    public let pts: MediaTime
    public let width: Int
    public let height: Int
    /// `width × height` bytes, rows packed.
    public let luma: [UInt8]

    /// The frame number a `TestPattern` picture carries.
    public var stamp: Int? {
        luma.withUnsafeBufferPointer { TestPattern.read(luma: $0, width: width, height: height, lineSize: width) }
    }

    /// The frame number a `TestPattern` picture drawn into the rectangle (x, y, w, h) carries (a
    /// picture fitted inside a larger frame).
    public func stamp(x: Int, y: Int, width w: Int, height h: Int) -> Int? {
        guard x >= 0, y >= 0, w > 0, h > 0, x + w <= width, y + h <= height else { return nil }
        return luma.withUnsafeBufferPointer { all in
            TestPattern.read(luma: UnsafeBufferPointer(rebasing: all[(y * width + x)...]), width: w, height: h, lineSize: width)
        }
    }
}

/// Decoded audio, mixed down to mono floats.
public struct DecodedAudio: Sendable {
    public let pts: MediaTime
    public let sampleRate: Int
    public let samples: [Float]
}
