/// Everything particular to one audio encoder family, in one row (as `VideoFamily` for video):
/// adding a codec is adding a row to `AudioFamily.all`.
public struct AudioFamily: Sendable {
    /// The recipe's name for it (`codec: aac`).
    public let codec: AudioCodec
    /// As people write it: `AAC`.
    public let displayName: String
    /// FFmpeg's encoders for it, preferred first.
    public let encoders: [String]
    /// The sample rates the codec has, for an encoder that does not list its own.
    public let sampleRates: [Int]
    /// Lossless: no bit rate to choose; the samples keep the source's bit depth.
    public var lossless = false
    /// The rate every output is made at whatever the source's, and why (nil: the source's, as
    /// the encoder allows). A recipe's own `sample-rate` still wins where the encoder takes it.
    public var fixedRate: (rate: Int, why: String)?
    /// Encoders by bit depth, where the depth is the encoder (PCM); empty: `encoders`.
    public var encodersByDepth: [Int: String] = [:]
    /// The deepest samples it stores (lossless); deeper sources are rounded to it.
    public var maxBitDepth = 24
    /// Containers FFmpeg writes it into only as an experimental feature (its muxer's
    /// `strict -2`): written there, with a plan notice that some players may not read it.
    public var experimentalIn: [ContainerFormat] = []
    /// The bit rates its encoder opens at, by channels and sample rate (nil: any the recipe asks).
    public var bitrateLimits: BitrateLimits? = nil
    /// Its decoder makes no sound of the encoder's priming packet (the one before the first
    /// sample) but needs it to decode the next one (Vorbis: each block overlaps the one before):
    /// that packet is written wherever the track goes. Left out, the decoder would make nothing
    /// of the next packet either, and the track would lose its first samples. (AAC's priming
    /// decodes to sound of its own, which is left out where no edit list hides it.)
    public var decoderNeedsPriming = false

    /// The rows, the default first.
    public static let all: [AudioFamily] = [.aac, .opus, .vorbis, .flac, .alac, .pcm]
    /// What a recipe that names no audio codec gets.
    public static var `default`: AudioFamily { all[0] }

    /// The row of a recipe's codec; nil for `copy`.
    public static func of(_ codec: AudioCodec) -> AudioFamily? { all.first { $0.codec == codec } }

    /// The row an encoder belongs to.
    public static func of(encoder name: String) -> AudioFamily? {
        all.first { $0.encoders.contains(name) || $0.encodersByDepth.values.contains(name) }
    }

    /// FFmpeg's names for the streams it makes (a track's `format.codec`): the recipe's name, or
    /// for a family whose depth is the encoder, its encoders' (`pcm_s16le`).
    public var streamCodecs: [String] {
        encodersByDepth.isEmpty ? [codec.rawValue] : encodersByDepth.keys.sorted().compactMap { encodersByDepth[$0] }
    }

    /// The first of its encoders that `isAvailable` says this FFmpeg has, else the preferred
    /// one; for a family whose depth is the encoder, the one for `bitDepth`.
    public func encoder(bitDepth: Int? = nil, where isAvailable: (String) -> Bool) -> String {
        if let d = bitDepth, let e = encodersByDepth[d] { return e }
        return encoders.first(where: isAvailable) ?? encoders[0]
    }

    public static let aac = AudioFamily(
        codec: .aac, displayName: "AAC", encoders: ["aac"],
        sampleRates: [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350])

    public static let opus = AudioFamily(
        codec: .opus, displayName: "Opus", encoders: ["libopus"], sampleRates: [48000, 24000, 16000, 12000, 8000],
        fixedRate: (48000, "Opus codes at 48 kHz inside, and players expect it"))

    /// Vorbis, WebM's older audio codec (libvorbis at an average bit rate).
    public static let vorbis = AudioFamily(
        codec: .vorbis, displayName: "Vorbis", encoders: ["libvorbis"],
        sampleRates: [48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000], bitrateLimits: .libvorbis,
        decoderNeedsPriming: true)

    public static let flac = AudioFamily(
        codec: .flac, displayName: "FLAC", encoders: ["flac"], sampleRates: [], lossless: true, experimentalIn: [.mp4, .m4a, .mov])

    public static let alac = AudioFamily(
        codec: .alac, displayName: "ALAC", encoders: ["alac"], sampleRates: [], lossless: true)

    public static let pcm = AudioFamily(
        codec: .pcm, displayName: "PCM", encoders: ["pcm_s16le"], sampleRates: [], lossless: true,
        encodersByDepth: [16: "pcm_s16le", 24: "pcm_s24le"])
}

/// The names a recipe's `codec` takes: every row's, then `copy`.
public var recipeCodecNames: [String] {
    VideoFamily.all.map(\.codec.rawValue) + AudioFamily.all.map(\.codec.rawValue) + ["copy"]
}
