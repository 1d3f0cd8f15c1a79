import CFFmpeg
import Recipe

/// Appends generated pictures and audio samples to a new file through the project's own encoders
/// and writer (AVAssetWriterInputPixelBufferAdaptor in our words). Tests and samples make their
/// media with it. Used from one thread. It may write several video and audio tracks (each with
/// its own format), numbered per kind from 0 in the order given; the video tracks come first in
/// the file, then the audio tracks.
public final class FrameSource {
    private struct VideoTrack {
        let encoder: Encoder
        let input: Int
        let format: GeneratedVideoFormat
        let pixelFormat: AVPixelFormat
        let bitDepth: Int
    }
    private struct AudioTrack {
        let encoder: Encoder
        let input: Int
        let format: GeneratedAudioFormat
        var fifo: AudioFIFO
        var layout: AVChannelLayout
        var samplesQueued: Int64 = 0
        var samplesWritten: Int64 = 0
    }

    private let writer: AssetWriter
    private let path: String
    private let temp: String
    private var videos: [VideoTrack] = []
    private var audios: [AudioTrack] = []
    private var finished = false

    /// One track of each kind at most (nil: none).
    public convenience init(path: String, format: ContainerFormat? = nil, video v: GeneratedVideoFormat?, audio a: GeneratedAudioFormat?,
                            metadata: [String: String] = [:], kept: KeptItems? = nil, subtitle: GeneratedSubtitleFormat? = nil) throws(MediaError) {
        try self.init(path: path, format: format, videos: v.map { [$0] } ?? [], audios: a.map { [$0] } ?? [],
                      metadata: metadata, kept: kept, subtitle: subtitle)
    }

