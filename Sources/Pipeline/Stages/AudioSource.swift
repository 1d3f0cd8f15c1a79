import Recipe

/// Reader packets → decoder → the samples that lie in the segment (sample-accurate), each run
/// placed on the output's sample clock by the segment. A scaled segment's sound goes through its
/// `audio-stretch:` method (`StretchedSound`: spectral, time-domain, varispeed, or mute's
/// silence), led in with the decoded audio just before the segment, and comes out exactly as many
/// samples long as the segment's target range holds: counted on the output's clock from the
/// timeline's absolute positions (`TimeMapping.sampleCount`), so segments add up to the
/// timeline's rational sum. When the sound's rate is not the output's, the count is exact at the
/// sound's rate and the sink's one resampler for the whole track makes it the output's, within a
/// sample at the track's end.
final class AudioSource: SourceStage {
    private let env: LaneEnvironment
    /// Where its packets come from.
    private let tap: PacketTap
    private let segment: TimeSegment
    private let decoder: Decoder
    private let sourceTimeBase: TimeBase
    /// The output's sample rate: positions are counted in it.
    private let outputRate: Int32
    /// Where the decoder's next frame would start when it carries no timestamp.
    private var expectedStart: MediaTime = .invalid
    private var placedAny = false
    private var done = false
    private var ended = false
    private var pending = PendingFrames()
    /// A scaled segment's method; nil: its samples as they are.
    private let method: TimeStretcher.Method?
    private var stretch: StretchedSound?
    /// Decoded audio before the segment, the latest `primingSamples` of it: the lead-in.
    private var preRange: [Frame] = []
    /// Where the stretched sound's first sample goes on the output's clock.
    private var stretchStart: Int64 = 0
    private(set) var lastTime: MediaTime = .invalid
    var file: String? { tap.file }
    private(set) var statistics: LaneStatistics

    /// - Parameter stretch: the segment's `audio-stretch:` method (`mute` at any speed, the others
    ///   only where the segment is scaled).
    init(env: LaneEnvironment, tap: PacketTap, track: Track, segment: TimeSegment, outputRate: Int32,
         stretch: AudioStretch? = nil) throws(MediaError) {
        self.env = env
        // Muted applies at any speed (`mute` on a phone's slow motion silences its pieces at the stored speed too);
        // a method that stretches only where the segment is scaled.
        method = stretch == .mute ? .mute : segment.scale.isIdentity ? nil : stretch.flatMap { TimeStretcher.Method(rawValue: $0.rawValue) }
        self.tap = tap
        self.segment = segment
        self.outputRate = outputRate
        statistics = LaneStatistics(track: track.index)
        let stream = tap.stream
        sourceTimeBase = StreamParameters(stream).timeBase
        decoder = try Decoder(stream: stream)
    }

    func next() throws(MediaError) -> TimedFrame? {
        while true {
            if let frame = pending.pop() { return frame }
            if ended { return nil }
            try advance()
        }
    }

    private func advance() throws(MediaError) {
        if !done, let packet = try tap.next() {
            try env.checkCancelled()
            statistics.packetsRead += 1
            let pts = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
            if pts.isNumeric { lastTime = pts }
            statistics.packetsDecoded += 1
            while try !decoder.send(packet) { try receiveFrames() }
            try receiveFrames()
            return
        }
        tap.detach()
        _ = try decoder.send(nil)
        try receiveFrames()
        // No sound decoded at all: nothing to take the format of, nothing to stretch.
        if let stretch { try placeStretched(try stretch.finish()) }
        ended = true
    }

    private func receiveFrames() throws(MediaError) {
        while let frame = try decoder.receive() {
            statistics.framesDecoded += 1
            if done || frame.samples <= 0 || frame.sampleRate <= 0 { continue }
            var start = MediaTime(ts: frame.decodedTimestamp, timeBase: sourceTimeBase)
            if !start.isNumeric { start = expectedStart.isNumeric ? expectedStart : segment.sourceRange.start }
            let rate = Int64(frame.sampleRate)
            expectedStart = start + MediaTime(value: Int64(frame.samples), timescale: frame.sampleRate)
            lastTime = start
            try place(frame, start: start, rate: rate)
        }
    }

