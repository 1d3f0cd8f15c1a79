import Recipe

/// A subtitle track's samples cut to the session: an event that overlaps the range start begins
/// at it, one past the end is cut there. Text in another text format is decoded and encoded
/// again (mov_text for MP4/MOV, SubRip for Matroska), stamped in milliseconds from the range
/// start; copied samples (`decode: false`, bitmap subtitles) keep their bytes and get the cut
/// times, which in every container that holds subtitles are the container's, not the sample's.
///
/// When the session starts later than the file, the shared reader is positioned at the video's
/// sync sample before the range start, and a Matroska file is sought by cluster: a subtitle
/// shown across the range start but read before that point would never reach this track. Such a
/// source reads its track from the file's start in a demuxer of its own (subtitle packets are
/// few; the other streams are discarded).
final class SubtitleSource: PacketSourceStage {
    private let env: LaneEnvironment
    /// Where its packets come from.
    private let tap: PacketTap
    private let track: Track
    /// nil: samples are copied.
    let codecs: (decoder: SubtitleDecoder, encoder: SubtitleEncoder)?
    private let sourceTimeBase: TimeBase
    /// What of the source is shown, and where on the output's timeline.
    private let segment: TimeSegment
    private(set) var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics
    /// Reads the track from the file's start (see above), instead of the shared reader.
    private let fromStart: Bool
    /// The demuxer of its own, once opened.
    private var own: InputContainer?
    private var done = false

    /// `conversion` nil: the samples are copied as they are.
    init(env: LaneEnvironment, track: Track, segment: TimeSegment, conversion: SubtitleConversion?, fromStart: Bool,
         readerOutput: Int) throws(MediaError) {
        self.env = env
        self.fromStart = fromStart
        tap = try env.readers.tap(group: 0, output: readerOutput)
        self.track = track
        statistics = LaneStatistics(track: track.index)
        self.segment = segment
        sourceTimeBase = tap.stream.timeBase
        if let conversion {
            let decoder = try SubtitleDecoder(stream: tap.stream)
            let encoder = try SubtitleEncoder(name: conversion.encoderName, header: decoder.header, globalHeader: env.writer.needsGlobalHeader)
            codecs = (decoder, encoder)
        } else {
            codecs = nil
        }
    }

    var stream: SourceStream { tap.stream }
    var file: String? { env.file }

    /// Adds the track's writer input: its encoder's, or the copied stream's.
    func addInput(metadata: [String: String]) throws(MediaError) -> Int {
        if let codecs { return try env.writer.addInput(subtitleEncoder: codecs.encoder, metadata: metadata) }
        return try env.writer.addPassthroughInput(from: tap.stream, rotation: 0, metadata: metadata)
    }

    func next() throws(MediaError) -> TimedPacket? {
        while !done, let packet = try read() {
            try env.checkCancelled()
            statistics.packetsRead += 1
            let at = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
            guard at.isNumeric else { continue }
            lastTime = at
            if at >= segment.sourceRange.end { break }
            let length = MediaTime(ts: max(packet.duration, 0), timeBase: sourceTimeBase)
            if let unit = try (codecs == nil ? copy(packet, at: at, length: length) : recode(packet, at: at, length: length)) {
                return unit
            }
        }
        done = true
        tap.detach()
        return nil
    }

    /// The track's next sample: from the shared reader, or from the file's start in its own demuxer.
    private func read() throws(MediaError) -> Packet? {
        guard fromStart else { return try tap.next() }
        if own == nil {
            tap.detach()
            // Packets only (the decoder is made from the probed stream): no stream information.
            let input = try InputContainer(path: env.file, streamInformation: false)
            input.readOnly(stream: track.index)
            own = input
        }
        guard let own else { return nil }
        let packet = try Packet()
        while try own.read(into: packet) {
            if Int(packet.streamIndex) == track.index { return packet }
        }
        return nil
    }

    /// The event decoded, cut to the range and encoded again; nil: nothing of it is shown.
    private func recode(_ packet: Packet, at: MediaTime, length: MediaTime) throws(MediaError) -> TimedPacket? {
        guard let codecs else { return nil }
        statistics.packetsDecoded += 1
        guard let event = try codecs.decoder.decode(packet) else { return nil }
        statistics.framesDecoded += 1
        let ms = MediaTime(value: 1, timescale: 1000)
        let start = at + ms * event.startMilliseconds
        let end = event.endMilliseconds > event.startMilliseconds ? at + ms * event.endMilliseconds : at + length
        let range = segment.sourceRange
        let shown = max(start, range.start), hidden = min(end, range.end)
        guard hidden > shown else { return nil }
        let pts = try segment.targetTicks(ofSource: shown, in: SubtitleEncoder.timeBase)
        let duration = try segment.targetLengthTicks(of: hidden - shown, in: SubtitleEncoder.timeBase)
        guard let out = try codecs.encoder.encode(event.lines, pts: pts, duration: duration) else { return nil }
        return TimedPacket(packet: out, timeBase: SubtitleEncoder.timeBase)
    }

    /// A copied sample with the cut times. One of unknown length (a PGS display set, which lasts
    /// until the next) is kept when it starts in the range.
    private func copy(_ packet: Packet, at: MediaTime, length: MediaTime) throws(MediaError) -> TimedPacket? {
        let known = packet.duration > 0
        let end = known ? at + length : at
        let range = segment.sourceRange
        let shown = max(at, range.start), hidden = min(end, range.end)
        guard known ? hidden > shown : at >= range.start else { return nil }
        packet.pts = try segment.targetTicks(ofSource: shown, in: sourceTimeBase)
        packet.dts = packet.pts
        if known { packet.duration = try segment.targetLengthTicks(of: hidden - shown, in: sourceTimeBase) }
        return TimedPacket(packet: packet, timeBase: sourceTimeBase)
    }
}
