import CFFmpeg
import Recipe

/// Decode → (skip what will not be shown) → constant-rate retime or trim → scale → encode.
final class VideoLane: LaneWork {
    private let env: LaneEnvironment
    private let output: Int
    private let writerInput: Int
    private let track: Track
    private let settings: ResolvedVideoSettings
    private let decoder: Decoder
    private let encoder: Encoder
    private let sourceTimeBase: AVRational
    private let targetFormat: AVPixelFormat
    /// What of the source this lane shows, and where on the output's timeline.
    private let segment: TimeSegment
    private let grid: FrameGrid?
    private var retimer: ConstantRateRetimer<Frame>?
    private var selector: SelectiveDecode<Packet>?
    private let droppability: Droppability?
    private var scaler: Scaler?
    /// HDR made SDR (the settings assistant's `hdr: tone-map`).
    private let toneMapper: ToneMapper?
    /// The last picture sent and its scaled copy: repeated slots reuse it.
    private var lastScaled: (source: Frame, scaled: Frame)?
    private var maxPTS: MediaTime = .invalid
    private var lastFrameDuration: MediaTime = .invalid
    private var lastOutputPTS: Int64 = .min
    /// Output pts → duration of the pictures the encoder holds: libx264/libx265 leave packet
    /// durations at 0, and a container then gives the last sample none.
    private var pendingDurations: [Int64: Int64] = [:]
    private var lastTime: MediaTime = .invalid
    /// Source timing: the last frame before the session start that is still on screen there.
    private var leadIn: Frame?
    /// Source timing: the presentation time of the last frame sent.
    private var previousPTS: MediaTime = .invalid
    private var done = false
    private(set) var statistics: LaneStatistics

    /// Opens the decoder and the encoder: formats are settled here, before any data flows.
    init(env: LaneEnvironment, output: Int, track: Track, settings: ResolvedVideoSettings) throws(MediaError) {
        self.env = env
        self.output = output
        self.track = track
        self.settings = settings
        statistics = LaneStatistics(track: track.index)
        segment = try env.segment(for: track.index)
        let stream = env.reader.stream(forOutput: output)
        sourceTimeBase = stream.pointee.time_base
        decoder = try Decoder(stream: stream)
        targetFormat = av_get_pix_fmt(settings.pixelFormat)
        guard targetFormat != AV_PIX_FMT_NONE else {
            throw MediaError(.invalidSettings, "unknown pixel format '\(settings.pixelFormat)'")
        }

        var c = EncoderConfiguration(codecName: settings.encoderName, timeBase: sourceTimeBase)
        if let rate = settings.frameRate {
            grid = segment.sourceGrid(frameDuration: rate.frameDuration)
            c.timeBase = AVRational(num: rate.seconds, den: rate.frames)
            c.frameRate = AVRational(num: rate.frames, den: rate.seconds)
        } else {
            grid = nil
            c.frameRate = stream.pointee.avg_frame_rate
        }
        c.width = Int32(settings.width)
        c.height = Int32(settings.height)
        c.pixelFormat = targetFormat
        c.gopSize = Int32(settings.gopFrames)
        let par = stream.pointee.codecpar.pointee
        // The tags the settings assistant decided: what the encoded pixels are (tone-mapped
        // pictures are BT.709, whatever the source says).
        c.setColor(primaries: settings.colorPrimaries, transfer: settings.colorTransfer,
                   matrix: settings.colorMatrix, range: settings.colorRange)
        c.masteringDisplay = settings.masteringDisplay
        c.contentLightLevel = settings.contentLightLevel
        if let m = settings.toneMapping {
            toneMapper = try ToneMapper(m, width: Int32(settings.width), height: Int32(settings.height), target: targetFormat)
        } else {
            toneMapper = nil
        }
        c.globalHeader = env.writer.needsGlobalHeader
        c.profile = settings.profile
        if let b = settings.bitrate { c.bitRate = Int64(b) }
        if let m = settings.maxBitrate { c.maxBitRate = Int64(m) }
        c.options = Self.encoderOptions(settings)
        encoder = try Encoder(c)
        writerInput = try env.writer.addInput(encoder: encoder, rotation: track.format.rotation,
                                              metadata: track.outputMetadata)

        if let grid {
            retimer = ConstantRateRetimer(grid: grid)
            if env.selectiveDecode {
                let extradata = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
                droppability = Droppability(codecName: track.format.codec, extradata: extradata)
                selector = SelectiveDecode(grid: grid)
            } else {
                droppability = nil
            }
        } else {
            droppability = nil
        }
    }

