/// Output settings as a recipe or a preset states them: every field is optional, and what is left
/// open is filled by the settings assistant from the source format.
public enum VideoCodec: String, Sendable, CaseIterable { case h264, hevc, copy }
public enum AudioCodec: String, Sendable, CaseIterable { case aac, copy }

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

public enum FrameRateSetting: Sendable, Hashable {
    case source
    case rate(FrameRate)
}

public enum GOPSetting: Sendable, Hashable {
    case duration(MediaTime)
    case frames(Int)
}

public struct VideoSettings: Sendable, Hashable {
    public var codec: VideoCodec?
    /// With `height`, a box the picture is fitted inside (display aspect kept, never upscaled).
    public var width: Int?
    public var height: Int?
    public var frameRate: FrameRateSetting?
    public var frameRatePolicy: FrameRatePolicy?
    /// Constant quality (x264/x265 CRF).
    public var quality: Double?
    /// Average bit rate in bits per second.
    public var bitrate: Int?
    public var maxBitrate: Int?
    public var gop: GOPSetting?
    public var profile: String?
    public var level: String?
    public var pixelFormat: String?
    /// Passed to the encoder as its own options (x264 `preset`, `tune`, …).
    public var codecOptions: [String: String]

    public init(codec: VideoCodec? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: FrameRateSetting? = nil, frameRatePolicy: FrameRatePolicy? = nil,
                quality: Double? = nil, bitrate: Int? = nil, maxBitrate: Int? = nil,
                gop: GOPSetting? = nil, profile: String? = nil, level: String? = nil,
                pixelFormat: String? = nil, codecOptions: [String: String] = [:]) {
        self.codec = codec; self.width = width; self.height = height
        self.frameRate = frameRate; self.frameRatePolicy = frameRatePolicy
        self.quality = quality; self.bitrate = bitrate; self.maxBitrate = maxBitrate
        self.gop = gop; self.profile = profile; self.level = level
        self.pixelFormat = pixelFormat; self.codecOptions = codecOptions
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
        r.codecOptions = base.codecOptions.merging(codecOptions) { _, mine in mine }
        return r
    }
}

public struct AudioSettings: Sendable, Hashable {
    public var codec: AudioCodec?
    public var bitrate: Int?
    public var sampleRate: Int?
    /// The most channels the output may have; sources with more are downmixed.
    public var channels: Int?
    public var channelLayout: String?
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
        r.sampleRate = sampleRate ?? base.sampleRate
        r.channels = channels ?? base.channels
        r.channelLayout = channelLayout ?? base.channelLayout
        r.codecOptions = base.codecOptions.merging(codecOptions) { _, mine in mine }
        return r
    }
}

/// Container formats reencode writes.
public enum ContainerFormat: String, Sendable, CaseIterable {
    case mp4, mov, m4a, mkv

    /// From a path's extension (`.mp4`, `.m4v` → mp4, `.mov`, `.m4a`, `.mkv`).
    public init?(pathExtension ext: String) {
        switch ext.lowercased() {
        case "mp4", "m4v": self = .mp4
        case "mov", "qt": self = .mov
        case "m4a": self = .m4a
        case "mkv": self = .mkv
        default: return nil
        }
    }
}
