@testable import Pipeline
import Recipe
import Testing

/// Many channels: rubberband in FFmpeg 5.1 reads only 8 plane pointers, so `spectral` refuses
/// more instead of crashing; the other methods take them.
@Suite("Audio time stretch channel counts")
struct TimeStretchChannelsTests {
    typealias S = StretchSignal

    @Test("spectral on 16 channels is refused as unsupported, saying which methods take them; on 8 it stretches")
    func spectralLimit() throws {
        let scale = try TimeStretchScale(target: 2, source: 1)
        #expect(throws: MediaError(.unsupported, "time stretch: the spectral method (rubberband) takes at most 8 channels; this audio has 16 (time-domain and varispeed take any number)")) {
            try TimeStretcher(sampleRate: 48000, channelLayout: "hexadecagonal", method: .spectral, scale: scale)
        }
        let tone = S.sine(1000, rate: 48000, count: 4800)
        let eight = try S.stretch(Array(repeating: tone, count: 8), rate: 48000, layout: "octagonal", method: .spectral, scale: scale)
        #expect(eight.planes.map(\.count) == Array(repeating: 9600, count: 8))
    }

    @Test("16 channels through every other method: each channel keeps its count and its sound",
          arguments: [TimeStretcher.Method.timeDomain, .varispeed, .mute])
    func sixteenChannels(method: TimeStretcher.Method) throws {
        let tone = S.sine(1000, rate: 48000, count: 4800)
        let out = try S.stretch(Array(repeating: tone, count: 16), rate: 48000, layout: "hexadecagonal", method: method,
                                scale: try TimeStretchScale(target: 2, source: 1))
        #expect(out.planes.map(\.count) == Array(repeating: 9600, count: 16))
        for plane in out.planes { #expect(method == .mute ? S.rms(plane[...]) == 0 : S.rms(plane[...]) > 0.2, "\(method.rawValue)") }
    }
}
