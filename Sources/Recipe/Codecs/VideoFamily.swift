/// Everything particular to one video encoder family, in one row: what a recipe calls it, the
/// encoders that make it, how its quality, speed, profiles and levels are asked for, how it
/// carries HDR, and how its compressed frames are read. The settings assistant, the encoder and
/// the readers ask the row; adding a codec is adding a row to `VideoFamily.all`.
/// FFmpeg-free (names and numbers only), so that recipes are checked against it too.
public struct VideoFamily: Sendable {
    /// The recipe's name for it (`codec: hevc`).
    public let codec: VideoCodec
    /// FFmpeg's name for its streams (a track's `format.codec`).
    public let streamCodec: String
    /// As people write it: `H.264`.
    public let displayName: String
    /// The encoder library's own name, as its messages (and ours about it) call it: `x264`.
    public let library: String
    /// FFmpeg's encoders for it, preferred first.
    public let encoders: [String]
    /// Constant quality; nil where the codec has no rate to choose: each ProRes profile codes at
    /// its own data rate (`rateRefusal` says so to a recipe that asks for one).
    public let quality: QualityScale?
    /// The speed option (x264's `preset`) and its names, fastest first; nil where the encoder
    /// has none (prores_ks).
    public let speed: NamedOption?
    /// The tuning option (x264's `tune`) and its names; nil where the encoder has none.
    public let tune: NamedOption?
    /// Every profile the encoder has, with the most it carries.
    public let profiles: [Profile]
    /// The profiles the assistant chooses from, in order: the first that carries the pixel
    /// format (else the first of the deepest that carries its chroma).
    public let automaticProfiles: [String]
    public let levels: LevelTable
    public let levelSignalling: LevelSignalling
    /// The encoder's own parameter string (`x265-params`); nil where it has none (libvpx).
    public let parameters: ParameterString?
    /// Its keys for HDR10 static metadata in the parameter string (written as SEI); nil where
    /// the encoder is not given it (the container's colour tags and side data still carry it).
    public let hdr: HDRSignalling?
    public let pixelFormats: PixelFormatRule
    /// Codes interlaced pictures as fields (`deinterlace: off`).
    public let codesFields: Bool
    /// How passthrough and selective decode read its compressed frames; nil where they are not
    /// read without decoding (every frame is decoded).
    public let frames: FrameSyntax?
    /// The encoder stamps decode times it has not measured on an encode of 1 or 2 pictures
    /// (x265: dts = pts − a B-frame delay known only after more pictures than that delay); two
    /// pictures cannot be reordered, so their decode times are their presentation times.
    public let guessesShortEncodeDTS: Bool
    /// The library closes only a stream it was sent a picture in and told the end of. SVT-AV1
    /// 1.4's `svt_av1_enc_deinit` waits for the end-of-stream packet, which its pipeline makes
    /// only after a picture: an encoder freed before its first picture (a rehearsal's, a trial
    /// open's, a lane that failed or had no pictures) blocks for ever, and so does telling an
    /// empty one the end. Such an encoder is sent one black picture where it had none, told the
    /// end and drained before it is freed, its packets dropped; an empty stream's end is not
    /// passed on to it.
    public let closesOnlyAfterAPicture: Bool
    /// The environment variable without which the library prints its banner on stderr
    /// (SVT-AV1's `SVT_LOG`): set for the process before any encoder opens, unless already set.
    public let quietEnvironment: (name: String, value: String)?
    /// The pictures the encoder takes; nil: any the levels allow.
    public var pictureSizes: PictureSizes? = nil
    /// The fastest speed the library runs for small pictures; nil: every speed at every size.
    public var smallPictureSpeed: SmallPictureSpeed? = nil
    /// Options the encoder always gets unless the recipe sets them (libvpx's `row-mt`), with
    /// the reason `plan` gives.
    public var fixedOptions: [FixedOption] = []
    /// Tile columns chosen by the picture's width; nil: the library's own.
    public var tileColumns: TileColumns? = nil
    /// Every picture is coded on its own (ProRes): no GOP to choose.
    public var intraOnly = false
    /// Why a GOP means nothing here (`plan`'s gop decision, and the warning on an asked one).
    public var intraOnlyReason: String? { intraOnly ? "\(displayName) codes every picture on its own: each is a keyframe" : nil }

