import Recipe

/// Samples on the output's sample clock → resample / downmix into the encoder's sample format →
/// frames of the encoder's size → encoder → writer input (of each output sharing the encode).
final class AudioSink: SinkStage {
    private var files: EncodedOutputs
    private let settings: ResolvedAudioSettings
    private let encoder: Encoder
    private var resampler: Resampler?
    /// Loudness normalisation's one gain, before the resampler (nil: none asked, or silence).
    private let gain: SoundGain?
    private let fifo: AudioFIFO
    /// What the encoder takes (the assistant's `sampleFormat`): the resampler makes it.
    private let sampleFormat: SampleFormat
    /// The encoder's last block of samples and its size (see `encoderBlock`).
    private var lastBlock: Frame?
    private var lastBlockCapacity: Int32 = 0
    /// Output pts (1/sampleRate) of the next sample the encoder gets; set by the first run.
    private var nextPTS: Int64?
    /// The pts of the first sample given to the encoder: packets ending by then are priming.
    private var firstEncodedPTS: Int64?
    private(set) var unitsOut = 0
    /// The decoder needs the priming packet (`AudioFamily.decoderNeedsPriming`): it is kept.
    private let needsPriming: Bool
    var packetsWritten: Int { files.files[0].packetsWritten }
    var perDestination: [(unitsOut: Int, packetsWritten: Int)] { files.counts(unitsOut: unitsOut) }
    let encoders = 1

    /// One encode written into each of `destinations` (the plan shares it: `OutputSet`).
    init(_ destinations: [SinkDestination], settings: ResolvedAudioSettings) throws(MediaError) {
        self.settings = settings
        var c = EncoderConfiguration.audio(settings)
        c.globalHeader = destinations[0].env.writer.needsGlobalHeader
        let encoder = try destinations[0].env.encoders.open(c)
        self.encoder = encoder
        needsPriming = AudioFamily.of(encoder: encoder.codecName)?.decoderNeedsPriming ?? false
        guard let format = SampleFormat(named: settings.sampleFormat) else {
            throw MediaError(.invalidSettings, "unknown sample format '\(settings.sampleFormat)'")
        }
        sampleFormat = format
        fifo = try AudioFIFO(format: format, channels: Int32(settings.channels))
        gain = try settings.loudnessGain.flatMap { (g) throws(MediaError) -> SoundGain? in
            g.decibels == 0 ? nil : try SoundGain(decibels: g.decibels, rate: Int32(settings.sampleRate), layout: settings.channelLayout)
        }
        files = try EncodedOutputs(destinations) { (d) throws(MediaError) in
            try d.env.writer.addInput(encoder: encoder, rotation: 0, metadata: d.track.outputMetadata)
        }
    }

    func consume(_ timed: TimedFrame) throws(MediaError) {
        guard case .samples(let frame, let position) = timed else { return }
        if nextPTS == nil { nextPTS = position }
        guard let gain else { return try convert(frame) }
        // Gained in planar float at the output's rate and layout, then made the encoder's format.
        for gained in try gain.apply(frame) { try convert(gained) }
    }

    private func convert(_ frame: Frame) throws(MediaError) {
        if let r = resampler, !r.takes(frame) {
            // A composition's next file has another rate or layout: what the resampler holds of
            // the previous one comes out first, then a new one takes over.
            try r.convert(nil, onto: fifo)
            resampler = nil
        }
        if resampler == nil {
            resampler = try frame.makeResampler(toRate: Int32(settings.sampleRate), format: sampleFormat, layout: settings.channelLayout)
        }
        try resampler?.convert(frame, onto: fifo)
        try encodeQueued(flush: false)
    }

    func finish() throws(MediaError) {
        for gained in try gain?.apply(nil) ?? [] { try convert(gained) }
        try resampler?.convert(nil, onto: fifo)
        try encodeQueued(flush: true)
        try encoder.send(nil)
        try receivePackets()
    }

    private func encodeQueued(flush: Bool) throws(MediaError) {
        guard let resampler else { return }
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while fifo.count >= size || (flush && fifo.count > 0) {
            let n = min(size, fifo.count)
            let frame = try encoderBlock(n, layoutOf: resampler)
            _ = try fifo.read(into: frame, samples: n)
            frame.pts = nextPTS ?? 0
            if firstEncodedPTS == nil { firstEncodedPTS = frame.pts }
            let (next, overflow) = frame.pts.addingReportingOverflow(Int64(n))
            if overflow { throw MediaError(MediaTimeOverflow(saturated: .positiveInfinity, expression: "sample \(frame.pts) + \(n)")) }
            nextPTS = next
            unitsOut += Int(n)
            try encoder.send(frame)
            try receivePackets()
        }
    }

    /// A block of `n` samples for the encoder: the last one again once the encoder has let go of
    /// it (it copies the samples in), so no allocation per frame.
    private func encoderBlock(_ n: Int32, layoutOf resampler: Resampler) throws(MediaError) -> Frame {
        if let f = lastBlock, n <= lastBlockCapacity, f.isWritable {
            f.setSampleCount(n)
            return f
        }
        let f = try Frame.audio(samples: n, format: sampleFormat, layoutOf: resampler, sampleRate: Int32(settings.sampleRate))
        (lastBlock, lastBlockCapacity) = (f, n)
        return f
    }

    /// A kept priming packet before the file's 0 (a track that starts the file) in Matroska:
    /// FFmpeg's Matroska writer would move every track of the file later by it to have nothing
    /// before 0. It is put at 0, with the first sample: it shows nothing, and its decoder only
    /// needs it first (libavcodec stamps the first sound with the next packet's time).
    /// Elsewhere (Ogg) it keeps its own time, which the container states.
    private static func placePriming(_ packet: Packet, in file: EncodedOutputs.File) {
        guard file.env.writer.format.isMatroska, packet.pts != FFmpeg.noPTS, packet.pts < 0 else { return }
        packet.pts = 0
        packet.dts = 0
    }

    private func receivePackets() throws(MediaError) {
        while let packet = try encoder.receive() {
            // The encoder's priming (AAC: 1024 samples before the first one given) is hidden by
            // the MP4/MOV edit list only when it lies before the output's start; Matroska cannot
            // hide it at all. Kept anywhere else, players would play it as sound before the
            // source's first sample (and Matroska would move every other track later to make
            // room for it). There it is left out: the track starts with its first sample, where
            // the source's material starts relative to the other tracks.
            let priming: Bool
            if let first = firstEncodedPTS, packet.pts != FFmpeg.noPTS, packet.duration > 0 {
                priming = packet.pts.addingReportingOverflow(packet.duration).partialValue <= first
            } else {
                priming = false
            }
            let late = (firstEncodedPTS ?? 0) > 0
            if priming && needsPriming {
                // Vorbis's priming shows nothing but its decoder needs it: every file gets it.
                try files.deliver(packet, timeBase: encoder.timeBase, frames: nil, placing: Self.placePriming)
                continue
            }
            try files.deliver(packet, timeBase: encoder.timeBase, frames: nil) { file in
                !priming || !(late || file.env.writer.format.isMatroska)
            }
        }
    }
}