    static func encoderOptions(_ s: ResolvedVideoSettings) -> [(String, String)] {
        var opts = s.codecOptions
        if let q = s.quality, opts["crf"] == nil { opts["crf"] = formatNumber(q) }
        if s.encoderName == "libx265" {
            // x265 prints its own banner on stderr unless told; keep the terminal for our progress.
            var params = opts["x265-params"].map { [$0] } ?? []
            if !(opts["x265-params"] ?? "").contains("log-level") { params.append("log-level=error") }
            if let l = s.level { params.append("level-idc=\(l)") }
            opts["x265-params"] = params.joined(separator: ":")
        } else if let l = s.level, opts["level"] == nil {
            opts["level"] = l
        }
        return opts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    func run() throws(MediaError) {
        do throws(MediaError) {
            while !done, let packet = try env.reader.next(output) {
                try env.checkCancelled()
                statistics.packetsRead += 1
                let pts = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
                if pts.isNumeric { lastTime = pts }
                if var sel = selector {
                    let droppable = !packet.isKeyframe && (packet.isDisposable || droppability?.isDroppable(packet.bytes) == true)
                    let ready = sel.push(packet, pts: pts, dts: MediaTime(ts: packet.dts, timeBase: sourceTimeBase), droppable: droppable)
                    statistics.packetsSkipped = sel.skipped
                    selector = sel
                    for p in ready where !done { try decode(p) }
                } else {
                    try decode(packet)
                }
            }
            env.reader.detach(output)
            if !done, var sel = selector {
                let rest = sel.finish()
                statistics.packetsSkipped = sel.skipped
                selector = sel
                for p in rest { try decode(p) }
            }
            try drainDecoder()
            try finishTiming()
            try drainEncoder()
        } catch {
            throw env.explain(error).at(file: env.file, track: track.index, time: lastTime)
        }
    }

    private func decode(_ packet: Packet) throws(MediaError) {
        statistics.packetsDecoded += 1
        while try !decoder.send(packet) {
            try receiveFrames()
        }
        try receiveFrames()
    }

    private func drainDecoder() throws(MediaError) {
        _ = try decoder.send(nil)
        try receiveFrames()
    }

    private func receiveFrames() throws(MediaError) {
        while let frame = try decoder.receive() {
            statistics.framesDecoded += 1
            if done { continue }
            let ts = frame.bestEffortTimestamp != FFmpeg.noPTS ? frame.bestEffortTimestamp : frame.pts
            let pts = MediaTime(ts: ts, timeBase: sourceTimeBase)
            guard pts.isNumeric else { continue }
            lastTime = pts
            if frame.duration > 0 { lastFrameDuration = MediaTime(ts: frame.duration, timeBase: sourceTimeBase) }
            if !maxPTS.isNumeric || pts > maxPTS { maxPTS = pts }
            try handle(frame, pts: pts)
        }
    }

    private func handle(_ frame: Frame, pts: MediaTime) throws(MediaError) {
        if var r = retimer {
            let slots = r.push(frame, pts: pts)
            retimer = r
            for (picture, k) in slots { try emit(picture, pts: k, duration: 1) }
            if let grid, !grid.inSession(r.nextSlot) { done = true }
            return
        }
        // Source timing, trimmed to the session. A trim starts on a frame start (TrimSnap); the
        // frame before it is shown from the start only when no frame starts exactly there (the
        // session starts before the video, or the snap found no frame), so there is no sliver.
        let range = segment.sourceRange
        if pts >= range.end { done = true; return }
        if pts < range.start {
            let duration = frame.duration > 0 ? MediaTime(ts: frame.duration, timeBase: sourceTimeBase) : .positiveInfinity
            leadIn = pts + duration > range.start ? frame : nil
            return
        }
        if let held = leadIn {
            leadIn = nil
            if pts > range.start {
                let start = try segment.targetTicks(ofSource: range.start, in: sourceTimeBase)
                try emit(held, pts: start, duration: (try? segment.targetLengthTicks(from: range.start, to: pts, in: sourceTimeBase)) ?? 0)
            }
        }
        let out = try segment.targetTicks(ofSource: pts, in: sourceTimeBase)
        guard out > lastOutputPTS else { return }
        try emit(frame, pts: out, duration: duration(of: frame, at: pts))
        previousPTS = pts
    }

    /// How long a frame is shown (source time base). Only the last frame's duration is kept by
    /// the container, and a last sample of length 0 is dropped by players: where the source
    /// gives none (Matroska), the gap before it stands in (or the session end, or the average),
    /// and a trim's end, which is the next frame's start, bounds it.
    private func duration(of frame: Frame, at pts: MediaTime) -> Int64 {
        var d = frame.duration > 0 ? MediaTime(ts: frame.duration, timeBase: sourceTimeBase) : .invalid
        if !d.isNumeric, previousPTS.isNumeric, pts > previousPTS { d = pts - previousPTS }
        let end = segment.sourceRange.end
        if end.isNumeric, pts < end, !d.isNumeric || pts + d > end { d = segment.sourceRemaining(from: pts) }
        if !d.isNumeric, let avg = track.format.averageFrameDuration { d = avg }
        return d.isNumeric ? (try? segment.targetLengthTicks(of: d, in: sourceTimeBase)) ?? 0 : 0
    }

    /// The end of the last picture, for the slots after the last frame.
    private func finishTiming() throws(MediaError) {
        if let held = leadIn {
            // Nothing came after the frame on screen at the start: it is all the range shows.
            leadIn = nil
            let start = MediaTime(ts: held.bestEffortTimestamp != FFmpeg.noPTS ? held.bestEffortTimestamp : held.pts, timeBase: sourceTimeBase)
            var d = duration(of: held, at: start)
            if start.isNumeric, let shift = try? segment.targetLengthTicks(from: start, to: segment.sourceRange.start, in: sourceTimeBase) {
                d = max(0, d - shift)
            }
            try emit(held, pts: try segment.targetTicks(ofSource: segment.sourceRange.start, in: sourceTimeBase), duration: d)
        }
        guard var r = retimer, !done || r.grid.inSession(r.nextSlot) else { return }
        var frameDuration = lastFrameDuration
        if !frameDuration.isNumeric, let avg = track.format.averageFrameDuration { frameDuration = avg }
        if !frameDuration.isNumeric { frameDuration = r.grid.frameDuration }
        let end = maxPTS.isNumeric ? maxPTS + frameDuration : .negativeInfinity
        let slots = r.finish(sourceEnd: end)
        retimer = r
        for (picture, k) in slots { try emit(picture, pts: k, duration: 1) }
    }

    /// Sends one picture to the encoder at `pts`, lasting `duration` (encoder time base).
    private func emit(_ source: Frame, pts: Int64, duration: Int64) throws(MediaError) {
        let scaled: Frame
        if let last = lastScaled, last.source === source {
            scaled = last.scaled
        } else {
            scaled = try convert(source)
            lastScaled = (source, scaled)
        }
        let frame = try scaled.reference()
        frame.pts = pts
        // Decoded pictures carry their old I/P/B types; the encoder must choose its own.
        frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        lastOutputPTS = pts
        if duration > 0 { pendingDurations[pts] = duration }
        statistics.unitsOut += 1
        try encoder.send(frame)
        try receivePackets()
    }

    private func convert(_ frame: Frame) throws(MediaError) -> Frame {
        if let toneMapper { return try toneMapper.map(frame) }
        if frame.width == Int32(settings.width) && frame.height == Int32(settings.height) && frame.pixelFormat == targetFormat {
            return frame
        }
        if scaler == nil || !scaler!.matches(frame) {
            scaler = try Scaler(from: (frame.width, frame.height, frame.pixelFormat),
                                to: (Int32(settings.width), Int32(settings.height), targetFormat))
        }
        return try scaler!.scale(frame)
    }

    private func drainEncoder() throws(MediaError) {
        try encoder.send(nil)
        try receivePackets()
    }

    private func receivePackets() throws(MediaError) {
        while let packet = try encoder.receive() {
            if let d = pendingDurations.removeValue(forKey: packet.pts), packet.duration <= 0 { packet.duration = d }
            statistics.packetsWritten += 1
            try env.deliver(packet, timeBase: encoder.timeBase, input: writerInput, lane: output, frames: statistics.unitsOut)
        }
    }
}
