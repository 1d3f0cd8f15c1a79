import Recipe

/// Pictures on the output's timeline → tone-map or scale → encoder → writer input (of each
/// output sharing the encode).
final class VideoSink: SinkStage {
    /// What the pictures that reach the sink still need.
    enum Pictures {
        /// One file's, as decoded: tone-mapped or scaled to the output's size; its display
        /// matrix kept in the output.
        case asDecoded
        /// Several files': each (tone-mapped at its own size, then) turned upright and fitted into
        /// the render size; no display matrix.
        case fitted
        /// A compositor's, finished (each picture tone-mapped and placed already); no display matrix.
        case finished
    }

    private var files: EncodedOutputs
    private let settings: ResolvedVideoSettings
    private let encoder: Encoder
    private let targetFormat: PixelFormat
    private var scaler: Scaler?
    /// HDR made SDR (the settings assistant's `hdr: tone-map`).
    private let toneMapper: ToneMapper?
    /// A composition of several files: every picture turned upright and fitted into the render
    /// size, aspect kept, on black (the output then carries no display matrix).
    private let fitter: PictureFitter?
    /// The faded pictures' memory, reused frame to frame.
    private let fadedPictures = PicturePools(capacity: 1)
    /// With a fitter: each HDR picture tone-mapped at its own size before it is fitted.
    private let fittedToneMapping: PictureToneMapping?
    /// The last picture sent and its scaled copy: repeated slots reuse it.
    private var lastScaled: (source: Frame, scaled: Frame)?
    /// Output pts → duration of the pictures the encoder holds: libx264/libx265 leave packet
    /// durations at 0, and a container then gives the last sample none.
    private var pendingDurations: [Int64: Int64] = [:]
    /// The composition's fades and dips towards a colour (by each picture's time); empty: none.
    private let fades: [PictureFade]
    private let timeBase: TimeBase
    /// The encoder's: `timeBase`, or one tick per frame for an encoder whose two passes count
    /// ticks as frames (`TwoPass.countsTicksAsFrames`); pictures are stamped in it.
    private let encoderTimeBase: TimeBase
    /// The pictures that start the output's fragments (`KeyframeGrid`); nil: the encoder chooses.
    private var gridKeyframes: GridKeyframes?
    /// Stills of the composition this track plays (an image output each), taken from the
    /// pictures it is given.
    private let stills: [ComposedStillTap]
    private(set) var unitsOut = 0
    var packetsWritten: Int { files.files[0].packetsWritten }
    var perDestination: [(unitsOut: Int, packetsWritten: Int)] { files.counts(unitsOut: unitsOut) }
    let encoders = 1

    /// Opens the encoder (time base and rate: those of `input`, the edge into it the plan agreed
    /// on) and adds it as an input of each destination's writer (the plan shares one encode
    /// among outputs alike: `OutputSet`).
    init(_ destinations: [SinkDestination], settings: ResolvedVideoSettings,
         input: PictureFormat, pictures: Pictures = .asDecoded,
         fades: [PictureFade] = [], stills: [ComposedStillTap] = []) throws(MediaError) {
        let timeBase = TimeBase(input.timeBase), frameRate = input.frameRate
        self.fades = fades
        self.stills = stills
        self.timeBase = timeBase
        self.settings = settings
        gridKeyframes = settings.keyframeGrid.map { GridKeyframes($0, timeBase: timeBase) }
        guard let format = PixelFormat(named: settings.pixelFormat) else {
            throw MediaError(.invalidSettings, "unknown pixel format '\(settings.pixelFormat)'")
        }
        targetFormat = format
        let ticksAsFrames = settings.ratePass != nil && VideoEncoder.named(settings.encoderName)?.twoPass.countsTicksAsFrames == true
        encoderTimeBase = ticksAsFrames ? frameRate.map { TimeBase(framesOf: $0) } ?? timeBase : timeBase
        var c = Self.configuration(settings, format: targetFormat, timeBase: encoderTimeBase, frameRate: frameRate)
        if let m = settings.toneMapping, pictures == .asDecoded {
            toneMapper = try ToneMapper(m, width: Int32(settings.width), height: Int32(settings.height), target: targetFormat,
                                        fields: settings.fieldOrder != nil)
        } else {
            toneMapper = nil
        }
        fittedToneMapping = pictures == .fitted ? settings.toneMapping.map { PictureToneMapping($0, target: format) } : nil
        fitter = pictures == .fitted ? try PictureFitter(width: Int32(settings.width), height: Int32(settings.height), format: targetFormat) : nil
        c.globalHeader = destinations[0].env.writer.needsGlobalHeader
        let encoder = try destinations[0].env.encoders.open(c)
        self.encoder = encoder
        files = try EncodedOutputs(destinations) { (d) throws(MediaError) in
            try d.env.writer.addInput(encoder: encoder, rotation: pictures == .asDecoded ? d.track.format.rotation : 0,
                                      metadata: d.track.outputMetadata)
        }
    }

