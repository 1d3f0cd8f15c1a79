import CFFmpeg
@testable import Pipeline
import Recipe
import Testing

/// What `feed` accepts is stretched the same by every method: a frame that does not say its rate
/// (sample_rate 0) or names another layout of the same channel count is the stretcher's audio.
@Suite("Audio time stretch input")
struct TimeStretchInputTests {
    typealias S = StretchSignal

    /// 0.2 s of stereo (1 kHz left, 440 Hz right) fed in 960-sample frames, each changed by
    /// `adjust`, stretched ×2 and drained after every feed.
    static func stretch(method: TimeStretcher.Method, layout: String, adjust: (Frame) -> Void) throws -> [[Float]] {
        let count = 9600
        let planes = [S.sine(1000, rate: 48000, count: count), S.sine(440, rate: 48000, count: count)]
        let s = try TimeStretcher(sampleRate: 48000, channelLayout: "stereo", method: method, scale: try TimeStretchScale(target: 2, source: 1))
        var out: [[Float]] = [[], []]
        func take() throws {
            while let f = try s.drain() {
                for c in 0..<2 {
                    let p = UnsafeMutableRawPointer(f.pointer.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
                    out[c].append(contentsOf: UnsafeBufferPointer(start: p, count: Int(f.samples)))
                }
            }
        }
        for at in stride(from: 0, to: count, by: 960) {
            let f = try S.frame(planes, from: at, count: 960, rate: 48000, layout: layout)
            adjust(f)
            try s.feed(f)
            try take()
        }
        try s.finish()
        try take()
        return out
    }

    @Test("sample rate 0 and a 'downmix' frame fed to a stereo stretcher give the same samples as stereo frames",
          arguments: TimeStretcher.Method.allCases)
    func unstampedAndRelabelled(method: TimeStretcher.Method) throws {
        let normal = try Self.stretch(method: method, layout: "stereo") { _ in }
        #expect(normal.map(\.count) == [19200, 19200])
        let rateless = try Self.stretch(method: method, layout: "stereo") { $0.pointer.pointee.sample_rate = 0 }
        #expect(rateless == normal, "\(method.rawValue): sample rate 0")
        let downmix = try Self.stretch(method: method, layout: "downmix") { _ in }
        #expect(downmix == normal, "\(method.rawValue): downmix layout")
        let both = try Self.stretch(method: method, layout: "downmix") { $0.pointer.pointee.sample_rate = 0 }
        #expect(both == normal, "\(method.rawValue): downmix layout at sample rate 0")
    }
}
