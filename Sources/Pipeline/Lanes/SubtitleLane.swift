import Recipe

/// Subtitles cut to the session: an event that overlaps the range start begins at it, one past
/// the end is cut there. Text in another text format is decoded and encoded again (mov_text for
/// MP4/MOV, SubRip for Matroska), stamped in milliseconds from the range start; copied samples
/// (`decode: false`, bitmap subtitles) keep their bytes and get the cut times, which in every
/// container that holds subtitles are the container's, not the sample's.
///
/// When the session starts later than the file, the shared reader is positioned at the video's
/// sync sample before the range start, and a Matroska file is sought by cluster: a subtitle
/// shown across the range start but read before that point would never reach this lane. Such a
/// lane reads its track from the file's start in a demuxer of its own (subtitle packets are few;
/// the other streams are discarded).
final class SubtitleLane: LaneWork {
    private let env: LaneEnvironment
    /// The lane's number (its writer input and progress line).
    private let output: Int
    /// Where its packets come from.
    private let tap: PacketTap
    private let writerInput: Int
    private let track: Track
    /// nil: samples are copied.
    private let codecs: (decoder: SubtitleDecoder, encoder: SubtitleEncoder)?
    private let sourceTimeBase: TimeBase
    /// What of the source is shown, and where on the output's timeline.
    private let segment: TimeSegment
    private var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics
    /// Reads the track from the file's start (see above), instead of the shared reader.
    private let fromStart: Bool

    /// `conversion` nil: the samples are copied as they are.
    /// `readerOutput`: the reader output it reads, where a run of several outputs numbers them (nil: `output`).
    init(env: LaneEnvironment, output: Int, track: Track, segment: TimeSegment, conversion: SubtitleConversion?, fromStart: Bool,
         readerOutput: Int? = nil) throws(MediaError) {
        self.env = env
        self.fromStart = fromStart
        self.output = output
        tap = try env.readers.tap(group: 0, output: readerOutput ?? output)
        self.track = track
        statistics = LaneStatistics(track: track.index)
        self.segment = segment
        let stream = tap.stream
        sourceTimeBase = stream.timeBase
        if let conversion {
            let decoder = try SubtitleDecoder(stream: stream)
            let encoder = try SubtitleEncoder(name: conversion.encoderName, header: decoder.header, globalHeader: env.writer.needsGlobalHeader)
            codecs = (decoder, encoder)
            writerInput = try env.writer.addInput(subtitleEncoder: encoder, metadata: track.outputMetadata)
        } else {
            codecs = nil
            writerInput = try env.writer.addPassthroughInput(from: stream, rotation: 0, metadata: track.outputMetadata)
        }
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            let own: InputContainer?
            if fromStart {
                tap.detach()
                // Packets only (the decoder is made from the probed stream): no stream information.
                let input = try InputContainer(path: env.file, streamInformation: false)
                input.readOnly(stream: track.index)
                own = input
            } else {
                own = nil
            }
            func next() throws(MediaError) -> Packet? {
                guard let own else { return try tap.next() }
                let packet = try Packet()
                while try own.read(into: packet) {
                    if Int(packet.streamIndex) == track.index { return packet }
                }
                return nil
            }
            while let packet = try next() {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let at = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
                guard at.isNumeric else { continue }
                lastTime = at
                let range = segment.sourceRange
                if at >= range.end { break }
                let length = MediaTime(ts: max(packet.duration, 0), timeBase: sourceTimeBase)
                guard let codecs else {
                    try copy(packet, at: at, length: length)
                    continue
                }
                statistics.packetsDecoded += 1
                guard let event = try codecs.decoder.decode(packet) else { continue }
                statistics.framesDecoded += 1
                let ms = MediaTime(value: 1, timescale: 1000)
                let start = at + ms * event.startMilliseconds
                let end = event.endMilliseconds > event.startMilliseconds ? at + ms * event.endMilliseconds : at + length
                let shown = max(start, range.start), hidden = min(end, range.end)
                guard hidden > shown else { continue }
                let pts = try segment.targetTicks(ofSource: shown, in: SubtitleEncoder.timeBase)
                let duration = try segment.targetLengthTicks(of: hidden - shown, in: SubtitleEncoder.timeBase)
                guard let out = try codecs.encoder.encode(event.lines, pts: pts, duration: duration) else { continue }
                statistics.unitsOut += 1
                statistics.packetsWritten += 1
                try env.deliver(out, timeBase: SubtitleEncoder.timeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
            }
            tap.detach()
        } catch {
            throw error.at(file: env.file, track: track.index, time: lastTime)
        }
    }

    /// A copied sample with the cut times. One of unknown length (a PGS display set, which lasts
    /// until the next) is kept when it starts in the range.
    private func copy(_ packet: Packet, at: MediaTime, length: MediaTime) throws(MediaError) {
        let known = packet.duration > 0
        let end = known ? at + length : at
        let range = segment.sourceRange
        let shown = max(at, range.start), hidden = min(end, range.end)
        guard known ? hidden > shown : at >= range.start else { return }
        packet.pts = try segment.targetTicks(ofSource: shown, in: sourceTimeBase)
        packet.dts = packet.pts
        if known { packet.duration = try segment.targetLengthTicks(of: hidden - shown, in: sourceTimeBase) }
        statistics.unitsOut += 1
        statistics.packetsWritten += 1
        try env.deliver(packet, timeBase: sourceTimeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
    }
}
