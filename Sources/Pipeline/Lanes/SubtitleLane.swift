import CFFmpeg
import Recipe

/// Text subtitles in another text format: decode → cut to the session (an event that overlaps
/// the range start begins at it, one past the end is cut there) → encode (mov_text for MP4/MOV,
/// SubRip for Matroska), stamped in milliseconds from the range start.
final class SubtitleLane: LaneWork {
    private let env: LaneEnvironment
    private let output: Int
    private let writerInput: Int
    private let track: Track
    private let decoder: SubtitleDecoder
    private let encoder: SubtitleEncoder
    private let sourceTimeBase: AVRational
    private var lastTime: MediaTime = .invalid
    private(set) var statistics: LaneStatistics

    init(env: LaneEnvironment, output: Int, track: Track, conversion: SubtitleConversion) throws(MediaError) {
        self.env = env
        self.output = output
        self.track = track
        statistics = LaneStatistics(track: track.index)
        let stream = env.reader.stream(forOutput: output)
        sourceTimeBase = stream.pointee.time_base
        decoder = try SubtitleDecoder(stream: stream)
        encoder = try SubtitleEncoder(name: conversion.encoderName, header: decoder.header, globalHeader: env.writer.needsGlobalHeader)
        writerInput = try env.writer.addInput(subtitleEncoder: encoder, metadata: track.outputMetadata)
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while let packet = try env.reader.next(output) {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let at = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
                guard at.isNumeric else { continue }
                lastTime = at
                if at >= env.range.end { break }
                let length = MediaTime(ts: max(packet.duration, 0), timeBase: sourceTimeBase)
                statistics.packetsDecoded += 1
                guard let event = try decoder.decode(packet) else { continue }
                statistics.framesDecoded += 1
                let ms = MediaTime(value: 1, timescale: 1000)
                let start = at + ms * event.startMilliseconds
                let end = event.endMilliseconds > event.startMilliseconds ? at + ms * event.endMilliseconds : at + length
                let shown = max(start, env.range.start), hidden = min(end, env.range.end)
                guard hidden > shown else { continue }
                let pts = try (shown - env.range.start).ts(in: SubtitleEncoder.timeBase)
                let duration = try (hidden - shown).ts(in: SubtitleEncoder.timeBase)
                guard let out = try encoder.encode(event.lines, pts: pts, duration: duration) else { continue }
                statistics.unitsOut += 1
                statistics.packetsWritten += 1
                try env.deliver(out, timeBase: SubtitleEncoder.timeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
            }
            env.reader.detach(output)
        } catch {
            throw error.at(file: env.file, track: track.index, time: lastTime)
        }
    }
}
