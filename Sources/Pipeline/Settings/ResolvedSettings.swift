import Recipe

/// Video output settings with nothing left open.
public struct ResolvedVideoSettings: Sendable, Hashable {
    public var codec: VideoCodec
    public var encoderName: String
    /// Coded size of the output pictures (before the display rotation, which is kept as metadata).
    public var width: Int
    public var height: Int
    /// The pictures' sample aspect ratio, stated in the output (the source's where its stored
    /// size is kept; square where pictures are resized).
    public var pixelAspect: Ratio = .square
    public var pixelFormat: String
    /// nil: keep the source's timing (no frame-rate conversion).
    public var frameRate: FrameRate?
    public var quality: Double?
    public var bitrate: Int?
    public var maxBitrate: Int?
    public var gopFrames: Int
    /// Where a closed GOP must start with an IDR besides (`KeyframeGrid`); nil: where the encoder chooses.
    public var keyframeGrid: KeyframeGrid? = nil
    public var profile: String
    /// The level the stream meets (asked, or the lowest for its size and rate).
    public var level: String?
    /// The level the encoder is told; nil: it signals the lowest level the stream needs itself.
    /// x265 is told only an asked level: told one, it keeps a quality-coded stream within it by
    /// turning on rate capping (VBV at the level's maximum), slower and not repeatable.
    public var encoderLevel: String?
    public var codecOptions: [String: String]
    /// The output's colour tags (FFmpeg's names; nil: unspecified). They say what the encoded
    /// pixels are, never more.
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    public var colorRange: String?
    /// Where the chroma samples sit (FFmpeg's name); nil: unspecified (H.264 and HEVC then mean
    /// `left`). Set only to a source's other siting, into 4:2:0, when its chroma samples reach the
    /// encoder where they were (`ChromaSiting`).
    public var chromaLocation: String? = nil
    /// HDR pictures made SDR on the way to the encoder; nil: pixels keep their meaning.
    public var toneMapping: ToneMapping?
    /// HDR10 static metadata the output carries (in its SEI and in the container).
    public var masteringDisplay: MasteringDisplay?
    public var contentLightLevel: ContentLightLevel?
    /// Interlaced pictures made progressive at this rate; nil: pictures go to the encoder as they are.
    public var deinterlace: DeinterlaceRate? = nil
    /// The fields kept and coded as fields, in this order (`deinterlace: off`); nil: progressive.
    public var fieldOrder: FieldOrder? = nil
    /// 2: two-pass rate control at `bitrate` (`passes: 2`, `target-size`); 1: one pass.
    public var passes = 1
    /// Which of the two passes this encode is, and where its statistics are: set by the run
    /// (`TwoPassRun`); nil: a one-pass encode, or a rehearsal of either.
    public var ratePass: RatePass? = nil
    /// Copy the source's whole groups of pictures and encode only around the cuts (`SmartPass`).
    public var smart: SmartRendering = .off
    /// Threads the encoder is given: a chunk encoder's share of the cores (`ChunkedRun`); nil: the
    /// encoder's own choice.
    public var encoderThreads: Int? = nil
    public var decisions: [Decision]

    public func decision(_ setting: String) -> Decision? { decisions.first { $0.setting == setting } }
}

/// How often a deinterlaced output has a picture: per frame (25i → 25 fps) or per field (→ 50 fps).
public enum DeinterlaceRate: String, Sendable, Hashable {
    case frame, field
}

/// HDR (PQ or HLG) pictures turned into BT.709 SDR: what the tone-mapping kernel needs to know
/// of the source.
public struct ToneMapping: Sendable, Hashable {
    public var transfer: DynamicRange
    /// The source's primaries, matrix and range (FFmpeg's names; nil: BT.2020 and limited range
    /// assumed).
    public var sourcePrimaries: String?
    public var sourceMatrix: String?
    public var sourceRange: String?
    /// The brightest light the source holds, cd/m² (from its mastering display or MaxCLL; HLG is
    /// displayed on a 1000 cd/m² reference display).
    public var peakLuminance: Double
    public init(transfer: DynamicRange, sourcePrimaries: String?, sourceMatrix: String?, sourceRange: String?, peakLuminance: Double) {
        self.transfer = transfer; self.sourcePrimaries = sourcePrimaries; self.sourceMatrix = sourceMatrix; self.sourceRange = sourceRange; self.peakLuminance = peakLuminance
    }
}

public struct ResolvedAudioSettings: Sendable, Hashable {
    public var codec: AudioCodec
    public var encoderName: String
    public var sampleRate: Int
    public var channels: Int
    public var channelLayout: String
    /// 0: none to aim at (a lossless codec).
    public var bitrate: Int
    /// The samples the encoder takes, by FFmpeg's name (`fltp`, `s16`, `s32` …).
    public var sampleFormat: String = "fltp"
    /// A lossless codec's bits per sample (nil: a lossy one's).
    public var bitDepth: Int?
    public var codecOptions: [String: String]
    public var decisions: [Decision]
    /// Loudness normalisation asked (`loudness:`); nil: the sound's level is kept.
    public var loudness: LoudnessTarget?
    /// The gain the plan's first pass found for `loudness` (`LoudnessPass`); applied in the sink.
    public var loudnessGain: LoudnessGain?

    public func decision(_ setting: String) -> Decision? { decisions.first { $0.setting == setting } }
}

/// What an encoder accepts, as the assistant needs it. `EncoderCapabilities.of(_:)` asks FFmpeg;
/// tests may state them.
public struct EncoderCapabilities: Sendable, Hashable {
    public var pixelFormats: [String]
    public var sampleRates: [Int]
    public var sampleFormats: [String]
    public init(pixelFormats: [String] = [], sampleRates: [Int] = [], sampleFormats: [String] = []) {
        self.pixelFormats = pixelFormats
        self.sampleRates = sampleRates
        self.sampleFormats = sampleFormats
    }
}
