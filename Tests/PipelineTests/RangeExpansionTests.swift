import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// Limited range into full at the same size (every JPEG still of a video) goes by table, not
/// through libswscale's generic scaling path — and gives libswscale's bytes exactly.
@Suite("Range expansion by table")
struct RangeExpansionTests {
    /// Every value in every plane, at every column phase: sample (x, y) of plane p is
    /// (x · step + y · 37 + p · 91) mod 256, the steps odd so that each row holds all 256.
    static func allValues(_ w: Int32, _ h: Int32, _ format: AVPixelFormat) throws -> Frame {
        let f = try Frame.video(width: w, height: h, format: format)
        let desc = av_pix_fmt_desc_get(format)!.pointee
        for p in Int32(0)..<3 {
            let pw = -((-Int(w)) >> (p == 0 ? 0 : Int(desc.log2_chroma_w))), ph = -((-Int(h)) >> (p == 0 ? 0 : Int(desc.log2_chroma_h)))
            let plane = f.plane(p)!
            for y in 0..<ph { for x in 0..<pw { plane[y * f.lineSize(p) + x] = UInt8((x * [1, 3, 5][Int(p)] + y * 37 + Int(p) * 91) % 256) } }
        }
        return f
    }

    /// Every plane's samples, the odd sizes' last chroma column and row included.
    static func samples(_ f: Frame) -> [UInt8] {
        let desc = av_pix_fmt_desc_get(f.pixelFormat)!.pointee
        var out: [UInt8] = []
        for p in Int32(0)..<3 {
            let pw = -((-Int(f.width)) >> (p == 0 ? 0 : Int(desc.log2_chroma_w))), ph = -((-Int(f.height)) >> (p == 0 ? 0 : Int(desc.log2_chroma_h)))
            for y in 0..<ph { out += UnsafeBufferPointer(start: f.plane(p)! + y * f.lineSize(p), count: pw) }
        }
        return out
    }

    @Test("yuv420p, yuv422p and yuv444p into their yuvj twins: the table's bytes are libswscale's, even and odd sizes", arguments: [
        (AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P), (AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P), (AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P),
    ])
    func sameAsLibswscale(_ from: AVPixelFormat, _ to: AVPixelFormat) throws {
        for (w, h) in [(Int32(512), Int32(16)), (301, 37), (1920, 1080)] {
            let source = try Self.allValues(w, h, from)
            let table = try Scaler(from: (w, h, from), to: (w, h, to))
            let library = try Scaler(from: (w, h, from), to: (w, h, to), byTable: false)
            #expect(table.expandsByTable && !library.expandsByTable)
            let mine = Self.samples(try table.scale(source)), theirs = Self.samples(try library.scale(source))
            #expect(mine.count == theirs.count)
            let differ = zip(mine, theirs).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(differ.isEmpty, "\(w)x\(h) \(pixelFormatName(from)): \(differ.count) samples differ, first \(differ.prefix(4).map { "#\($0.offset): \($0.element.0) ≠ \($0.element.1)" })")
        }
        // The ends of the ranges: 16 → 0 and 235 → 255 for luma, 16 → 0, 128 → 128, 240 → 255 for chroma; beyond them clipped.
        #expect([0, 16, 235, 255].map { RangeExpansion.luma[$0] } == [0, 0, 255, 255])
        #expect([0, 16, 128, 240, 255].map { RangeExpansion.chroma[$0] } == [0, 0, 128, 255, 255])
    }

    @Test("only a same-size change from limited to full range goes by table: a resize, another format or the same range goes to libswscale")
    func onlySameSizeExpansion() throws {
        #expect(try Scaler(from: (1920, 1080, AV_PIX_FMT_YUV420P), to: (1920, 1080, AV_PIX_FMT_YUVJ420P)).expandsByTable)
        #expect(try !Scaler(from: (1920, 1080, AV_PIX_FMT_YUV420P), to: (1280, 720, AV_PIX_FMT_YUVJ420P)).expandsByTable)
        #expect(try !Scaler(from: (1920, 1080, AV_PIX_FMT_YUV420P), to: (1920, 1080, AV_PIX_FMT_YUVJ422P)).expandsByTable)
        #expect(try !Scaler(from: (1920, 1080, AV_PIX_FMT_YUVJ420P), to: (1920, 1080, AV_PIX_FMT_YUV420P)).expandsByTable)
        #expect(try !Scaler(from: (1920, 1080, AV_PIX_FMT_YUV420P), to: (1920, 1080, AV_PIX_FMT_YUV420P)).expandsByTable)
        #expect(try !Scaler(from: (1920, 1080, AV_PIX_FMT_YUV420P10LE), to: (1920, 1080, AV_PIX_FMT_YUVJ420P)).expandsByTable)
    }
}