    /// Keeps the samples whose time lies in the segment's source range.
    private func place(_ frame: Frame, start: MediaTime, rate: Int64) throws(MediaError) {
        if start >= segment.sourceRange.end { done = true; return }
        let window = segment.sourceSampleWindow(runStart: start, count: Int64(frame.samples), rate: rate)
        if let method { return try stretch(frame, window: window, start: start, method: method) }
        guard !window.isEmpty else { return }
        let firstKept = start + MediaTime(value: window.lowerBound, timescale: Int32(rate))
        // The first run's place must be known; a later one's only matters to a combiner (a sink
        // counts on from the first), so one beyond 64 bits is left at its predecessor's end.
        let position: Int64
        if !placedAny {
            position = try segment.targetSample(ofSource: firstKept, rate: outputRate)
            placedAny = true
        } else {
            position = (try? segment.targetSample(ofSource: firstKept, rate: outputRate)) ?? .max
        }
        pending.append(.samples(try frame.samples(window), position: position))
    }

    /// A scaled segment: samples before it lead the stretcher in, its own are stretched.
    private func stretch(_ frame: Frame, window: Range<Int64>, start: MediaTime, method: TimeStretcher.Method) throws(MediaError) {
        let sound: StretchedSound
        if let stretch { sound = stretch } else { sound = try makeStretch(like: frame, method: method); stretch = sound }
        if window.isEmpty {
            if start < segment.sourceRange.start { try keepBefore(frame) }
            return
        }
        if window.lowerBound > 0 { try keepBefore(try frame.samples(0..<window.lowerBound)) }
        if !preRange.isEmpty {
            try sound.prime(preRange)
            preRange = []
        }
        try placeStretched(try sound.feed(try frame.samples(window)))
    }

    /// Keeps the latest `primingSamples` of the audio before the segment.
    private func keepBefore(_ frame: Frame) throws(MediaError) {
        guard let limit = stretch?.primingSamples, limit > 0 else { return }
        preRange.append(frame)
        var total = preRange.reduce(Int64(0)) { $0 + Int64($1.samples) }
        while let oldest = preRange.first, total - Int64(oldest.samples) >= limit {
            total -= Int64(oldest.samples)
            preRange.removeFirst()
        }
    }

    /// The stretcher for this segment, its length fixed by the timeline: the samples its target
    /// range holds on the output's clock, counted at the sound's own rate when that differs.
    private func makeStretch(like frame: Frame, method: TimeStretcher.Method) throws(MediaError) -> StretchedSound {
        let range = segment.targetRange
        guard let first = TimeMapping.samplePosition(atOrAfter: range.start, rate: outputRate) else {
            throw MediaError(.unsupported, "the segment's start on the timeline (\(range.start)) is beyond the output's sample clock")
        }
        stretchStart = first
        let count = TimeMapping.sampleCount(in: range, rate: frame.sampleRate == outputRate ? outputRate : frame.sampleRate)
        let scale = try TimeStretchScale(target: segment.scale.num, source: segment.scale.den)
        return try StretchedSound(format: frame, method: method, scale: scale, targetSamples: count)
    }

    /// Stretched frames (stamped by count from the segment's start, at the sound's rate) on the
    /// output's clock.
    private func placeStretched(_ frames: [Frame]) throws(MediaError) {
        for f in frames {
            let rate = Int64(f.sampleRate)
            let offset = rate == Int64(outputRate) ? f.pts : WideArithmetic.mulDiv(f.pts, Int64(outputRate), rate)
            pending.append(.samples(f, position: stretchStart + offset))
        }
    }
}