    /// Any number of video and audio tracks; `appendPicture(track:)` and `appendAudio(track:)`
    /// name them by their place in `videos` and `audios`.
    public init(path: String, format: ContainerFormat? = nil, videos: [GeneratedVideoFormat], audios: [GeneratedAudioFormat],
                metadata: [String: String] = [:], kept: KeptItems? = nil, subtitle: GeneratedSubtitleFormat? = nil) throws(MediaError) {
        self.path = path
        temp = TempFile.path(for: path)
        let fmt = format ?? ContainerFormat(pathExtension: FilePaths.pathExtension(of: path)) ?? .mp4
        writer = try AssetWriter(path: temp, format: fmt)
        for v in videos {
            let pix = av_get_pix_fmt(v.pixelFormat)
            guard pix != AV_PIX_FMT_NONE, let desc = av_pix_fmt_desc_get(pix) else {
                throw MediaError(.invalidSettings, "unknown pixel format '\(v.pixelFormat)'")
            }
            let tb = v.timescale.map { TimeBase(num: 1, den: $0) } ?? TimeBase(framesOf: v.frameRate)
            guard let family = VideoFamily.of(v.codec) else { throw MediaError(.invalidSettings, "a generated video track needs a codec, not copy") }
            let encoder = family.encoder(where: CodecSupport.canEncode)
            var c = EncoderConfiguration(codecName: encoder.name, timeBase: tb)
            c.width = Int32(v.width)
            c.height = Int32(v.height)
            c.pixelFormat = pix
            c.frameRate = v.frameRate
            c.sampleAspect = v.pixelAspect
            c.fieldOrder = v.fieldOrder
            c.gopSize = Int32(v.gop ?? 0)
            if let n = v.colorPrimaries { c.colorPrimaries = AVColorPrimaries(rawValue: UInt32(bitPattern: av_color_primaries_from_name(n))) }
            if let n = v.colorTransfer { c.colorTransfer = AVColorTransferCharacteristic(rawValue: UInt32(bitPattern: av_color_transfer_from_name(n))) }
            if let n = v.colorMatrix { c.colorSpace = AVColorSpace(rawValue: UInt32(bitPattern: av_color_space_from_name(n))) }
            c.setChromaLocation(v.chromaLocation)
            // "J" formats are full range; the others are written limited.
            c.colorRange = v.pixelFormat.hasPrefix("yuvj") ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            c.masteringDisplay = v.masteringDisplay
            c.contentLightLevel = v.contentLightLevel
            c.globalHeader = writer.needsGlobalHeader
            let opts = encoder.options(v.codecOptions, quality: v.quality, level: nil)
            c.options = opts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            let enc = try Encoder(c)
            let input = try writer.addInput(encoder: enc, rotation: v.rotation, metadata: v.metadata)
            self.videos.append(VideoTrack(encoder: enc, input: input, format: v, pixelFormat: pix, bitDepth: Int(desc.pointee.comp.0.depth)))
        }
        for a in audios {
            var c = EncoderConfiguration(codecName: AudioFamily.aac.encoder(where: CodecSupport.canEncode), timeBase: TimeBase(num: 1, den: Int32(a.sampleRate)))
            c.sampleRate = Int32(a.sampleRate)
            c.sampleFormat = AV_SAMPLE_FMT_FLTP
            c.channels = Int32(a.channels)
            c.bitRate = Int64(a.bitrate)
            c.globalHeader = writer.needsGlobalHeader
            let enc = try Encoder(c)
            let input = try writer.addInput(encoder: enc, rotation: 0, metadata: a.metadata)
            var layout = AVChannelLayout()
            av_channel_layout_default(&layout, Int32(a.channels))
            self.audios.append(AudioTrack(encoder: enc, input: input, format: a,
                                          fifo: try AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: Int32(a.channels)), layout: layout))
        }
        if let subtitle {
            let enc = try SubtitleEncoder(name: subtitle.codec, header: Array(GeneratedSubtitleFormat.assHeader.utf8), globalHeader: writer.needsGlobalHeader)
            subtitles = (enc, try writer.addInput(subtitleEncoder: enc, metadata: subtitle.metadata))
        }
        // `kept`: chapters, cover art and metadata as a plan would keep them (test media).
        let negative = videos.contains { $0.negativeCompositionOffsets }
        if let kept {
            try writer.start(kept: kept, optimizeForNetwork: true, negativeCompositionOffsets: negative)
        } else {
            try writer.start(metadata: metadata, optimizeForNetwork: true, negativeCompositionOffsets: negative)
        }
    }

    deinit {
        if !finished { TempFile.remove(temp) }
    }

    /// Appends one picture to video track `track` shown from `time` for `duration` (default: one
    /// frame at the nominal rate); `draw` fills it.
    public func appendPicture(track: Int = 0, at time: MediaTime, duration: MediaTime? = nil, draw: (borrowing PictureBuffer) -> Void) throws(MediaError) {
        guard videos.indices.contains(track) else { throw MediaError(.invalidSettings, "this FrameSource has no video track \(track)") }
        let v = videos[track]
        let frame = try Frame.video(width: Int32(v.format.width), height: Int32(v.format.height), format: v.pixelFormat)
        let picture = PictureBuffer(frame: frame, width: v.format.width, height: v.format.height, bitDepth: v.bitDepth)
        draw(picture)
        if let o = v.format.fieldOrder, o.isInterlaced { frame.markInterlaced(topFieldFirst: o.topFieldFirst) }
        frame.pts = try time.ts(in: v.encoder.timeBase)
        // Encoders leave packet durations at 0; the writer needs them for the last sample.
        pictureDurations[PicturePlace(input: v.input, pts: frame.pts)] = try (duration ?? v.format.frameRate.frameDuration).ts(in: v.encoder.timeBase)
        try v.encoder.send(frame)
        try drain(v.encoder, input: v.input)
    }

    private struct PicturePlace: Hashable { let input: Int; let pts: Int64 }
    private var pictureDurations: [PicturePlace: Int64] = [:]
    private var subtitles: (encoder: SubtitleEncoder, input: Int)?
    private var subtitleEvents = 0

    /// Appends a subtitle shown from `time` for `duration` (in time order with the others).
    public func appendSubtitle(_ text: String, at time: MediaTime, duration: MediaTime) throws(MediaError) {
        guard let s = subtitles else { throw MediaError(.invalidSettings, "this FrameSource has no subtitle track") }
        // An ASS event as FFmpeg's decoders give them: ReadOrder, Layer, Style, Name, margins, Effect, Text.
        let event = "\(subtitleEvents),0,Default,,0,0,0,,\(text)"
        subtitleEvents += 1
        guard let packet = try s.encoder.encode([event], pts: try time.ts(in: SubtitleEncoder.timeBase),
                                                duration: try duration.ts(in: SubtitleEncoder.timeBase)) else { return }
        try writer.append(packet, to: s.input)
    }

    /// Appends `count` samples to audio track `track`, following the ones already appended to it;
    /// `sample(channel, n)` gives sample n (counted from the start of the track) of a channel, in -1…1.
    public func appendAudio(track: Int = 0, count: Int, sample: (Int, Int64) -> Float) throws(MediaError) {
        guard audios.indices.contains(track) else { throw MediaError(.invalidSettings, "this FrameSource has no audio track \(track)") }
        var a = audios[track]
        let frame = try Frame.audio(samples: Int32(count), format: AV_SAMPLE_FMT_FLTP, layout: &a.layout,
                                    sampleRate: Int32(a.format.sampleRate))
        for ch in 0..<a.format.channels {
            let p = UnsafeMutableRawPointer(frame.plane(Int32(ch))!).assumingMemoryBound(to: Float.self)
            for i in 0..<count { p[i] = sample(ch, a.samplesQueued + Int64(i)) }
        }
        a.samplesQueued += Int64(count)
        try a.fifo.write(frame)
        audios[track] = a
        try encodeAudio(track, flush: false)
    }

    private func encodeAudio(_ track: Int, flush: Bool) throws(MediaError) {
        var a = audios[track]
        defer { audios[track] = a }
        let size = a.encoder.frameSize > 0 ? a.encoder.frameSize : 1024
        while a.fifo.count >= size || (flush && a.fifo.count > 0) {
            let n = min(size, a.fifo.count)
            let frame = try Frame.audio(samples: n, format: AV_SAMPLE_FMT_FLTP, layout: &a.layout, sampleRate: Int32(a.format.sampleRate))
            _ = try a.fifo.read(into: frame, samples: n)
            frame.pts = a.format.startSample + a.samplesWritten
            a.samplesWritten += Int64(n)
            try a.encoder.send(frame)
            try drain(a.encoder, input: a.input)
        }
    }

    private func drain(_ encoder: Encoder, input: Int) throws(MediaError) {
        let isVideo = videos.contains { $0.input == input }
        while let packet = try encoder.receive() {
            if isVideo, packet.duration <= 0, let d = pictureDurations.removeValue(forKey: PicturePlace(input: input, pts: packet.pts)) {
                packet.duration = d
            }
            try writer.append(packet, to: input)
        }
    }

    /// Drains the encoders, writes the trailer and moves the file into place.
    public func finish() throws(MediaError) {
        for v in videos {
            try v.encoder.send(nil)
            try drain(v.encoder, input: v.input)
        }
        for k in audios.indices {
            try encodeAudio(k, flush: true)
            try audios[k].encoder.send(nil)
            try drain(audios[k].encoder, input: audios[k].input)
        }
        try writer.finish()
        try TempFile.commit(temp, to: path, overwrite: true)
        finished = true
    }
}
