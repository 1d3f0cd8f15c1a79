import Recipe

/// A smart-rendered output's sound (`SmartSound`): copied runs hand out the source's AAC frames
/// as they are, encoded stretches the frames at the cuts encoded again (`SoundStretchEncoder`),
/// one after another with no gap, stamped by count on the output's sample clock (the first
/// stretch's priming frame at −1024, which the MP4/MOV edit list hides). Matroska hides no
/// priming (FFmpeg 5.1's writer states a CodecDelay for Opus alone, and would move every track
/// later to keep a packet before 0): there the first stretch's priming frame is left out and the
/// sound starts at 0 with its first frame, as a full encode's does (`AudioSink` leaves its
/// encoder's priming out alike). Each run has a reader of its own, made when the run is reached.
final class SmartSoundSequence: PacketSourceStage {
    private let env: LaneEnvironment
    private let sound: SmartSound
    private let sources: [Asset]
    private let settings: ResolvedAudioSettings
    private var index = -1
    /// The packets of the current run still to hand out (a stretch: all of them, it is short), or
    /// the copied run's reading.
    private var queued: [Packet] = []
    private var copying: (tap: PacketTap, copy: SmartSound.Copy, handed: Int)?
    /// The next frame's place (output samples).
    private var nextSample: Int64
    /// The output cannot hide the first stretch's priming frame (Matroska): it is left out.
    private let dropsPriming: Bool
    private let clock: TimeBase
    /// The first copied run's reading, kept open for its stream, whose format the writer input takes.
    private let described: PacketTap
    var stream: SourceStream { described.stream }
    private(set) var statistics: LaneStatistics
    private(set) var lastTime: MediaTime = .invalid
    private(set) var file: String?

    init(env: LaneEnvironment, sound: SmartSound, sources: [Asset], settings: ResolvedAudioSettings, track: Int) throws(MediaError) {
        self.env = env
        self.sound = sound
        self.sources = sources
        self.settings = settings
        clock = TimeBase(num: 1, den: Int32(sound.sampleRate))
        statistics = LaneStatistics(track: track)
        dropsPriming = env.writer.format.isMatroska
        nextSample = dropsPriming ? 0 : -SmartSound.frame
        guard let first = sound.runs.lazy.compactMap({ run -> SmartSound.Copy? in if case .copied(let c) = run { return c } else { return nil } }).first else {
            throw MediaError(.processing, "the plan copies no sound for this track")
        }
        described = try Self.reader(sources[first.source], track: first.track, from: first.first, rate: sound.sampleRate)
    }

    /// A reader of `track` from just before sample `from` (the frames a decoder needs first).
    private static func reader(_ asset: Asset, track: Int, from: Int64, rate: Int) throws(MediaError) -> PacketTap {
        let reader = try AssetReader(asset: asset, streams: [track], takingProbe: false)
        try reader.seek(to: MediaTime(value: from - 4 * SmartSound.frame, timescale: Int32(rate)), fileStart: asset.startTime)
        return PacketTap(reader: reader, output: 0)
    }

    func next() throws(MediaError) -> TimedPacket? {
        while true {
            try env.checkCancelled()
            if !queued.isEmpty { return place(queued.removeFirst()) }
            if let (tap, copy, handed) = copying {
                if handed < copy.frames, let packet = try tap.next() {
                    statistics.packetsRead += 1
                    packet.rescale(from: tap.stream.timeBase, to: clock)
                    if packet.pts < copy.first { continue }
                    guard packet.pts == copy.first + Int64(handed) * SmartSound.frame, packet.duration == SmartSound.frame else {
                        throw MediaError(.processing, "the source's sound frame at sample \(packet.pts) is not where the plan found it "
                                         + "(sample \(copy.first + Int64(handed) * SmartSound.frame))")
                    }
                    lastTime = MediaTime(value: packet.pts, timescale: Int32(sound.sampleRate))
                    copying?.handed += 1
                    return place(try packet.reference())
                }
                guard handed == copy.frames else {
                    throw MediaError(.processing, "the source's sound ended \(copy.frames - handed) frames before the plan's copy")
                }
                tap.detach()
                copying = nil
            }
            index += 1
            guard index < sound.runs.count else { return nil }
            try start(sound.runs[index])
        }
    }