    /// How the encoder is opened for `s`, its pictures in `format` stamped in `timeBase`.
    static func configuration(_ s: ResolvedVideoSettings, format: PixelFormat, timeBase: TimeBase, frameRate: FrameRate?) -> EncoderConfiguration {
        var c = EncoderConfiguration(codecName: s.encoderName, timeBase: timeBase)
        c.frameRate = frameRate
        c.width = Int32(s.width)
        c.height = Int32(s.height)
        c.sampleAspect = s.pixelAspect
        c.setPixelFormat(format)
        c.gopSize = Int32(s.gopFrames)
        // The tags the settings assistant decided: what the encoded pixels are (tone-mapped
        // pictures are BT.709, whatever the source says).
        c.setColor(primaries: s.colorPrimaries, transfer: s.colorTransfer, matrix: s.colorMatrix, range: s.colorRange)
        c.setChromaLocation(s.chromaLocation)
        c.fieldOrder = s.fieldOrder
        c.masteringDisplay = s.masteringDisplay
        c.contentLightLevel = s.contentLightLevel
        c.profile = s.profile
        if let b = s.bitrate { c.bitRate = Int64(b) }
        if let m = s.maxBitrate { c.maxBitRate = Int64(m) }
        c.options = encoderOptions(s)
        c.ratePass = s.ratePass
        if let t = s.encoderThreads { c.threads = Int32(t) }
        return c
    }

    /// The encoder's options (`VideoEncoder.options`), in a stable order; with a keyframe grid,
    /// those that make a forced keyframe an IDR (`VideoEncoder.keyframes`), whatever the recipe
    /// says (a parameter string's last entry for a key wins).
    static func encoderOptions(_ s: ResolvedVideoSettings) -> [(String, String)] {
        var opts = s.codecOptions
        let encoder = VideoEncoder.named(s.encoderName)
        if let encoder { opts = encoder.options(opts, quality: s.quality, level: s.encoderLevel) }
        // A chunk encoder's share of the cores, where the thread count alone does not bound the library.
        if let t = s.encoderThreads, let key = encoder?.threadParameter, let parameters = encoder?.parameters {
            opts = parameters.adding(["\(key)=\(t)"], to: opts)
        }
        if s.keyframeGrid != nil, case .pictureType(let forcing, let entries)? = encoder?.keyframes {
            opts.merge(forcing) { _, forced in forced }
            if let parameters = encoder?.parameters { opts = parameters.adding(entries, to: opts) }
        }
        return opts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Sends one picture to the encoder at its output pts, lasting its duration.
    func consume(_ timed: TimedFrame) throws(MediaError) {
        guard case .picture(let source, let pts, let duration) = timed else { return }
        let scaled: Frame
        if let last = lastScaled, last.source === source {
            scaled = last.scaled
        } else {
            scaled = try convert(source)
            lastScaled = (source, scaled)
        }
        var frame = try scaled.reference()
        if !fades.isEmpty {
            // At the picture's start on the timeline; a new picture (the scaled one may be shown again).
            let (amount, color) = fades.amount(atSeconds: MediaTime(ts: pts, timeBase: timeBase).seconds)
            if amount < 1 { frame = try scaled.faded(amount, toward: color, from: fadedPictures) }
        }
        // The picture as it came, before this output's scaling and fades: a still draws it at
        // the composition's render size (`ComposedStillTap`).
        for tap in stills { try tap.take(source, at: MediaTime(ts: pts, timeBase: timeBase)) }
        let stamp = try encoderStamp(pts)
        frame.pts = stamp
        frame.clearPictureType()
        if gridKeyframes?.startsGOP(at: pts) == true { frame.forceKeyframe() }
        // Kept fields: the encoder codes each picture by the field order it states, whatever a scaler left.
        if let o = settings.fieldOrder { frame.markInterlaced(topFieldFirst: o.topFieldFirst) }
        if duration > 0 { pendingDurations[stamp] = try encoderStamp(pts + duration) - stamp }
        unitsOut += 1
        try encoder.send(frame)
        try receivePackets()
    }

    /// `pts` (the sink's time base) in the encoder's.
    private func encoderStamp(_ pts: Int64) throws(MediaError) -> Int64 {
        encoderTimeBase == timeBase ? pts : try MediaTime(ts: pts, timeBase: timeBase).ts(in: encoderTimeBase)
    }

    func finish() throws(MediaError) {
        for tap in stills { try tap.finish() }
        try encoder.send(nil)
        try receivePackets()
        try encoder.writeStatistics()
    }

    private func convert(_ frame: Frame) throws(MediaError) -> Frame {
        if let fitter {
            let display = frame.display ?? (0, .square)
            let picture = try fittedToneMapping?.map(frame) ?? frame
            return try fitter.fit(picture, rotation: display.rotation, pixelAspect: display.pixelAspect)
        }
        if let toneMapper { return try toneMapper.map(frame) }
        if frame.isPicture(width: settings.width, height: settings.height, format: targetFormat) {
            return frame
        }
        if let scaler, scaler.matches(frame) { return try scaler.scale(frame) }
        // Kept fields are converted field by field (their chroma is per field).
        let made = try frame.scaler(toWidth: settings.width, height: settings.height, format: targetFormat, fields: settings.fieldOrder != nil)
        scaler = made
        return try made.scale(frame)
    }

    private func receivePackets() throws(MediaError) {
        while let packet = try encoder.receive() {
            if let d = pendingDurations.removeValue(forKey: packet.pts), packet.duration <= 0 { packet.duration = d }
            try files.deliver(packet, timeBase: encoder.timeBase, frames: unitsOut)
        }
    }
}
