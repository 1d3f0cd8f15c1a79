import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// Stages that make a picture per frame (scaling, fitting, fades, the layer painter's canvas)
/// take its memory from a pool: a buffer comes back when the last reference to its picture is
/// dropped, and the next picture reuses it — no allocation per frame on the hot path.
@Suite("Picture pools")
struct PicturePoolTests {
    static func gradient(_ w: Int32, _ h: Int32, _ format: AVPixelFormat, seed: Int) throws -> Frame {
        let f = try Frame.video(width: w, height: h, format: format)
        let desc = av_pix_fmt_desc_get(format)!.pointee
        for p in 0..<Int32(desc.nb_components) {
            let (pw, ph) = p == 0 ? (Int(w), Int(h)) : (Int(w) >> Int(desc.log2_chroma_w), Int(h) >> Int(desc.log2_chroma_h))
            let row = f.plane(p)!
            for y in 0..<ph { for x in 0..<pw { row[y * f.lineSize(p) + x] = UInt8(truncatingIfNeeded: 16 + (x * 3 + y * 5 + seed * 7 + Int(p) * 40) % 200) } }
        }
        return f
    }

    static func bytes(_ f: Frame) -> [UInt8] {
        let desc = av_pix_fmt_desc_get(f.pixelFormat)!.pointee
        var out: [UInt8] = []
        for p in 0..<Int32(desc.nb_components) {
            let bpp = Int(desc.comp.0.step)
            let (pw, ph) = p == 0 ? (Int(f.width), Int(f.height)) : (Int(f.width) >> Int(desc.log2_chroma_w), Int(f.height) >> Int(desc.log2_chroma_h))
            for y in 0..<ph { out += UnsafeBufferPointer(start: f.plane(p)! + y * f.lineSize(p), count: pw * bpp) }
        }
        return out
    }

    @Test("the layout is av_frame_get_buffer's: line sizes of every plane, for odd and even sizes, 8 and 10 bit, 4:2:0 to 4:4:4", arguments: [
        (1920, 1080, AV_PIX_FMT_YUV420P), (1919, 1081, AV_PIX_FMT_YUV420P), (33, 17, AV_PIX_FMT_YUV420P10LE),
        (1280, 720, AV_PIX_FMT_YUV422P), (101, 7, AV_PIX_FMT_YUV444P10LE), (64, 64, AV_PIX_FMT_NV12),
    ])
    func layout(_ w: Int32, _ h: Int32, _ format: AVPixelFormat) throws {
        let pooled = try PicturePool(width: w, height: h, format: format).picture()
        let own = try Frame.video(width: w, height: h, format: format)
        for p in Int32(0)..<4 {
            #expect(pooled.lineSize(p) == own.lineSize(p), "plane \(p) of \(w)x\(h) \(pixelFormatName(format))")
            #expect((pooled.plane(p) == nil) == (own.plane(p) == nil))
            if let a = pooled.plane(p), let b = own.plane(p) {
                #expect(Int(bitPattern: a) % 32 == 0, "plane \(p) aligned")
                // The same place in its buffer as av_frame_get_buffer puts it.
                #expect(a - pooled.pointer.pointee.buf.0!.pointee.data == b - own.pointer.pointee.buf.0!.pointee.data, "plane \(p) offset")
            }
        }
        #expect(pooled.pointer.pointee.buf.0!.pointee.size == own.pointer.pointee.buf.0!.pointee.size)
    }

    @Test("a scaler's pictures: a dropped picture's buffer is the next one's; a held one is never written again")
    func scalerReuses() throws {
        let scaler = try Scaler(from: (320, 180, AV_PIX_FMT_YUV420P), to: (320, 180, AV_PIX_FMT_YUV420P10LE))
        let a = try Self.gradient(320, 180, AV_PIX_FMT_YUV420P, seed: 1)
        let b = try Self.gradient(320, 180, AV_PIX_FMT_YUV420P, seed: 2)
        var first: Frame? = try scaler.scale(a)
        let firstPlane = first!.plane(0)
        let firstBytes = Self.bytes(first!)
        // Held: the next picture gets other memory, and the held one keeps its pixels.
        let second = try scaler.scale(b)
        #expect(second.plane(0) != firstPlane)
        #expect(Self.bytes(first!) == firstBytes)
        first = nil
        let third = try scaler.scale(b)
        #expect(third.plane(0) == firstPlane, "the dropped picture's buffer is reused")
        // Same pixels as a conversion into memory of its own: 8-bit code values shifted to 10 bits.
        #expect(Self.bytes(third) == Self.bytes(second))
        let y = UnsafeRawPointer(third.plane(0)!).assumingMemoryBound(to: UInt16.self)
        #expect(y[5] == UInt16(b.plane(0)![5]) << 2)
    }

