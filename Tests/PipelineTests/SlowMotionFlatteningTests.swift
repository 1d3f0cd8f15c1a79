@testable import Pipeline
import Recipe
import Testing

/// Frame choice and flattened times on made-up frame lists, and the layer read from NAL headers.
@Suite("Slow-motion flattening")
struct SlowMotionFlatteningTests {
    static let frame = MediaTime(value: 1, timescale: 30)

    /// Samsung's 4-layer pattern by decode position (0 3 2 3 1 3 2 3), frames 1/30 s apart in
    /// decode order (no reordering).
    static func frames(_ n: Int) -> [SlowMotionFrame] {
        (0..<n).map { (i: Int) -> SlowMotionFrame in SlowMotionFrame(pts: frame * Int64(i), temporalLayer: samsungLayer(i)) }
    }

    static func samsungLayer(_ i: Int) -> Int {
        if i % 8 == 0 { return 0 }
        if i % 4 == 0 { return 1 }
        return i % 2 == 0 ? 2 : 3
    }

    static func info(_ segments: [SlowMotionSegment], rate: Int32 = 240, layers: Int? = 4) -> SlowMotionInfo {
        SlowMotionInfo(smtaCaptureRate: FrameRate(frames: rate), temporalLayerCount: layers, recordingMode: 12, segments: segments)
    }