    private func start(_ run: SmartSound.Run) throws(MediaError) {
        switch run {
        case .copied(let c):
            let asset = sources[c.source]
            file = asset.path
            do throws(MediaError) {
                copying = (try Self.reader(asset, track: c.track, from: c.first, rate: sound.sampleRate), c, 0)
            } catch { throw error.at(file: asset.path, track: c.track) }
        case .encoded(let s):
            let encoder = SoundStretchEncoder(env: env, sources: sources, settings: settings)
            queued = try encoder.encode(s, statistics: &statistics)
            // The output's first stretch keeps a priming frame (before the output's 0).
            if dropsPriming && !s.afterCopy && !queued.isEmpty { queued.removeFirst() }
            file = encoder.lastFile
            if let t = encoder.lastTime { lastTime = t }
        }
    }

    /// `packet` as the output's next frame.
    private func place(_ packet: Packet) -> TimedPacket {
        packet.pts = nextSample
        packet.dts = nextSample
        nextSample += packet.duration > 0 ? packet.duration : SmartSound.frame
        return TimedPacket(packet: packet, timeBase: clock)
    }
}

/// One encoded stretch of a smart-rendered output's sound: its pieces decoded sample-exact (short
/// ones padded with silence), then the stretch's overlap frame, into FFmpeg's AAC encoder. Frame
/// i of the encoder (pts 1024·(i−1): the first is its priming) shows the samples [1024·(i−1),
/// 1024·i) of what it was given, overlapped with frame i+1's first half; so after copied frames
/// the priming frame is left out (the copied frame before stands for it: its second half overlaps
/// the stretch's first samples), and before copied frames the frame the copied one shows is given
/// too and its own packet left out (the stretch's last kept frame then carries that frame's
/// first half, which the copied frame is decoded with). Two frames of the source's sound before
/// the stretch and one after lead the encoder in and out (their packets not kept; before the
/// output's first stretch, the last lead-in packet stands as the priming the edit list hides), so
/// the kept frames are coded with the long windows a full encode uses there: started from
/// silence, FFmpeg's encoder codes its first frames with short windows, and a copied frame after
/// them decodes with an error of 5 times the coding noise (measured on a 440 Hz tone).
final class SoundStretchEncoder {
    private let env: LaneEnvironment
    private let sources: [Asset]
    private let settings: ResolvedAudioSettings
    private var resampler: Resampler?
    private var fifo: AudioFIFO?
    /// Samples of silence still to queue (a piece before the file's sound, decoded before any frame).
    private var owedSilence: Int64 = 0
    private var given: Int64 = 0
    private(set) var lastFile: String?
    private(set) var lastTime: MediaTime?

    init(env: LaneEnvironment, sources: [Asset], settings: ResolvedAudioSettings) {
        self.env = env
        self.sources = sources
        self.settings = settings
    }

    /// The stretch's kept packets, in order.
    func encode(_ stretch: SmartSound.Stretch, statistics: inout LaneStatistics) throws(MediaError) -> [Packet] {
        var c = EncoderConfiguration.audio(settings)
        c.globalHeader = true
        let encoder = try Encoder(c)
        guard let format = SampleFormat(named: settings.sampleFormat) else {
            throw MediaError(.invalidSettings, "unknown sample format '\(settings.sampleFormat)'")
        }
        fifo = try AudioFIFO(format: format, channels: Int32(settings.channels))
        var packets: [Packet] = []
        let given = [stretch.leadIn] + stretch.pieces.map { Optional($0) } + [stretch.overlap, stretch.leadOut]
        for piece in given.compactMap({ $0 }) {
            try decode(piece, statistics: &statistics)
            try send(encoder, format: format, flush: false, into: &packets)
        }
        guard owedSilence == 0 else { throw MediaError(.processing, "no sound decoded for a stretch of \(stretch.samples) samples") }
        try send(encoder, format: format, flush: true, into: &packets)
        try encoder.send(nil)
        while let p = try encoder.receive() { packets.append(p) }
        let lead = stretch.leadIn?.count ?? 0, shown = stretch.samples
        let kept = packets.filter { p in
            p.pts >= lead - (stretch.afterCopy ? 0 : SmartSound.frame) && (stretch.overlap == nil || p.pts + SmartSound.frame <= lead + shown)
        }
        let frames = (shown + SmartSound.frame - 1) / SmartSound.frame + (stretch.afterCopy ? 0 : 1)
        guard Int64(kept.count) == frames else {
            throw MediaError(.processing, "the \(settings.encoderName) encoder made \(kept.count) frames of a stretch of \(shown) samples (\(frames) expected): its frames do not line up with the copied ones")
        }
        return kept
    }

