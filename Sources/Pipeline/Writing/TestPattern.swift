/// Frame-stamped test pictures: a band of 16 black/white blocks across the top carries the frame
/// number in binary, so a test can tell which source frame any output frame shows, even after
/// scaling and lossy encoding. Below it, texture that moves from frame to frame.
public enum TestPattern {
    public static let bits = 16

    /// Draws frame `index` into `picture`.
    public static func draw(index: Int, into picture: borrowing PictureBuffer) {
        let w = picture.width, h = picture.height
        let band = bandHeight(h)
        // Moving stripes: each 8-row stripe's shade shifts with the frame number.
        var y = band
        while y < h {
            let rows = min(8, h - y)
            let shade = 48 + ((y / 8 * 37 + index * 11) % 160)
            picture.fill(plane: 0, x: 0, y: y, width: w, height: rows, value: shade)
            y += rows
        }
        for bit in 0..<bits {
            let (x0, x1) = blockSpan(bit, width: w)
            let on = (index >> (bits - 1 - bit)) & 1 == 1
            picture.fill(plane: 0, x: x0, y: 0, width: x1 - x0, height: band, value: on ? 235 : 16)
        }
        picture.fill(plane: 1, x: 0, y: 0, width: picture.chromaWidth, height: picture.chromaHeight, value: 128)
        picture.fill(plane: 2, x: 0, y: 0, width: picture.chromaWidth, height: picture.chromaHeight, value: 128)
    }

    /// Reads the frame number from an 8-bit luma picture, or nil when the band is not there.
    public static func read(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, lineSize: Int) -> Int? {
        let band = bandHeight(height)
        var value = 0
        for bit in 0..<bits {
            let (x0, x1) = blockSpan(bit, width: width)
            // Average the middle half of the block: edges blur under scaling and compression.
            let xa = x0 + (x1 - x0) / 4, xb = x1 - (x1 - x0) / 4
            let ya = band / 4, yb = band - band / 4
            var sum = 0, n = 0
            for y in ya..<yb {
                for x in xa..<xb { sum += Int(luma[y * lineSize + x]); n += 1 }
            }
            guard n > 0 else { return nil }
            let mean = sum / n
            if mean > 170 { value = value << 1 | 1 } else if mean < 80 { value <<= 1 } else { return nil }
        }
        return value
    }

    static func bandHeight(_ h: Int) -> Int { max(2, (h / 8) & ~1) }

    static func blockSpan(_ bit: Int, width: Int) -> (Int, Int) {
        (bit * width / bits, (bit + 1) * width / bits)
    }
}
