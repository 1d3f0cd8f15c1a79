import Recipe

/// N audio tracks of the timeline → 1 (AVAudioMix): each input's samples are brought to the
/// output's rate and layout (mono is played on both sides at −3 dB each, libswresample's centre
/// level; 5.1 down-mixed with its standard coefficients), weighted per sample by its volume at
/// that sample's time on the timeline, summed, scaled by the output's fades, and limited by the
/// stated rule. Every input is a sequence that starts at
/// sample 0 and runs contiguously (gaps filled with silence), so sample k of each is sample k of
/// the output: nothing is aligned by guesswork.
final class AudioMixer: SourceStage {
    struct Input {
        let stage: any SourceStage
        /// nil: 1 throughout.
        let volume: Keyframes?
        /// Its fades from and to silence, a factor on the volume; nil: none.
        var fade: Keyframes? = nil
    }

    private final class Feed {
        let stage: any SourceStage
        let volume: Keyframes?
        let fade: Keyframes?
        var resampler: Resampler?
        let fifo: AudioFIFO
        var done = false
        /// Reused per chunk: the gains of the chunk's samples, and the samples read from the
        /// queue (a chunk's room; only the first `gains.count` of them count).
        var gains: [Float] = []
        var part: Frame?
        init(_ input: Input, format: MixFormat) throws(MediaError) {
            stage = input.stage; volume = input.volume; fade = input.fade
            fifo = try format.queue()
        }
    }

    private let feeds: [Feed]
    private let format: MixFormat
    private let limit: MixLimit
    /// The output's sample count (the timeline's end at the output rate); nil: where the inputs end.
    private let end: Int64?
    /// The whole output's fades and dips, a factor on the sum.
    private let master: Keyframes?
    private var masterGains: [Float] = []
    private var position: Int64 = 0
    static let chunk: Int32 = 1024

    init(inputs: [Input], rate: Int32, layout: String, limit: MixLimit, end: Int64?, master: Keyframes? = nil) throws(MediaError) {
        self.master = master
        let format = try MixFormat(rate: rate, layout: layout)
        self.format = format
        self.limit = limit
        self.end = end
        var made: [Feed] = []
        for input in inputs { made.append(try Feed(input, format: format)) }
        feeds = made
    }

    var statistics: LaneStatistics {
        var s = LaneStatistics(track: feeds.first?.stage.statistics.track ?? 0)
        for f in feeds { s.addReading(of: f.stage.statistics) }
        return s
    }

    /// The input being read last names the file and time of an error.
    private var current: (any SourceStage)?
    var lastTime: MediaTime { current?.lastTime ?? .invalid }
    var file: String? { current?.file }

    func next() throws(MediaError) -> TimedFrame? {
        if let end, position >= end { return nil }
        for feed in feeds { try fill(feed) }
        let available = feeds.map { Int64($0.fifo.count) }.max() ?? 0
        var n = min(Int64(Self.chunk), available)
        if let end { n = min(n, end - position) }
        guard n > 0 else { return nil }
        let sum = try format.silence(count: Int32(n))
        for feed in feeds where feed.fifo.count > 0 {
            let take = Int32(min(n, Int64(feed.fifo.count)))
            if feed.part == nil { feed.part = try format.silence(count: Self.chunk) }
            guard let part = feed.part else { continue }
            _ = try feed.fifo.read(into: part, samples: take)
            gains(for: feed, count: Int(take))
            MixKernel.accumulate(part, gains: feed.gains, into: sum)
        }
        if let master {
            let r = Double(format.rate)
            master.fill(&masterGains, from: Double(position) / r, step: 1 / r, count: Int(n))
            MixKernel.scale(sum, by: masterGains)
        }
        MixKernel.limit(sum, limit)
        let at = position
        position += n
        return .samples(sum, position: at)
    }

    /// Reads `feed` until it holds a chunk or has ended (its resampler drained).
    private func fill(_ feed: Feed) throws(MediaError) {
        while !feed.done && feed.fifo.count < Self.chunk {
            current = feed.stage
            guard let timed = try feed.stage.next() else {
                try feed.resampler?.convert(nil, onto: feed.fifo)
                feed.done = true
                return
            }
            guard case .samples(let frame, _) = timed else { continue }
            if let r = feed.resampler, !r.takes(frame) {
                // The next file's sound has another rate or layout: the old resampler's tail first.
                try r.convert(nil, onto: feed.fifo)
                feed.resampler = nil
            }
            if feed.resampler == nil {
                feed.resampler = try format.resampler(from: frame)
            }
            try feed.resampler?.convert(frame, onto: feed.fifo)
        }
    }

    /// The feed's volume (and fades) for output samples `position ..< position + count`.
    private func gains(for feed: Feed, count: Int) {
        let r = Double(format.rate), t0 = Double(position) / r
        (feed.volume ?? Keyframes(constant: 1)).fill(&feed.gains, from: t0, step: 1 / r, count: count)
        feed.fade?.fill(&feed.gains, from: t0, step: 1 / r, count: count, multiplying: true)
    }
}
