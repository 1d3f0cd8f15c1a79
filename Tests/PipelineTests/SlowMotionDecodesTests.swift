@testable import Pipeline
import Recipe
import Testing

/// `decodes` (packet by packet, no look-ahead) must decode every frame `choices` decodes when the
/// window covers the stream's reordering, whatever the segments' lengths and neighbours.
@Suite("Slow-motion decodes")
struct SlowMotionDecodesTests {
    static let frame = MediaTime(value: 1, timescale: 30)

    static func info(_ segments: [SlowMotionSegment], rate: Int32 = 240, layers: Int = 4) -> SlowMotionInfo {
        SlowMotionInfo(smtaCaptureRate: FrameRate(frames: rate), temporalLayerCount: layers, recordingMode: 12, segments: segments)
    }

    @Test("an edge of a segment two segments away, within the window, is checked: A 1000–1050 ms ÷8 next to B 1050–1200 ms ÷2")
    func adjacentShortSegment() throws {
        let f = try SlowMotionFlattening(Self.info([
            SlowMotionSegment(startMilliseconds: 1000, endMilliseconds: 1050, speedDivisor: 8),
            SlowMotionSegment(startMilliseconds: 1050, endMilliseconds: 1200, speedDivisor: 2),
        ]), file: "clip.mp4")
        // Decode order: 30/30 s (layer 0), 32/30 s (layer 2), 31/30 s (layer 3).
        let frames = [SlowMotionFrame(pts: Self.frame * 30, temporalLayer: 0),
                      SlowMotionFrame(pts: Self.frame * 32, temporalLayer: 2),
                      SlowMotionFrame(pts: Self.frame * 31, temporalLayer: 3)]
        let choices = try f.choices(frames)
        #expect(choices[1] == .decodeOnly)
        #expect(f.decodes(Self.frame * 32, layer: 2, reorderWindow: Self.frame * 8))
        // Beyond every edge's window, a layer no segment near it keeps is still skipped.
        #expect(!f.decodes(Self.frame * 50, layer: 2, reorderWindow: Self.frame * 8))
    }

    @Test("random short, adjacent and 1-frame segments, reordering within the window: whatever choices decodes, decodes decodes")
    func decodesCoversChoices() throws {
        var random = SeededRandom(seed: 1212)
        let window = Self.frame * 8
        var checked = 0
        for _ in 0..<400 {
            // Segments on a 1/240 s grid, so they can be shorter than one stored frame.
            let tick = MediaTime(value: 1, timescale: 240)
            var segments: [SlowMotionSegment] = []
            var at = Int64.random(in: 0...40, using: &random)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let length = [1, 8, Int64.random(in: 1...40, using: &random)].randomElement(using: &random)!
                segments.append(SlowMotionSegment(start: tick * at, end: tick * (at + length), speedDivisor: 1 << Int.random(in: 1...4, using: &random)))
                // Often adjacent, sometimes a gap shorter than the window.
                at += length + (Bool.random(using: &random) ? 0 : Int64.random(in: 1...80, using: &random))
            }
            let f = try SlowMotionFlattening(Self.info(segments), file: "clip.mp4")
            // Stored frames 1/30 s apart, shuffled within blocks of at most 8: a frame decoded
            // before another is never shown more than 7/30 s after it.
            let count = Int.random(in: 1...120, using: &random)
            var order: [Int] = []
            while order.count < count {
                let size = min(Int.random(in: 1...8, using: &random), count - order.count)
                order += (order.count..<order.count + size).shuffled(using: &random)
            }
            let frames = order.map { SlowMotionFrame(pts: Self.frame * Int64($0), temporalLayer: Int.random(in: 0...3, using: &random)) }
            let choices = try f.choices(frames)
            for (frame, choice) in zip(frames, choices) where choice != .drop {
                checked += 1
                #expect(f.decodes(frame.pts, layer: frame.temporalLayer!, reorderWindow: window),
                        "\(frame) is \(choice) but decodes says no; segments \(segments)")
            }
        }
        #expect(checked > 1000)
    }
}
