import CFFmpeg
import Recipe

/// Decode → trim to the session (sample-accurate) → resample / downmix → frame for the encoder → encode.
final class AudioLane: LaneWork {
    private let env: LaneEnvironment
    private let output: Int
    private let writerInput: Int
    private let track: Track
    private let settings: ResolvedAudioSettings
    private let decoder: Decoder
    private let encoder: Encoder
    private let sourceTimeBase: AVRational
    /// What of the source this lane plays, and where on the output's timeline.
    private let segment: TimeSegment
    private var resampler: Resampler?
    private let fifo: AudioFIFO
    /// Output pts (1/sampleRate) of the next sample the encoder gets; set by the first kept sample.
    private var nextPTS: Int64?
    /// Where the decoder's next frame would start when it carries no timestamp.
    private var expectedStart: MediaTime = .invalid
    private var lastTime: MediaTime = .invalid
    private var done = false
    /// The pts of the first sample given to the encoder: packets ending by then are priming.
    private var firstEncodedPTS: Int64?
    /// The container cannot hide the encoder's priming at all (see `receivePackets`).
    private let dropsPriming: Bool
    private(set) var statistics: LaneStatistics

    init(env: LaneEnvironment, output: Int, track: Track, settings: ResolvedAudioSettings) throws(MediaError) {
        self.env = env
        self.output = output
        self.track = track
        self.settings = settings
        statistics = LaneStatistics(track: track.index)
        segment = try env.segment(for: track.index)
        let stream = env.reader.stream(forOutput: output)
        sourceTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream)
        var c = EncoderConfiguration.audio(settings)
        c.globalHeader = env.writer.needsGlobalHeader
        encoder = try Encoder(c)
        fifo = AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: Int32(settings.channels))
        dropsPriming = env.writer.format == .mkv
        writerInput = try env.writer.addInput(encoder: encoder, rotation: 0, metadata: track.outputMetadata)
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while !done, let packet = try env.reader.next(output) {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let pts = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
                if pts.isNumeric { lastTime = pts }
                statistics.packetsDecoded += 1
                while try !decoder.send(packet) { try receiveFrames() }
                try receiveFrames()
            }
            env.reader.detach(output)
            _ = try decoder.send(nil)
            try receiveFrames()
            if let r = resampler, let tail = try r.convert(nil) { try queue(tail) }
            try encodeQueued(flush: true)
            try encoder.send(nil)
            try receivePackets()
        } catch {
            throw env.explain(error).at(file: env.file, track: track.index, time: lastTime)
        }
    }

    private func receiveFrames() throws(MediaError) {
        while let frame = try decoder.receive() {
            statistics.framesDecoded += 1
            if done || frame.samples <= 0 || frame.sampleRate <= 0 { continue }
            let ts = frame.bestEffortTimestamp != FFmpeg.noPTS ? frame.bestEffortTimestamp : frame.pts
            var start = MediaTime(ts: ts, timeBase: sourceTimeBase)
            if !start.isNumeric { start = expectedStart.isNumeric ? expectedStart : segment.sourceRange.start }
            let rate = Int64(frame.sampleRate)
            expectedStart = start + MediaTime(value: Int64(frame.samples), timescale: frame.sampleRate)
            lastTime = start
            try trimAndQueue(frame, start: start, rate: rate)
        }
    }

    /// Keeps the samples whose time lies in the session range.
    private func trimAndQueue(_ frame: Frame, start: MediaTime, rate: Int64) throws(MediaError) {
        if start >= segment.sourceRange.end { done = true; return }
        let n = Int64(frame.samples)
        let window = segment.sourceSampleWindow(runStart: start, count: n, rate: rate)
        guard !window.isEmpty else { return }
        let from = window.lowerBound, to = window.upperBound
        if nextPTS == nil {
            let firstKept = start + MediaTime(value: from, timescale: Int32(rate))
            nextPTS = try segment.targetSample(ofSource: firstKept, rate: Int32(settings.sampleRate))
        }
        var kept = frame
        if from > 0 || to < n {
            kept = try Frame.audio(samples: Int32(to - from), format: frame.sampleFormat,
                                   layout: &frame.pointer.pointee.ch_layout, sampleRate: frame.sampleRate)
            try FFmpeg.check(av_samples_copy(kept.pointer.pointee.extended_data, frame.pointer.pointee.extended_data,
                                             0, Int32(from), Int32(to - from), frame.channels, frame.sampleFormat),
                             "audio trim")
        }
        if resampler == nil {
            resampler = try Resampler(inRate: frame.sampleRate, inFormat: frame.sampleFormat, inLayout: &frame.pointer.pointee.ch_layout,
                                      outRate: Int32(settings.sampleRate), outFormat: AV_SAMPLE_FMT_FLTP,
                                      outLayout: settings.channelLayout)
        }
        if let converted = try resampler!.convert(kept) { try queue(converted) }
        try encodeQueued(flush: false)
    }

    private func queue(_ frame: Frame) throws(MediaError) {
        try fifo.write(frame)
    }

    private func encodeQueued(flush: Bool) throws(MediaError) {
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while fifo.count >= size || (flush && fifo.count > 0) {
            let n = min(size, fifo.count)
            var layout = resampler!.layout
            let frame = try Frame.audio(samples: n, format: AV_SAMPLE_FMT_FLTP, layout: &layout,
                                        sampleRate: Int32(settings.sampleRate))
            _ = try fifo.read(into: frame, samples: n)
            frame.pts = nextPTS ?? 0
            if firstEncodedPTS == nil { firstEncodedPTS = frame.pts }
            let (next, overflow) = frame.pts.addingReportingOverflow(Int64(n))
            if overflow { throw MediaError(MediaTimeOverflow(saturated: .positiveInfinity, expression: "sample \(frame.pts) + \(n)")) }
            nextPTS = next
            statistics.unitsOut += Int(n)
            try encoder.send(frame)
            try receivePackets()
        }
    }

    private func receivePackets() throws(MediaError) {
        while let packet = try encoder.receive() {
            // The encoder's priming (AAC: 1024 samples before the first one given) is hidden by
            // the MP4/MOV edit list only when it lies before the output's start; Matroska cannot
            // hide it at all. Kept anywhere else, players would play it as sound before the
            // source's first sample (and Matroska would move every other track later to make
            // room for it). There it is left out: the track starts with its first sample, where
            // the source's material starts relative to the other tracks.
            if let first = firstEncodedPTS, dropsPriming || first > 0, packet.pts != FFmpeg.noPTS,
               packet.duration > 0, packet.pts.addingReportingOverflow(packet.duration).partialValue <= first {
                continue
            }
            statistics.packetsWritten += 1
            try env.deliver(packet, timeBase: encoder.timeBase, input: writerInput, lane: output, frames: statistics.packetsWritten)
        }
    }
}
