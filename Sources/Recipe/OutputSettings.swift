/// Output settings as a recipe or a preset states them: every field is optional, and what is left
/// open is filled by the settings assistant from the source format.
public enum VideoCodec: String, Sendable, CaseIterable { case h264, hevc, av1, vp9, prores, copy }
public enum AudioCodec: String, Sendable, CaseIterable { case aac, opus, vorbis, flac, alac, pcm, copy }

/// How a target frame rate applies to a source (see docs and the settings assistant).
public enum FrameRatePolicy: String, Sendable, CaseIterable {
    /// A source at or below the target keeps its rate; a faster one is converted to the target
    /// (a 1001-family source to the 1001-family target, 59.94 → 29.97).
    case cap
    /// Always the target: 24 → 30 repeats frames.
    case exact
    /// source / n with n = ceil(source / target): 50 → 25, 120 → 30, 59.94 → 29.97.
    case divisor
}

/// What becomes of an HDR source (PQ or HLG transfer) in a reencoded video track.
public enum HDRSetting: String, Sendable, CaseIterable {
    /// Stays HDR: the source's colour tags and HDR10 metadata are kept; needs a 10-bit output.
    case keep
    /// Becomes BT.709 SDR: the pictures are tone-mapped and tagged bt709.
    case toneMap = "tone-map"

    /// Why `keep` cannot work with this codec and pixel format (as a recipe or preset states them,
    /// nil meaning left to the settings assistant), or nil when it can: HDR needs 10 bits, and
    /// the assistant gives 10 bits only to a family whose pixel-format rule makes HDR 10-bit.
    public static func keepRefusal(codec: VideoCodec?, pixelFormat: String?) -> String? {
        let family = codec.map { VideoFamily.of($0) } ?? VideoFamily.default
        guard let family else { return nil }  // copy
        let depth = pixelFormat.map(pixelFormatBitDepth)
        if let depth, depth >= 10 { return nil }
        if depth == nil && family.pixelFormats.keepsDepth { return nil }
        let output = pixelFormat.map { "\(family.displayName) in \($0)" } ?? "8-bit \(family.displayName) (yuv420p)"
        // A family that makes HDR 10-bit is a way out only where no 8-bit pixel format is asked for.
        let keeper = pixelFormat == nil ? VideoFamily.all.first { $0.pixelFormats.keepsDepth } : nil
        let ways = (keeper.map { "'codec: \($0.codec.rawValue)', " } ?? "") + "a 10-bit 'pixel-format' (yuv420p10le) or 'hdr: tone-map'"
        return "'hdr: keep' needs a 10-bit output, but this writes \(output): use \(ways)"
    }
}

/// Bits per sample of a pixel format by its FFmpeg name (`yuv420p10le` 10, `nv12` 8): what the
/// HDR rules need to know without asking FFmpeg.
public func pixelFormatBitDepth(_ name: String) -> Int {
    let n = name.lowercased()
    if n == "nv20le" || n == "nv20be" || n.hasPrefix("p010") { return 10 }
    if n.hasPrefix("p016") { return 16 }
    for depth in [9, 10, 12, 14, 16] where n.hasSuffix("\(depth)le") || n.hasSuffix("\(depth)be") { return depth }
    return 8
}

/// What becomes of an interlaced source's fields in a reencoded video track.
public enum DeinterlaceSetting: String, Sendable, CaseIterable {
    /// Made progressive at the frame rate (25i → 25 fps) when the source is interlaced.
    case auto
    /// Kept: coded as fields, their order stated (H.264, ProRes; ProRes keeps them unasked).
    case off
    /// A picture per field: 25i → 50 fps, 29.97i → 59.94.
    case fieldRate = "field-rate"
}

public enum FrameRateSetting: Sendable, Hashable {
    case source
    case rate(FrameRate)
}

public enum GOPSetting: Sendable, Hashable {
    case duration(MediaTime)
    case frames(Int)
}

/// `smart:` on a video writer input. `auto`: copy what can be copied, else encode it all (with a
/// note naming why); `require`: refuse at plan time instead; `off`: encode it all.
public enum SmartRendering: String, Sendable, Hashable, CaseIterable {
    case auto, off, require
}