    @Test("240 fps, ÷8 from 4 s to 8 s (stored time): outside, layer 0 at real time; inside, every frame, 1/30 s apart")
    func wholeSegment() throws {
        let segment = SlowMotionSegment(startMilliseconds: 4000, endMilliseconds: 8000, speedDivisor: 8)
        let f = try SlowMotionFlattening(Self.info([segment]), file: "clip.mp4")
        let frames = Self.frames(360)  // 12 s stored
        let choices = try f.choices(frames)
        var shown: [(source: Int, at: MediaTime)] = []
        for (i, c) in choices.enumerated() { if case .keep(let t) = c { shown.append((i, t)) } }
        // Inside: all 120 stored frames (4 s of them), played at 1/30 s each: 4 s.
        let inside = shown.filter { (120..<240).contains($0.source) }
        #expect(inside.map(\.source) == Array(120..<240))
        #expect(zip(inside, inside.dropFirst()).allSatisfy { $1.at - $0.at == Self.frame })
        #expect(inside.first?.at == MediaTime(value: 1, timescale: 2))  // 4 s stored / 8
        // Well before the segment and after it: only layer 0 (every 8th frame), 1/30 s apart.
        let before = shown.filter { $0.source < 100 }.map(\.source)
        #expect(before == Array(stride(from: 0, to: 100, by: 8)))
        let after = shown.filter { $0.source >= 240 }
        #expect(after.map(\.source) == Array(stride(from: 240, to: 360, by: 8)))
        #expect(zip(after, after.dropFirst()).allSatisfy { $1.at - $0.at == Self.frame })
        // The segment ends at 8 s stored = 0.5 s + 4 s on the flattened timeline.
        #expect(after.first?.at == MediaTime(value: 9, timescale: 2))
        #expect(shown.filter { (100..<120).contains($0.source) }.map(\.source) == [104, 112])
        // Just before the segment, media3's rule keeps the lower layers the segment refers to:
        // layer 1 up to 3 frames before it, layer 2 up to 1 frame before; never the top layer.
        let start = MediaTime(seconds: 4)
        #expect(f.keeps(start - Self.frame * 3, layer: 1))
        #expect(!f.keeps(start - Self.frame * 4, layer: 1))
        #expect(f.keeps(start - Self.frame, layer: 2))
        #expect(!f.keeps(start - Self.frame * 2, layer: 2))
        #expect(!f.keeps(start - Self.frame, layer: 3))
        // Packet by packet, an 8-frame window also decodes what the segment keeps near its edges.
        let window = Self.frame * 8
        #expect(f.decodes(start - Self.frame * 2, layer: 2, reorderWindow: window))
        #expect(!f.decodes(start - Self.frame * 8, layer: 2, reorderWindow: window))
        #expect(f.decodes(MediaTime(seconds: 8) + Self.frame * 7, layer: 3, reorderWindow: window))
        #expect(!f.decodes(MediaTime(seconds: 8) + Self.frame * 8, layer: 3, reorderWindow: window))
        #expect(!f.decodes(MediaTime(seconds: 2), layer: 1, reorderWindow: window))
        // Shown times rise with the source times everywhere.
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.at < $1.at })
    }

    @Test("a ÷2 segment keeps layers 0 and 1; a ÷32 segment at 240 fps keeps every frame (no more layers) and plays at 1/120 s each")
    func layersPerDivisor() throws {
        let f = try SlowMotionFlattening(Self.info([SlowMotionSegment(startMilliseconds: 0, endMilliseconds: 2000, speedDivisor: 2),
                                                    SlowMotionSegment(startMilliseconds: 4000, endMilliseconds: 6000, speedDivisor: 32)]), file: "clip.mp4")
        #expect(f.segments.map(\.maxLayer) == [1, 3])
        let choices = try f.choices(Self.frames(240))
        let firstKept = (0..<60).filter { if case .keep = choices[$0] { return true } else { return false } }
        #expect(firstKept == Array(stride(from: 0, to: 60, by: 4)))
        let slowest = (120..<180).compactMap { i -> MediaTime? in if case .keep(let t) = choices[i] { return t } else { return nil } }
        #expect(slowest.count == 60)
        #expect(zip(slowest, slowest.dropFirst()).allSatisfy { $1 - $0 == MediaTime(value: 4, timescale: 30) })
    }

    @Test("no segments: the whole file at real time, layer 0 only")
    func noSegments() throws {
        let f = try SlowMotionFlattening(Self.info([]), file: "clip.mp4")
        let choices = try f.choices(Self.frames(64))
        let shown = choices.enumerated().compactMap { i, c -> Int? in if case .keep = c { return i } else { return nil } }
        #expect(shown == Array(stride(from: 0, to: 64, by: 8)))
        #expect(f.outputTime(MediaTime(seconds: 8)) == MediaTime(seconds: 1))
        #expect(f.spans == [SlowMotionSpan(sourceStart: .zero, sourceEnd: nil, targetStart: .zero, scale: (1, 8), speedDivisor: 1)])
    }

    @Test("120 fps with 3 layers: layers 0 outside (120/30 = 4 = 2 layers down)")
    func rate120() throws {
        let f = try SlowMotionFlattening(Self.info([SlowMotionSegment(startMilliseconds: 1000, endMilliseconds: 2000, speedDivisor: 4)], rate: 120, layers: 3), file: "clip.mp4")
        #expect(f.normalMaxLayer == 0)
        #expect(f.segments.map(\.maxLayer) == [2])
        #expect(f.outputTime(MediaTime(seconds: 1)) == MediaTime(value: 1, timescale: 4))
        #expect(f.outputTime(MediaTime(seconds: 2)) == MediaTime(value: 5, timescale: 4))
    }

    @Test("data that cannot be flattened is refused, naming the file", arguments: [
        (SlowMotionInfo(temporalLayerCount: 4), "it has no capture rate (no smta box with one, no com.android.capture.fps)"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240)), "it has no SVC temporal layer count (smta box)"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 9), "it says it has 9 SVC temporal layers (at most 8 exist)"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 100), temporalLayerCount: 4), "its capture rate 100 fps is not 30 fps times a power of two"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 180), temporalLayerCount: 4), "its capture rate 180 fps is not 30 fps times a power of two"),
        (SlowMotionInfo(androidCaptureRate: FrameRate(frames: 2997, seconds: 25), temporalLayerCount: 4), "its capture rate 2997/25 fps is not 30 fps times a power of two"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 2), "240 fps needs 4 temporal layers to play at 30 fps; it has 2"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4,
                        segments: [SlowMotionSegment(startMilliseconds: 0, endMilliseconds: 1, speedDivisor: 3)]), "segment 0.000s–0.001s ÷3 has a divisor that is not a power of two"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4,
                        segments: [SlowMotionSegment(startMilliseconds: 0, endMilliseconds: 1, speedDivisor: 0)]), "segment 0.000s–0.001s ÷0 has a divisor that is not a power of two"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4,
                        segments: [SlowMotionSegment(startMilliseconds: 500, endMilliseconds: 900, speedDivisor: 2),
                                   SlowMotionSegment(startMilliseconds: 100, endMilliseconds: 600, speedDivisor: 4)]), "segments 0.100s–0.600s ÷4 and 0.500s–0.900s ÷2 overlap"),
        (SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), temporalLayerCount: 4,
                        segments: [SlowMotionSegment(startMilliseconds: 500, endMilliseconds: 500, speedDivisor: 2)]), "segment 0.500s–0.500s ÷2 does not end after it starts"),
    ])
    func refused(info: SlowMotionInfo, why: String) {
        #expect(throws: MediaError(.unsupported, "cannot play its slow motion as the phone does: \(why)", file: "clip.mp4")) {
            try SlowMotionFlattening(info, file: "clip.mp4")
        }
    }

    @Test("a frame without a temporal layer stops the choice with its time")
    func missingLayer() throws {
        let f = try SlowMotionFlattening(Self.info([]), file: "clip.mp4")
        var frames = Self.frames(4)
        frames[2].temporalLayer = nil
        #expect(throws: MediaError(.unsupported, "a frame carries no SVC temporal layer (no prefix NAL unit): its frames cannot be picked by layer",
                                   file: "clip.mp4", time: Self.frame * 2)) {
            try f.choices(frames)
        }
    }

    @Test("10000 segments over 100000 frames: chosen in well under a second's work per frame (binary search, not a scan)")
    func manySegments() throws {
        let segments = (0..<10_000).map { i in SlowMotionSegment(startMilliseconds: Int64(i) * 400, endMilliseconds: Int64(i) * 400 + 200, speedDivisor: 2) }
        let f = try SlowMotionFlattening(Self.info(segments), file: "clip.mp4")
        let clock = ContinuousClock()
        let started = clock.now
        let choices = try f.choices(Self.frames(100_000))
        #expect(clock.now - started < .seconds(20))
        // Frame 3 (0.1 s, layer 3) is in the first ÷2 segment (layers 0–1 kept): dropped; frame 4 (layer 1) kept.
        #expect(choices[3] == .drop)
        #expect(choices[4] == .keep(MediaTime(value: 1, timescale: 30)))  // 4/30 s, doubled, ÷8
        let last = try #require(choices.lastIndex { if case .keep = $0 { return true } else { return false } })
        if case .keep(let t) = choices[last] { #expect(t == f.outputTime(Self.frame * Int64(last))) }
    }

    @Test("random frames and segments never trap, and shown times rise with source times")
    func randomFrames() throws {
        var random = SeededRandom(seed: 34)
        for _ in 0..<200 {
            var segments: [SlowMotionSegment] = []
            var at: Int64 = Int64.random(in: 0...500, using: &random)
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let length = Int64.random(in: 1...800, using: &random)
                segments.append(SlowMotionSegment(startMilliseconds: at, endMilliseconds: at + length, speedDivisor: 1 << Int.random(in: 0...7, using: &random)))
                at += length + Int64.random(in: 0...500, using: &random)
            }
            let f = try SlowMotionFlattening(Self.info(segments.shuffled(using: &random)), file: "clip.mp4")
            let frames = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                SlowMotionFrame(pts: MediaTime(value: Int64.random(in: -100...8000, using: &random), timescale: 1000), temporalLayer: Int.random(in: -1...9, using: &random))
            }
            let choices = try f.choices(frames)
            let shown = zip(frames, choices).compactMap { frame, c -> (MediaTime, MediaTime)? in if case .keep(let t) = c { return (frame.pts, t) } else { return nil } }
                .sorted { $0.0 < $1.0 }
            #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.0 == $1.0 ? $0.1 == $1.1 : $0.1 < $1.1 })
        }
    }

    // MARK: layers from NAL headers

    static func layer(_ bytes: [UInt8], _ codec: SlowMotionLayer.Codec, _ framing: SlowMotionLayer.Framing) -> Int? {
        bytes.withUnsafeBufferPointer { SlowMotionLayer.temporalLayer(of: $0, codec: codec, framing: framing) }
    }

    @Test("H.264: temporal_id of the SVC prefix NAL unit, length-prefixed or Annex B")
    func h264() {
        let prefix: [UInt8] = [0x6e, 0xc0, 0x80, 0x5f]  // type 14, svc_extension_flag, temporal_id 2
        let slice: [UInt8] = [0x01, 0x9a, 0x00]
        #expect(Self.layer([0, 0, 0, 4] + prefix + [0, 0, 0, 3] + slice, .h264, .lengthPrefixed(4)) == 2)
        #expect(Self.layer([0, 4] + prefix + [0, 3] + slice, .h264, .lengthPrefixed(2)) == 2)
        #expect(Self.layer([0, 0, 0, 1] + prefix + [0, 0, 1] + slice, .h264, .annexB) == 2)
        #expect(Self.layer([0, 0, 0, 3] + slice, .h264, .lengthPrefixed(4)) == nil)  // no prefix
        #expect(Self.layer([0, 0, 0, 4, 0x6e, 0x40, 0x80, 0x5f], .h264, .lengthPrefixed(4)) == nil)  // flag clear
        #expect(Self.layer([0, 0, 0, 9] + prefix, .h264, .lengthPrefixed(4)) == nil)  // cut short
        #expect(Self.layer([0, 0, 0, 2, 0x6e, 0xc0], .h264, .lengthPrefixed(4)) == nil)  // too short for the extension
        #expect(Self.layer([], .h264, .annexB) == nil)
    }

    @Test("NAL lengths of 3 bytes (lengthSizeMinusOne 2, which FFmpeg's decoders read too): layers and non-reference pictures read as with 4")
    func threeByteLengths() {
        // avcC and hvcC saying 3-byte lengths.
        let avcC: [UInt8] = [1, 0x64, 0, 0x1f, 0xfc | 2, 0xe1, 0]
        #expect(SlowMotionLayer.framing(codec: .h264, extradata: avcC) == .lengthPrefixed(3))
        var hvcC = [UInt8](repeating: 0, count: 23)
        hvcC[0] = 1
        hvcC[21] = 0xfc | 2
        #expect(SlowMotionLayer.framing(codec: .hevc, extradata: hvcC) == .lengthPrefixed(3))
        let prefix: [UInt8] = [0x6e, 0xc0, 0x80, 0x5f]  // type 14, svc_extension_flag, temporal_id 2
        let slice: [UInt8] = [0x01, 0x9a, 0x00]  // non-IDR slice, nal_ref_idc 0
        #expect(Self.layer([0, 0, 4] + prefix + [0, 0, 3] + slice, .h264, .lengthPrefixed(3)) == 2)
        let hevcSlice: [UInt8] = [0x02, 0x03, 0xaf]  // type 1, tid+1 = 3
        #expect(Self.layer([0, 0, 3] + hevcSlice, .hevc, .lengthPrefixed(3)) == 2)
        // Samsung's prefix and slice in one unit, an Annex B start code between them.
        let samsung: [UInt8] = [0, 0, 11] + prefix + [0, 0, 0, 1] + slice
        #expect(samsung.withUnsafeBufferPointer { SlowMotionLayer.isNonReferenceH264($0, framing: .lengthPrefixed(3)) })
        let referenced: [UInt8] = [0, 0, 11] + prefix + [0, 0, 0, 1, 0x21, 0x9a, 0x00]  // nal_ref_idc 1
        #expect(!referenced.withUnsafeBufferPointer { SlowMotionLayer.isNonReferenceH264($0, framing: .lengthPrefixed(3)) })
        // Lengths of 0 or 5 bytes are no MP4 framing: nothing is read.
        #expect(Self.layer([0, 0, 0, 0, 4] + prefix, .h264, .lengthPrefixed(5)) == nil)
        #expect(Self.layer(prefix, .h264, .lengthPrefixed(0)) == nil)
    }

    @Test("HEVC: nuh_temporal_id_plus1 − 1 of the first slice, not of a parameter set")
    func hevc() {
        let vps: [UInt8] = [0x40, 0x01, 0x0c]  // type 32, tid+1 = 1
        let slice: [UInt8] = [0x02, 0x03, 0xaf]  // type 1, tid+1 = 3
        #expect(Self.layer([0, 0, 0, 3] + vps + [0, 0, 0, 3] + slice, .hevc, .lengthPrefixed(4)) == 2)
        #expect(Self.layer([0, 0, 0, 3, 0x02, 0x00, 0xaf], .hevc, .lengthPrefixed(4)) == nil)  // tid+1 = 0 is invalid
    }
}
