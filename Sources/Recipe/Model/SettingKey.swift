/// The keys a preset or a writer input's settings may set: the one list the parser takes, the
/// notices of settings without effect name, and `plan` says the origin of. A key added here is
/// unknown to none of them: every switch over it is exhaustive.
public enum SettingKey: String, Sendable, CaseIterable {
    case codec
    case width, height
    case frameRate = "frame-rate", frameRatePolicy = "frame-rate-policy"
    case quality, bitrate
    case maxBitrate = "max-bitrate"
    case gop, profile, level
    case pixelFormat = "pixel-format"
    case hdr, deinterlace
    case sampleRate = "sample-rate", channels
    case channelLayout = "channel-layout"
    case codecOptions = "codec-options"
    case passes
    /// `smart: auto | off | require`: re-encode only around the cuts (smart rendering).
    case smart
    /// Last, so the lists messages give of the other keys keep their order.
    case loudness

    /// Which kind of track a key is for: a video key on an audio track (or the reverse) is refused.
    public enum Kind: Sendable { case both, video, audio }

    public var kind: Kind {
        switch self {
        case .codec, .bitrate, .codecOptions: return .both
        case .width, .height, .frameRate, .frameRatePolicy, .quality, .maxBitrate, .gop, .profile, .level, .pixelFormat, .hdr, .deinterlace, .passes, .smart:
            return .video
        case .sampleRate, .channels, .channelLayout, .loudness: return .audio
        }
    }

    /// The keys of one kind, in the order messages list them.
    public static func names(_ kind: Kind) -> [String] { allCases.filter { $0.kind == kind }.map(\.rawValue) }
}

extension SettingKey {
    /// What the settings (of a video track, of an audio track) set for this key, as a recipe
    /// writes it: text, a whole number, a number or a mapping of codec options. nil: not set.
    public func value(video v: VideoSettings? = nil, audio a: AudioSettings? = nil) -> (any Sendable)? {
        switch self {
        case .codec: return v?.codec?.rawValue ?? a?.codec?.rawValue
        case .bitrate: return v?.bitrate ?? a?.bitrate
        case .codecOptions: return (v?.codecOptions ?? a?.codecOptions).flatMap { $0.isEmpty ? nil : $0 }
        case .width: return v?.width
        case .height: return v?.height
        case .frameRate:
            switch v?.frameRate {
            case .rate(let r)?: return r.description
            case .source?: return "source"
            case nil: return nil
            }
        case .frameRatePolicy: return v?.frameRatePolicy?.rawValue
        case .quality: return v?.quality
        case .maxBitrate: return v?.maxBitrate
        case .gop:
            switch v?.gop {
            case .frames(let n)?: return n
            case .duration(let t)?: return t.secondsDescription
            case nil: return nil
            }
        case .profile: return v?.profile
        case .level: return v?.level
        case .pixelFormat: return v?.pixelFormat
        case .hdr: return v?.hdr?.rawValue
        case .deinterlace: return v?.deinterlace?.rawValue
        case .passes: return v?.passes
        case .smart: return v?.smart?.rawValue
        case .sampleRate: return a?.sampleRate
        case .channels: return a?.channels
        case .channelLayout: return a?.channelLayout
        case .loudness: return a?.loudness?.description
        }
    }
}

extension VideoSettings {
    /// The keys these settings set, in `SettingKey` order.
    public var setKeys: [SettingKey] { SettingKey.allCases.filter { $0.value(video: self) != nil } }
}

extension AudioSettings {
    /// The keys these settings set, in `SettingKey` order.
    public var setKeys: [SettingKey] { SettingKey.allCases.filter { $0.value(audio: self) != nil } }
}