    @Test("a fitter's canvas is reused once dropped; the bars are black again on reused memory")
    func fitterReuses() throws {
        let fitter = try PictureFitter(width: 320, height: 180, pixelFormat: AV_PIX_FMT_YUV420P)
        let narrow = try Self.gradient(120, 180, AV_PIX_FMT_YUV420P, seed: 3)
        var first: Frame? = try fitter.fit(narrow, rotation: 0, pixelAspect: .square)
        let plane = first!.plane(0)
        // Write into the dropped picture's bars as if someone had: the next canvas must repaint them.
        first!.plane(0)![0] = 200
        first = nil
        let second = try fitter.fit(narrow, rotation: 0, pixelAspect: .square)
        #expect(second.plane(0) == plane)
        #expect(second.plane(0)![0] == 16, "bar luma is black (16) on reused memory")
        #expect(second.plane(0)![100] == narrow.plane(0)![0], "the picture starts at x = 100")
    }

    @Test("faded pictures reuse their memory; the picture faded from keeps its pixels")
    func fadeReuses() throws {
        let pools = PicturePools(capacity: 1)
        let src = try Self.gradient(64, 36, AV_PIX_FMT_YUV420P, seed: 4)
        let before = Self.bytes(src)
        var a: Frame? = try src.faded(0.5, from: pools)
        let plane = a!.plane(0)
        let half = Self.bytes(a!)
        a = nil
        let b = try src.faded(0.5, from: pools)
        #expect(b.plane(0) == plane)
        #expect(Self.bytes(b) == half)
        #expect(Self.bytes(src) == before)
        #expect(Self.bytes(try src.faded(0.5)) == half, "the same pixels as a picture of its own")
    }
}

/// The audio side of the same rule: the sinks and the mixer resample through one kept block.
@Suite("Resampling onto a queue")
struct ResampleOntoQueueTests {
    @Test("44.1 kHz 16-bit stereo → 48 kHz float: onto a queue through one kept block, the same samples as frame by frame")
    func sameSamples() throws {
        var l = AVChannelLayout()
        defer { av_channel_layout_uninit(&l) }
        av_channel_layout_default(&l, 2)
        func make() throws -> Resampler {
            try Resampler(inRate: 44100, inFormat: AV_SAMPLE_FMT_S16, inLayout: &l, outRate: 48000, outFormat: AV_SAMPLE_FMT_FLTP, outLayout: "stereo")
        }
        let (byFrame, ontoQueue) = (try make(), try make())
        let a = try AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: 2), b = try AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: 2)
        var block: UnsafeMutablePointer<AVFrame>?
        for k in 0..<20 {
            let input = try StretchedSoundTests.s16(1000 + 37 * (k % 3), from: 1000 * k)
            if let f = try byFrame.convert(input) { try a.write(f) }
            try ontoQueue.convert(input, onto: b)
            // Grown to the largest input (k = 2), then kept.
            if k == 2 { block = ontoQueue.working?.pointer }
            if k > 2 { #expect(ontoQueue.working?.pointer == block, "the same block at frame \(k)") }
        }
        if let f = try byFrame.convert(nil) { try a.write(f) }
        try ontoQueue.convert(nil, onto: b)
        #expect(a.count == b.count)
        #expect(a.count > 21_000)
        var l2 = AVChannelLayout()
        defer { av_channel_layout_uninit(&l2) }
        av_channel_layout_default(&l2, 2)
        let fa = try Frame.audio(samples: a.count, format: AV_SAMPLE_FMT_FLTP, layout: &l2, sampleRate: 48000)
        let fb = try Frame.audio(samples: b.count, format: AV_SAMPLE_FMT_FLTP, layout: &l2, sampleRate: 48000)
        let n = a.count
        _ = try a.read(into: fa, samples: n)
        _ = try b.read(into: fb, samples: n)
        for ch in 0..<2 {
            let pa = UnsafeRawPointer(fa.pointer.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
            let pb = UnsafeRawPointer(fb.pointer.pointee.extended_data[ch]!).assumingMemoryBound(to: Float.self)
            #expect((0..<Int(n)).allSatisfy { pa[$0] == pb[$0] }, "channel \(ch)")
            #expect((0..<Int(n)).map { abs(pa[$0]) }.max()! > 0.4, "a tone, not silence")
        }
    }
}
