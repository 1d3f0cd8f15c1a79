import CFFmpeg
@testable import Pipeline
import Testing

/// A fade over a picture with an alpha plane (yuva420p: VP9 with transparency) fades its colour
/// and keeps its alpha: the faded picture's memory comes from a pool, so an alpha plane left
/// unwritten would show whatever an earlier picture left there.
@Suite("Fade: alpha plane")
struct FadeAlphaTests {
    @Test("a faded yuva420p picture keeps the source's alpha, not what its pooled buffer held")
    func fadeKeepsAlpha() throws {
        let (w, h): (Int32, Int32) = (64, 32)
        let pools = PicturePools(capacity: 1)
        do {
            // An earlier picture from the same pool, its alpha left at 7, then dropped.
            let old = try pools.picture(width: w, height: h, format: AV_PIX_FMT_YUVA420P)
            for y in 0..<Int(h) { (old.plane(3)! + y * old.lineSize(3)).update(repeating: 7, count: Int(w)) }
        }
        let source = try CompositionFadeTests.picture(AV_PIX_FMT_YUVA420P, width: w, height: h, values: [200, 128, 128])
        for y in 0..<Int(h) { (source.plane(3)! + y * source.lineSize(3)).update(repeating: 255, count: Int(w)) }
        let faded = try source.faded(0.5, from: pools)
        // Limited range: Y' halfway from 200 to black's 16.
        #expect(faded.plane(0)![0] == 108)
        var alpha: Set<UInt8> = []
        for y in 0..<Int(h) { alpha.formUnion(UnsafeBufferPointer(start: faded.plane(3)! + y * faded.lineSize(3), count: Int(w))) }
        #expect(alpha == [255], "alpha of the faded picture")
    }
}