public struct VideoSettings: Sendable, Hashable {
    public var codec: VideoCodec?
    /// With `height`, a box the picture is fitted inside (display aspect kept, never upscaled).
    public var width: Int?
    public var height: Int?
    public var frameRate: FrameRateSetting?
    public var frameRatePolicy: FrameRatePolicy?
    /// Constant quality (the family's `QualityScale`: x264's CRF).
    public var quality: Double?
    /// Average bit rate in bits per second.
    public var bitrate: Int?
    public var maxBitrate: Int?
    public var gop: GOPSetting?
    public var profile: String?
    public var level: String?
    public var pixelFormat: String?
    /// nil: the settings assistant decides (HDR kept where the output can carry it).
    public var hdr: HDRSetting?
    /// nil: `auto`.
    public var deinterlace: DeinterlaceSetting?
    /// Passed to the encoder as its own options (x264 `preset`, `tune`, …).
    public var codecOptions: [String: String]
    /// 2: a statistics pass over the pictures first, then the encode that spends `bitrate` by
    /// them (the encoder's two-pass rate control); nil: one pass (2 under a `target-size`).
    public var passes: Int? = nil
    /// Whether a trim, cut-out or join copies the source's whole groups of pictures and encodes
    /// only around the cuts; nil: `off`.
    public var smart: SmartRendering? = nil

    public init(codec: VideoCodec? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: FrameRateSetting? = nil, frameRatePolicy: FrameRatePolicy? = nil,
                quality: Double? = nil, bitrate: Int? = nil, maxBitrate: Int? = nil,
                gop: GOPSetting? = nil, profile: String? = nil, level: String? = nil,
                pixelFormat: String? = nil, hdr: HDRSetting? = nil, deinterlace: DeinterlaceSetting? = nil, codecOptions: [String: String] = [:]) {
        self.codec = codec; self.width = width; self.height = height
        self.frameRate = frameRate; self.frameRatePolicy = frameRatePolicy
        self.quality = quality; self.bitrate = bitrate; self.maxBitrate = maxBitrate
        self.gop = gop; self.profile = profile; self.level = level
        self.pixelFormat = pixelFormat; self.hdr = hdr; self.deinterlace = deinterlace; self.codecOptions = codecOptions
    }

    /// Values set here win; open ones come from `base` (preset inheritance).
    public func over(_ base: VideoSettings) -> VideoSettings {
        var r = self
        r.codec = codec ?? base.codec
        r.width = width ?? base.width
        r.height = height ?? base.height
        r.frameRate = frameRate ?? base.frameRate
        r.frameRatePolicy = frameRatePolicy ?? base.frameRatePolicy
        r.quality = quality ?? base.quality
        r.bitrate = bitrate ?? base.bitrate
        r.maxBitrate = maxBitrate ?? base.maxBitrate
        r.gop = gop ?? base.gop
        r.profile = profile ?? base.profile
        r.level = level ?? base.level
        r.pixelFormat = pixelFormat ?? base.pixelFormat
        r.hdr = hdr ?? base.hdr
        r.deinterlace = deinterlace ?? base.deinterlace
        r.codecOptions = base.codecOptions.merging(codecOptions) { _, mine in mine }
        r.passes = passes ?? base.passes
        r.smart = smart ?? base.smart
        return r
    }
}

public struct AudioSettings: Sendable, Hashable {
    public var codec: AudioCodec?
    public var bitrate: Int?
    /// `bitrate` is the most the output gets, not a request: a source with less keeps its own
    /// (the built-in presets' rates; a rate a recipe writes is asked).
    public var bitrateIsCeiling = false
    public var sampleRate: Int?
    /// The most channels the output may have; sources with more are downmixed.
    public var channels: Int?
    public var channelLayout: String?
    /// Loudness normalisation: measured in a first pass, one gain applied in the sink.
    public var loudness: LoudnessTarget?
    public var codecOptions: [String: String]

    public init(codec: AudioCodec? = nil, bitrate: Int? = nil, sampleRate: Int? = nil,
                channels: Int? = nil, channelLayout: String? = nil, codecOptions: [String: String] = [:]) {
        self.codec = codec; self.bitrate = bitrate; self.sampleRate = sampleRate
        self.channels = channels; self.channelLayout = channelLayout; self.codecOptions = codecOptions
    }

    public func over(_ base: AudioSettings) -> AudioSettings {
        var r = self
        r.codec = codec ?? base.codec
        r.bitrate = bitrate ?? base.bitrate
        r.bitrateIsCeiling = bitrate != nil ? bitrateIsCeiling : base.bitrateIsCeiling
        r.sampleRate = sampleRate ?? base.sampleRate
        r.channels = channels ?? base.channels
        r.channelLayout = channelLayout ?? base.channelLayout
        r.loudness = loudness ?? base.loudness
        r.codecOptions = base.codecOptions.merging(codecOptions) { _, mine in mine }
        return r
    }
}
