import Recipe

/// Video output settings with nothing left open.
public struct ResolvedVideoSettings: Sendable, Hashable {
    public var codec: VideoCodec
    public var encoderName: String
    /// Coded size of the output pictures (before the display rotation, which is kept as metadata).
    public var width: Int
    public var height: Int
    public var pixelFormat: String
    /// nil: keep the source's timing (no frame-rate conversion).
    public var frameRate: FrameRate?
    public var quality: Double?
    public var bitrate: Int?
    public var maxBitrate: Int?
    public var gopFrames: Int
    public var profile: String
    public var level: String?
    public var codecOptions: [String: String]
    public var decisions: [Decision]

    public func decision(_ setting: String) -> Decision? { decisions.first { $0.setting == setting } }
}

public struct ResolvedAudioSettings: Sendable, Hashable {
    public var codec: AudioCodec
    public var encoderName: String
    public var sampleRate: Int
    public var channels: Int
    public var channelLayout: String
    public var bitrate: Int
    public var codecOptions: [String: String]
    public var decisions: [Decision]

    public func decision(_ setting: String) -> Decision? { decisions.first { $0.setting == setting } }
}

/// What an encoder accepts, as the assistant needs it. `EncoderCapabilities.of(_:)` asks FFmpeg;
/// tests may state them.
public struct EncoderCapabilities: Sendable, Hashable {
    public var pixelFormats: [String]
    public var sampleRates: [Int]
    public init(pixelFormats: [String] = [], sampleRates: [Int] = []) {
        self.pixelFormats = pixelFormats
        self.sampleRates = sampleRates
    }
}
