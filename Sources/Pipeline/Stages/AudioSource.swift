import CFFmpeg
import Recipe

/// Reader packets → decoder → the samples that lie in the segment (sample-accurate), each run
/// placed on the output's sample clock by the segment. Muted (a scaled segment's
/// `audio-stretch: mute`): silence in the decoded sound's format instead, exactly as many samples
/// as the segment's target range holds at the output rate (counted at the source rate when the
/// rates differ, so within a sample of it).
final class AudioSource: SourceStage {
    private let env: LaneEnvironment
    /// Where its packets come from.
    private let tap: PacketTap
    private let segment: TimeSegment
    private let decoder: Decoder
    private let sourceTimeBase: AVRational
    /// The output's sample rate: positions are counted in it.
    private let outputRate: Int32
    /// Where the decoder's next frame would start when it carries no timestamp.
    private var expectedStart: MediaTime = .invalid
    private var placedAny = false
    private var done = false
    private var ended = false
    private var pending = PendingFrames()
    private let mute: Bool
    /// Muted: a decoded frame of the segment, whose format the silence takes.
    private var template: Frame?
    private(set) var lastTime: MediaTime = .invalid
    var file: String? { tap.file }
    private(set) var statistics: LaneStatistics

    init(env: LaneEnvironment, tap: PacketTap, track: Track, segment: TimeSegment, outputRate: Int32, mute: Bool = false) throws(MediaError) {
        self.env = env
        self.mute = mute
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
        if mute { try placeSilence() }
        ended = true
    }

    /// Muted: the segment's target length of silence, from its first sample on the output's clock.
    private func placeSilence() throws(MediaError) {
        guard let template, template.sampleRate > 0 else { return }  // no sound decoded: nothing to take the format of
        let range = segment.targetRange
        guard let first = TimeMapping.samplePosition(atOrAfter: range.start, rate: outputRate),
              let count = TimeMapping.sampleCount(in: range, rate: outputRate) else {
            throw MediaError(.unsupported, "the muted segment's length on the timeline is not known")
        }
        let rate = Int64(template.sampleRate)
        var done: Int64 = 0
        let total = WideArithmetic.mulDiv(count, rate, Int64(outputRate))
        while done < total {
            let n = min(total - done, 4096)
            let position = first + WideArithmetic.mulDiv(done, Int64(outputRate), rate)
            pending.append(.samples(try template.silence(samples: Int32(n)), position: position))
            done += n
        }
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
        guard !window.isEmpty else { return }
        if mute {
            if template == nil { template = frame }
            return
        }
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
}