    /// Options whose values are names the library checks itself (printing its own line on
    /// stderr for one it does not know): checked first, the nearest name suggested.
    public var namedOptions: [NamedOption] { [speed, tune].compactMap { $0 } }

    /// The rows, the default first.
    public static let all: [VideoFamily] = [.h264, .hevc, .av1, .vp9, .prores]
    /// What a recipe that names no codec gets.
    public static var `default`: VideoFamily { all[0] }

    /// The qualities some family takes: what a recipe's `quality` is checked against before its
    /// codec is known (a preset may name it).
    public static var qualityBounds: ClosedRange<Double> {
        let scales = all.compactMap(\.quality)
        return scales.map(\.range.lowerBound).min()!...scales.map(\.range.upperBound).max()!
    }

    /// Why a recipe's rate setting (`quality`, `bitrate`, `max-bitrate`) is refused for a family
    /// without a quality scale; nil where the family takes it.
    public func rateRefusal(_ key: SettingKey) -> String? {
        guard quality == nil else { return nil }
        let names = profiles.map(\.name).joined(separator: ", ")
        return "'\(key.rawValue)' does not apply to \(displayName): each profile codes at its own data rate (\(names)); choose one with 'profile'"
    }

    /// The row of a recipe's codec; nil for `copy`.
    public static func of(_ codec: VideoCodec) -> VideoFamily? { all.first { $0.codec == codec } }
    /// The row whose streams FFmpeg calls `name` (`h264`); nil for codecs with no row.
    public static func of(streamCodec name: String) -> VideoFamily? { all.first { $0.streamCodec == name } }
    /// The row of FFmpeg's encoder `name` (`libx265`); nil for encoders with no row.
    public static func of(encoder name: String) -> VideoFamily? { all.first { $0.encoders.contains(name) } }

    /// The first of its encoders that `isAvailable` says this FFmpeg has, else the preferred one
    /// (whose absence is then reported by whoever opens it).
    public func encoder(where isAvailable: (String) -> Bool) -> String {
        encoders.first(where: isAvailable) ?? encoders[0]
    }

    /// The level asked among the codec options (x264's `level`, x265's `level-idc` parameter).
    public func level(in codecOptions: [String: String]) -> String? {
        switch levelSignalling {
        case .option(let key): return codecOptions[key]
        case .parameterWhenAsked(let key): return parameters?.value(of: key, in: codecOptions)
        case .byEncoder: return nil
        }
    }

    /// `codecOptions` with the quality, the row's default speed and the level the encoder is
    /// told added as this family asks for them (where the options do not set them already), and
    /// the parameter string's quiet entry.
    public func options(_ codecOptions: [String: String], quality: Double?, level: String?) -> [String: String] {
        var opts = codecOptions
        if let q = quality, let scale = self.quality {
            if opts[scale.option] == nil { opts[scale.option] = formatNumber(q) }
            for (k, v) in scale.alongside where opts[k] == nil { opts[k] = v }
        }
        if let speed, let d = speed.defaultName, opts[speed.option] == nil { opts[speed.option] = d }
        for f in fixedOptions where opts[f.option] == nil { opts[f.option] = f.value }
        var entries: [String] = []
        switch levelSignalling {
        case .option(let key):
            if let l = level, opts[key] == nil { opts[key] = l }
        case .parameterWhenAsked(let key):
            if let l = level, parameters?.value(of: key, in: opts) == nil { entries.append("\(key)=\(l)") }
        case .byEncoder:
            break
        }
        return parameters?.adding(entries, to: opts) ?? opts
    }

    /// The lowest of `automaticProfiles` that carries `depth`-bit samples at `chroma` (444,
    /// 422, 420); where none carries the depth, the first of the deepest that carries the chroma.
    public func automaticProfile(depth: Int, chroma: Int) -> String {
        let carriers = automaticProfiles.compactMap { name in profiles.first { $0.name == name } }.filter { $0.chroma >= chroma }
        if let fit = carriers.first(where: { $0.depth >= depth }) { return fit.name }
        let deepest = carriers.map(\.depth).max()
        return carriers.first { $0.depth == deepest }?.name ?? automaticProfiles[automaticProfiles.count - 1]
    }
}

