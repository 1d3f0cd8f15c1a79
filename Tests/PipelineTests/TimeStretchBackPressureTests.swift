@testable import Pipeline
import Recipe
import Testing

/// What the kernel makes waits until drained: a caller that feeds without draining is stopped
/// after a few frames, not left to queue `fed × scale` samples.
@Suite("Audio time stretch back-pressure")
struct TimeStretchBackPressureTests {
    typealias S = StretchSignal

    @Test("feeding stereo at ×100 without draining is refused within a few frames, the queue bounded",
          arguments: TimeStretcher.Method.allCases)
    func feedWithoutDraining(method: TimeStretcher.Method) throws {
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "stereo", method: method, scale: try TimeStretchScale(target: 100, source: 1))
        let tone = S.sine(1000, rate: 48000, count: 1024)
        var refused: MediaError?
        var feeds = 0
        // 64 frames would queue 6.5 million samples; a 10-minute range, 2.9 billion (23 GB).
        while feeds < 64 {
            let queued = s.queuedSamples
            let frame = try S.frame([tone, tone], from: 0, count: 1024, rate: 48000, layout: "stereo")
            do throws(MediaError) {
                try s.feed(frame)
            } catch {
                refused = error
                #expect(error == MediaError(.processing, "time stretch: \(queued) stretched samples wait to be drained (at most \(s.queueLimit)): drain until nil after every feed"))
                break
            }
            feeds += 1
        }
        #expect(refused != nil, "\(method.rawValue): \(feeds) frames fed, \(s.queuedSamples) samples queued")
        // Two 1024-sample frames × 100, and the kernel's lead held back behind the lead-in.
        #expect(s.queueLimit == 204800 + s.leadCompensation)
        #expect(s.leadCompensation < 48000 * 4, "\(method.rawValue): \(s.leadCompensation)")
        // rubberband and atempo hold back a few frames before they make anything.
        #expect(feeds <= 16, "\(method.rawValue)")
        #expect(s.queuedSamples <= s.queueLimit + 102400 + 8192, "\(method.rawValue)")
        // Draining and going on is allowed again.
        while try s.drain() != nil {}
        try s.feed(try S.frame([tone, tone], from: 0, count: 1024, rate: 48000, layout: "stereo"))
    }

    @Test("draining until nil after each feed never meets the limit, whatever the scale and frame size",
          arguments: TimeStretcher.Method.allCases)
    func drainingKeepsTheQueueShort(method: TimeStretcher.Method) throws {
        for (t, src) in [(Int64(100), Int64(1)), (1, 100), (1, 1), (30000, 1001)] {
            let scale = try TimeStretchScale(target: t, source: src)
            let input = S.sine(440, rate: 48000, count: 48000)
            let out = try S.stretch([input], rate: 48000, layout: "mono", method: method, scale: scale, chunks: [4096, 1, 7, 2000])
            #expect(out.count == Int(scale.stretched(48000)!), "\(method.rawValue) × \(scale)")
        }
    }
}
