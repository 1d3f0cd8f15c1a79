import CFFmpeg
import Recipe

/// The true peak a lossy encoder really makes of gained sound: the frames encoded as the sink
/// encodes them (its settings, its sample format, blocks of its frame size), decoded again and
/// measured. AAC's decoded peaks overshoot the sound it was given, by more the nearer it is to
/// full scale; only an encode tells by how much.
// Not Sendable: belongs to the loudness pass, on the thread that plans.
final class EncodedPeak {
    private let encoder: Encoder
    private let decoder: Decoder
    private let sampleFormat: SampleFormat
    private let fifo: AudioFIFO
    private var converter: Resampler?
    private let feed: LoudnessFeed
    private let rate: Int32
    private let layout: String
    private var nextPTS: Int64 = 0

    init(settings s: ResolvedAudioSettings) throws(MediaError) {
        encoder = try Encoder(EncoderConfiguration.audio(s))
        decoder = try Decoder(decoding: encoder)
        guard let format = SampleFormat(named: s.sampleFormat) else {
            throw MediaError(.invalidSettings, "unknown sample format '\(s.sampleFormat)'")
        }
        sampleFormat = format
        fifo = try AudioFIFO(format: format, channels: Int32(s.channels))
        (rate, layout) = (Int32(s.sampleRate), s.channelLayout)
        feed = try LoudnessFeed(rate: rate, layout: layout)
    }

    /// Encodes `frame` (planar float at the output's rate and layout, gained).
    func add(_ frame: Frame) throws(MediaError) {
        if converter == nil { converter = try frame.makeResampler(toRate: rate, format: sampleFormat, layout: layout) }
        try converter?.convert(frame, onto: fifo)
        try encodeQueued(flush: false)
    }

    /// The decoded encode's true peak, dBTP.
    func finish() throws(MediaError) -> Double {
        try converter?.convert(nil, onto: fifo)
        try encodeQueued(flush: true)
        try encoder.send(nil)
        try drainEncoder()
        _ = try decoder.send(nil)
        try drainDecoder()
        try feed.add(nil)
        return feed.meter.measurement.truePeak
    }

    private func encodeQueued(flush: Bool) throws(MediaError) {
        guard let converter else { return }
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while fifo.count >= size || (flush && fifo.count > 0) {
            let n = min(size, fifo.count)
            let block = try Frame.audio(samples: n, format: sampleFormat, layoutOf: converter, sampleRate: rate)
            _ = try fifo.read(into: block, samples: n)
            block.pts = nextPTS
            nextPTS += Int64(n)
            try encoder.send(block)
            try drainEncoder()
        }
    }

    private func drainEncoder() throws(MediaError) {
        while let packet = try encoder.receive() {
            while try !decoder.send(packet) { try drainDecoder() }
            try drainDecoder()
        }
    }

    private func drainDecoder() throws(MediaError) {
        while let frame = try decoder.receive() {
            if frame.samples > 0 { try feed.add(frame) }
        }
    }
}