/// Constant quality: the encoder's option, the values it takes (lower is better) and the default.
public struct QualityScale: Sendable {
    /// The encoder option the recipe's `quality` becomes (x264's `crf`).
    public let option: String
    public let range: ClosedRange<Double>
    public let defaultValue: Double
    /// Options constant quality needs besides its own (libvpx: bitrate 0, else the quality is
    /// capped by FFmpeg's default 200 kb/s target).
    public var alongside: [String: String] = [:]
}

/// An option the encoder always gets, and why.
public struct FixedOption: Sendable {
    public let option: String
    public let value: String
    public let reason: String
}

/// Tile columns as a power of two (`tile-columns` is their log2), each at least `minimumWidth`
/// pixels wide (VP9's rule), at most `2^maxLog2`.
public struct TileColumns: Sendable {
    public let option: String
    public let minimumWidth: Int
    public let maxLog2: Int

    /// The most columns a picture `width` wide has room for, as log2.
    public func log2(width: Int) -> Int {
        var n = 0
        while n < maxLog2 && width >= minimumWidth << (n + 1) { n += 1 }
        return n
    }
}

/// A number as a recipe writes it: `23`, `23.5`.
public func formatNumber(_ d: Double) -> String {
    d == d.rounded() ? String(Int(d)) : String(d)
}

/// An option whose value is one of a list of names.
public struct NamedOption: Sendable {
    public let option: String
    public let names: [String]
    /// What the encoder is given where the recipe sets nothing (nil: the library's own default).
    public var defaultName: String? = nil
}

/// The smallest and largest pictures an encoder opens with.
public struct PictureSizes: Sendable {
    public let minimum: (width: Int, height: Int)
    public let maximum: (width: Int, height: Int)

    public func allows(width: Int, height: Int) -> Bool {
        (minimum.width...maximum.width).contains(width) && (minimum.height...maximum.height).contains(height)
    }
    public var description: String { "\(minimum.width)x\(minimum.height) to \(maximum.width)x\(maximum.height)" }
}

/// Below `lumaSamples` a picture, the library runs `fastest` for any faster speed asked.
public struct SmallPictureSpeed: Sendable {
    public let fastest: String
    public let lumaSamples: Int
    /// The library's own name for such pictures (SVT-AV1: "360p and lower").
    public let sizeName: String
}

/// A profile and the most it carries: bits per sample and chroma (444, 422, 420).
public struct Profile: Sendable {
    public let name: String
    public let depth: Int
    public let chroma: Int
    /// The only pixel formats it is coded from, where the profile fixes them (ProRes `hq`:
    /// yuv422p10le; `4444`: yuv444p10le, or yuva444p10le with alpha); empty: any within
    /// `depth` and `chroma`.
    public let pixelFormats: [String]

    public init(_ name: String, depth: Int, chroma: Int, pixelFormats: [String] = []) {
        self.name = name; self.depth = depth; self.chroma = chroma; self.pixelFormats = pixelFormats
    }

    /// Whether pictures in `pixelFormat` (`depth`-bit, `chroma`) are coded in this profile.
    public func carries(_ pixelFormat: String, depth: Int, chroma: Int) -> Bool {
        pixelFormats.isEmpty ? depth <= self.depth && chroma <= self.chroma : pixelFormats.contains(pixelFormat)
    }
}

/// The levels of a codec's Annex A, by what each limits.
public enum LevelTable: Sendable {
    /// (name, max macroblocks per second, max frame size in macroblocks): H.264.
    case macroblocks([(name: String, perSecond: Int64, perFrame: Int64)])
    /// (name, max luma picture size, max luma samples per second): HEVC.
    case lumaSamples([(name: String, perFrame: Int64, perSecond: Int64)])
    /// The codec has no levels (ProRes).
    case none

    public var names: [String] {
        switch self {
        case .macroblocks(let rows): return rows.map(\.name)
        case .lumaSamples(let rows): return rows.map(\.name)
        case .none: return []
        }
    }
}