    /// Exactly the piece's samples into the queue: what its file lacks as silence.
    private func decode(_ piece: SmartSound.Piece, statistics: inout LaneStatistics) throws(MediaError) {
        guard piece.count > 0 else { return }
        let asset = sources[piece.source]
        lastFile = asset.path
        let rate = Int32(settings.sampleRate)
        do throws(MediaError) {
            guard let track = asset.track(index: piece.track) else { throw MediaError(.processing, "\(asset.path) has no track #\(piece.track)") }
            let reader = try AssetReader(asset: asset, streams: [piece.track], takingProbe: false)
            try reader.seek(to: MediaTime(value: piece.from - 4 * SmartSound.frame, timescale: rate), fileStart: asset.startTime)
            let range = TimeRange(start: MediaTime(value: piece.from, timescale: rate), end: MediaTime(value: piece.from + piece.count, timescale: rate))
            let segment = TimeSegment(source: piece.source, track: piece.track, sourceRange: range, targetStart: .zero, scale: .identity)
            let source = try AudioSource(env: env, tap: PacketTap(reader: reader, output: 0), track: track, segment: segment, outputRate: rate)
            var written: Int64 = 0
            while written < piece.count, let timed = try source.next() {
                guard case .samples(let frame, let position) = timed else { continue }
                if position > written { try write(try frame.silence(samples: Int32(position - written))); written = position }
                let n = min(Int64(frame.samples), piece.count - written)
                guard n > 0 else { continue }
                try write(try frame.samples(0..<n))
                written += n
            }
            statistics.addReading(of: source.statistics)
            lastTime = source.lastTime
            // Before the file's sound (a lead-in at its start): silence, made once a frame shows its format.
            if written < piece.count { owedSilence += piece.count - written }
        } catch { throw error.at(file: asset.path, track: piece.track) }
    }

    private func write(_ frame: Frame) throws(MediaError) {
        guard let fifo, let format = SampleFormat(named: settings.sampleFormat) else { return }
        if owedSilence > 0 {
            let n = owedSilence
            owedSilence = 0
            try write(try frame.silence(samples: Int32(n)))
        }
        if resampler == nil {
            resampler = try frame.makeResampler(toRate: Int32(settings.sampleRate), format: format, layout: settings.channelLayout)
        }
        try resampler?.convert(frame, onto: fifo)
    }

    /// Whole frames (all that is queued, with `flush`) to the encoder, stamped by count from 0.
    private func send(_ encoder: Encoder, format: SampleFormat, flush: Bool, into packets: inout [Packet]) throws(MediaError) {
        guard let fifo, let resampler else { return }
        let size = encoder.frameSize > 0 ? encoder.frameSize : Int32(SmartSound.frame)
        if flush { try resampler.convert(nil, onto: fifo) }
        while fifo.count >= size || (flush && fifo.count > 0) {
            let n = min(size, fifo.count)
            let frame = try Frame.audio(samples: n, format: format, layoutOf: resampler, sampleRate: Int32(settings.sampleRate))
            _ = try fifo.read(into: frame, samples: n)
            frame.pts = given
            given += Int64(n)
            try encoder.send(frame)
            while let p = try encoder.receive() { packets.append(p) }
        }
    }
}
