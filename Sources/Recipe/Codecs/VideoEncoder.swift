/// What is particular to one encoder of a video family, its library's way of being asked for
/// quality, speed and level, its parameter string and its quirks: two encoders of one codec
/// (SVT-AV1 and libaom for AV1) differ here, and only here.
public struct VideoEncoder: Sendable {
    /// FFmpeg's name for it (`libx264`).
    public let name: String
    /// The encoder library's own name, as its messages (and ours about it) call it: `x264`.
    public let library: String
    /// Constant quality; nil where the encoder has no rate to choose: each ProRes profile codes
    /// at its own data rate (`VideoFamily.rateRefusal` says so to a recipe that asks for one).
    public let quality: QualityScale?
    /// The speed option (x264's `preset`) and its names, fastest first; nil where the encoder
    /// has none (prores_ks).
    public let speed: NamedOption?
    /// The tuning option (x264's `tune`) and its names; nil where the encoder has none.
    public var tune: NamedOption? = nil
    /// How the encoder is told the level.
    public let levelSignalling: LevelSignalling
    /// How the encoder is told where a closed GOP must start (`KeyframeGrid`), or why it cannot be.
    public let keyframes: KeyframeForcing
    /// The encoder's own parameter string (`x265-params`); nil where it has none (libvpx).
    public var parameters: ParameterString? = nil
    /// Its keys for HDR10 static metadata in the parameter string (written as SEI); nil where
    /// the encoder is not given it (the container's colour tags and side data still carry it).
    public var hdr: HDRSignalling? = nil
    /// The encoder stamps decode times it has not measured on an encode of 1 or 2 pictures
    /// (x265: dts = pts − a B-frame delay known only after more pictures than that delay); two
    /// pictures cannot be reordered, so their decode times are their presentation times.
    public var guessesShortEncodeDTS = false
    /// The library closes only a stream it was sent a picture in and told the end of. SVT-AV1
    /// 1.4's `svt_av1_enc_deinit` waits for the end-of-stream packet, which its pipeline makes
    /// only after a picture: an encoder freed before its first picture (a rehearsal's, a trial
    /// open's, a lane that failed or had no pictures) blocks for ever, and so does telling an
    /// empty one the end. Such an encoder is sent one black picture where it had none, told the
    /// end and drained before it is freed, its packets dropped; an empty stream's end is not
    /// passed on to it.
    public var closesOnlyAfterAPicture = false
    /// The environment variable without which the library prints its banner on stderr
    /// (SVT-AV1's `SVT_LOG`): set for the process before any encoder opens, unless already set.
    public var quietEnvironment: (name: String, value: String)? = nil
    /// The pictures the encoder takes; nil: any the levels allow.
    public var pictureSizes: PictureSizes? = nil
    /// The fastest speed the library runs for small pictures; nil: every speed at every size.
    public var smallPictureSpeed: SmallPictureSpeed? = nil
    /// Options the encoder always gets unless the recipe sets them (libvpx's `row-mt`), with
    /// the reason `plan` gives.
    public var fixedOptions: [FixedOption] = []
    /// Tile columns chosen by the picture's width; nil: the library's own.
    public var tileColumns: TileColumns? = nil
    /// The parameter-string key that bounds the library's worker threads, where FFmpeg's thread
    /// count does not (x265 sizes its pool, SVT-AV1 its logical processors, by the machine's
    /// cores whatever the count): a chunk encoder given its share of the cores is held to it.
    /// Nil: the thread count is the bound (x264, libvpx, libaom, ProRes).
    public var threadParameter: String? = nil
    /// How it runs two passes (`passes: 2`, `target-size`), or why it cannot.
    public var twoPass: TwoPass = .unsupported("it has no two-pass rate control")

    /// Options whose values are names the library checks itself (printing its own line on
    /// stderr for one it does not know): checked first, the nearest name suggested.
    public var namedOptions: [NamedOption] { [speed, tune].compactMap { $0 } }

    /// Every encoder of every family.
    public static var all: [VideoEncoder] { VideoFamily.all.flatMap(\.encoders) }
    /// The encoder FFmpeg calls `name`; nil for encoders with no row.
    public static func named(_ name: String) -> VideoEncoder? { all.first { $0.name == name } }

    /// The level asked among the codec options (x264's `level`, x265's `level-idc` parameter).
    public func level(in codecOptions: [String: String]) -> String? {
        switch levelSignalling {
        case .option(let key): return codecOptions[key]
        case .parameterWhenAsked(let key): return parameters?.value(of: key, in: codecOptions)
        case .byEncoder: return nil
        }
    }

    /// `codecOptions` with the quality, the default speed, the fixed options and the level the
    /// encoder is told added as this encoder asks for them (where the options do not set them
    /// already), and the parameter string's quiet entry.
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
