import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A scaled segment that starts in the middle of a sound is led in with that sound: its reader
/// starts early enough to hand the stretcher the audio before the segment, so the stretched sound
/// starts at its full level instead of fading in from the silence a kernel would otherwise be led
/// in with.
@Suite("Stretched sound led in with the audio before its segment", .serialized)
struct StretchLeadInTests {
    typealias S = StretchSignal

    /// 3 s of 240 fps pictures and a 1 kHz tone (amplitude 0.5) throughout.
    static func makeSource(_ path: String) throws {
        let fps = FrameRate(frames: 240)
        let s = try FrameSource(path: path, video: .droppableH264(width: 160, height: 96, frameRate: fps), audio: GeneratedAudioFormat())
        var done = 0
        for i in 0..<720 {
            try s.appendPicture(at: fps.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            let until = (i + 1) * 48000 / 240
            try s.appendAudio(count: until - done) { _, n in Float(0.5 * sin(2 * Double.pi * 1000 * Double(n) / 48000)) }
            done = until
        }
        try s.finish()
    }

    @Test("1–2 s at 1/4 speed after 0–1 s: the stretched tone is at full level from its first 20 ms", arguments: [AudioStretch.spectral, .timeDomain])
    func fullLevelFromTheStart(method: AudioStretch) throws {
        let dir = Scratch()
        let src = dir.file("tone.mp4")
        try Self.makeSource(src)
        let out = dir.file("out.mp4")
        let pieces: [(TimeRange, TimeScale)] = [
            (TimeRange(start: .zero, end: MediaTime(seconds: 1)), .identity),
            (TimeRange(start: MediaTime(seconds: 1), end: MediaTime(seconds: 2)), TimeScale(4, 1)!),
        ]
        let plan = try CompositionStretchTests.plan(src, out, pieces: pieces, method: method)
        try ExportSession(plan: plan).run()
        let (x, rate) = try CompositionStretchTests.sound(out)
        let steady = S.rms(x[(3 * rate)..<(4 * rate)])
        #expect(steady > 0.3, "steady level \(steady)")
        // 20 ms blocks from 1 s (where the stretched piece starts) to 1.1 s.
        for k in 0..<5 {
            let a = rate + k * rate / 50
            let level = S.rms(x[a..<(a + rate / 50)])
            #expect(level > 0.8 * steady, "\(method): block \(k) after 1 s at \(level), steady \(steady)")
        }
    }
}
