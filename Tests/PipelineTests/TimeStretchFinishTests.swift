import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// A failed range stays failed.
@Suite("Audio time stretch failures")
struct TimeStretchFinishTests {
    typealias S = StretchSignal

    /// A kernel that takes its input and then fails at the end of it.
    final class FailingAtEnd: StretchKernel {
        func push(_ frame: Frame?) throws(MediaError) {
            if frame == nil { throw MediaError(.processing, "audio filter end: Operation not permitted") }
        }
        func pull() throws(MediaError) -> Frame? { nil }
    }

    @Test("a finish that fails throws again from drain, finish and feed: no silence made up to the target")
    func finishFailureSticks() throws {
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "mono", method: .spectral,
                                  scale: try TimeStretchScale(target: 2, source: 1), kernel: FailingAtEnd())
        try s.feed(try S.frame([S.sine(1000, rate: 48000, count: 100)], from: 0, count: 100, rate: 48000, layout: "mono"))
        let failure = MediaError(.processing, "audio filter end: Operation not permitted")
        #expect(throws: failure) { try s.finish() }
        #expect(throws: failure) { try s.drain() }
        #expect(throws: failure) { try s.finish() }
        #expect(throws: failure) { try s.feed(try S.frame([[0]], from: 0, count: 1, rate: 48000, layout: "mono")) }
        #expect(s.emittedSamples == 0)
    }
}