/// How the encoder is told the level.
public enum LevelSignalling: Sendable {
    /// By its option of this name, asked or worked out from size and rate (x264's `level`).
    case option(String)
    /// By this key of its parameter string, and only when asked: it signals the lowest level
    /// itself, and a level it is told makes it cap a quality-coded stream's rate (x265's
    /// `level-idc`: slower, and not the same bits run to run).
    case parameterWhenAsked(String)
    /// Never: the encoder signals the level it codes itself (SVT-AV1, whose `level` parameter
    /// FFmpeg 5.1's wrapper does not pass on); an asked level is only checked against the picture.
    case byEncoder

    /// The encoder is not told a level it was not asked for (and signals the lowest one itself).
    public var isToldOnlyWhenAsked: Bool {
        if case .option = self { return false }
        return true
    }

    /// An asked level is told to the encoder, which caps a quality-coded stream's rate by it.
    public var capsRateWhenTold: Bool {
        if case .parameterWhenAsked = self { return true }
        return false
    }
}

/// The encoder's own `key=value:key=value` parameter string.
public struct ParameterString: Sendable {
    /// Its option, and other options the encoder reads the same way (x264's `x264opts`).
    public let option: String
    public let aliases: [String]
    /// The entry without which the library prints its banner on stderr (x265's log level):
    /// every encoder the lanes open gets it unless the recipe's string sets that key.
    public let quiet: (key: String, value: String)?

    /// The value of `key` in the options' parameter string, as the library reads it (the last
    /// one wins).
    public func value(of key: String, in codecOptions: [String: String]) -> String? {
        codecOptions[option]?.split(separator: ":").compactMap { entry -> String? in
            let kv = entry.split(separator: "=", maxSplits: 1)
            return kv.count == 2 && kv[0] == key ? String(kv[1]) : nil
        }.last
    }

    /// `options` with `entries` (`key=value`) added to the end of its parameter string, and the
    /// quiet entry where the string does not mention its key.
    public func adding(_ entries: [String], to options: [String: String]) -> [String: String] {
        var parts = options[option].map { [$0] } ?? []
        if let quiet, !(options[option] ?? "").contains(quiet.key) { parts.append("\(quiet.key)=\(quiet.value)") }
        parts += entries
        guard !parts.isEmpty else { return options }
        var out = options
        out[option] = parts.joined(separator: ":")
        return out
    }
}

/// The parameter-string keys HDR10 static metadata is written under (the values are
/// `MasteringDisplay.encoderParameter` and `ContentLightLevel.encoderParameter`).
public struct HDRSignalling: Sendable {
    public let masteringDisplay: String
    public let contentLightLevel: String
}

/// How the assistant picks a pixel format where the recipe names none.
public enum PixelFormatRule: Sendable {
    /// 8-bit 4:2:0 always (what every player of the codec takes); HDR is tone-mapped.
    case eightBit420
    /// The source's chroma format and depth (10 bits for anything deeper, and for HDR), where
    /// the encoder takes them; `tenBitProfile` is said in the plan (`Main 10`).
    case keepDepthAndChroma(tenBitProfile: String)
    /// The profile's own (`Profile.pixelFormats`, every one 10-bit): the asked profile's, else
    /// the automatic profile for the source's chroma (4:4:4 where it has alpha); the alpha
    /// format where the source has alpha (ProRes).
    case ofProfile

    /// Whether the source's depth is kept (and an HDR source stays HDR, in 10 bits) without a
    /// pixel format asked for.
    public var keepsDepth: Bool {
        switch self {
        case .keepDepthAndChroma, .ofProfile: return true
        case .eightBit420: return false
        }
    }
}

/// The bitstream syntax of a codec's compressed frames, which says how its frames are read
/// without decoding: which ones nothing references (selective decode, trimming), which temporal
/// layer a frame is in (slow motion), which profile its headers state.
public enum FrameSyntax: Sendable {
    /// H.264's NAL units: nal_ref_idc 0 marks a picture nothing references.
    case h264
    /// HEVC's NAL units: sub-layer non-reference types in the highest temporal layer.
    case hevc
}
