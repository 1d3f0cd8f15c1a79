/// Everything particular to one video codec, in one row: what a recipe calls it, the encoders
/// that make it (each with what is particular to its library: `VideoEncoder`), its profiles and
/// levels, how its pixel format is chosen, and how its compressed frames are read. The settings
/// assistant, the encoder and the readers ask the row; adding a codec is adding a row to
/// `VideoFamily.all`, adding an encoder of it is adding one to its `encoders`.
/// FFmpeg-free (names and numbers only), so that recipes are checked against it too.
public struct VideoFamily: Sendable {
    /// The recipe's name for it (`codec: hevc`).
    public let codec: VideoCodec
    /// FFmpeg's name for its streams (a track's `format.codec`).
    public let streamCodec: String
    /// As people write it: `H.264`.
    public let displayName: String
    /// FFmpeg's encoders for it, preferred first.
    public let encoders: [VideoEncoder]
    /// Every profile the codec has, with the most it carries.
    public let profiles: [Profile]
    /// The profiles the assistant chooses from, in order: the first that carries the pixel
    /// format (else the first of the deepest that carries its chroma).
    public let automaticProfiles: [String]
    public let levels: LevelTable
    public let pixelFormats: PixelFormatRule
    /// Codes interlaced pictures as fields (`deinterlace: off`).
    public let codesFields: Bool
    /// How passthrough and selective decode read its compressed frames; nil where they are not
    /// read without decoding (every frame is decoded).
    public let frames: FrameSyntax?
    /// Every picture is coded on its own (ProRes): no GOP to choose.
    public var intraOnly = false
    /// An editing codec whose files keep what the camera shot: without a `deinterlace` setting,
    /// an interlaced source's fields are kept and coded as fields where the pictures keep their
    /// size (ProRes, as Apple's interlaced ProRes files are), not made progressive.
    public var keepsFields = false
    /// Why a GOP means nothing here (`plan`'s gop decision, and the warning on an asked one).
    public var intraOnlyReason: String? { intraOnly ? "\(displayName) codes every picture on its own: each is a keyframe" : nil }

    /// The rows, the default first.
    public static let all: [VideoFamily] = [.h264, .hevc, .av1, .vp9, .prores]
    /// What a recipe that names no codec gets.
    public static var `default`: VideoFamily { all[0] }

    /// The qualities some encoder takes: what a recipe's `quality` is checked against before its
    /// codec is known (a preset may name it).
    public static var qualityBounds: ClosedRange<Double> {
        // Closures, not key paths: the runtime's projection of an optional key path copies
        // overlapping memory (AddressSanitizer stops the recipe fuzzer on it).
        let scales = all.flatMap { $0.encoders }.compactMap { $0.quality?.range }
        return scales.map { $0.lowerBound }.min()!...scales.map { $0.upperBound }.max()!
    }

    /// Why a recipe's rate setting (`quality`, `bitrate`, `max-bitrate`) is refused where
    /// `encoder` has no quality scale (prores_ks, whose profile is the rate); nil where it takes it.
    public func rateRefusal(_ key: SettingKey, encoder: VideoEncoder) -> String? {
        guard encoder.quality == nil else { return nil }
        let names = profiles.map(\.name).joined(separator: ", ")
        return "'\(key.rawValue)' does not apply to \(displayName): each profile codes at its own data rate (\(names)); choose one with 'profile'"
    }

    /// The row of a recipe's codec; nil for `copy`.
    public static func of(_ codec: VideoCodec) -> VideoFamily? { all.first { $0.codec == codec } }
    /// The row whose streams FFmpeg calls `name` (`h264`); nil for codecs with no row.
    public static func of(streamCodec name: String) -> VideoFamily? { all.first { $0.streamCodec == name } }
    /// The row of FFmpeg's encoder `name` (`libx265`); nil for encoders with no row.
    public static func of(encoder name: String) -> VideoFamily? { all.first { $0.encoder(named: name) != nil } }

    /// Its encoder called `name` by FFmpeg; nil where it has none of that name.
    public func encoder(named name: String) -> VideoEncoder? { encoders.first { $0.name == name } }

    /// The first of its encoders that `isAvailable` says this FFmpeg has, else the preferred one
    /// (whose absence is then reported by whoever opens it).
    public func encoder(where isAvailable: (String) -> Bool) -> VideoEncoder {
        encoders.first { isAvailable($0.name) } ?? encoders[0]
    }

    /// The lowest of `automaticProfiles` that carries `depth`-bit samples at `chroma` (444,
    /// 422, 420); where none carries the depth, the first of the deepest that carries the chroma.
    public func automaticProfile(depth: Int, chroma: Int) -> String {
        let carriers = automaticProfiles.compactMap { name in profiles.first { $0.name == name } }.filter { $0.carries(chroma: chroma) }
        if let fit = carriers.first(where: { $0.depth >= depth }) { return fit.name }
        let deepest = carriers.map(\.depth).max()
        return carriers.first { $0.depth == deepest }?.name ?? automaticProfiles[automaticProfiles.count - 1]
    }
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
    /// The chroma formats it has where they do not nest (AV1 High: 4:2:0 and 4:4:4, not 4:2:2);
    /// empty: every one up to `chroma`.
    public let chromas: [Int]

    public init(_ name: String, depth: Int, chroma: Int, pixelFormats: [String] = [], chromas: [Int] = []) {
        self.name = name; self.depth = depth; self.chroma = chroma; self.pixelFormats = pixelFormats; self.chromas = chromas
    }

    /// Whether pictures in `pixelFormat` (`depth`-bit, `chroma`) are coded in this profile.
    public func carries(_ pixelFormat: String, depth: Int, chroma: Int) -> Bool {
        pixelFormats.isEmpty ? depth <= self.depth && carries(chroma: chroma) : pixelFormats.contains(pixelFormat)
    }

    /// Whether it has the chroma format `chroma` (444, 422, 420).
    public func carries(chroma: Int) -> Bool { chromas.isEmpty ? chroma <= self.chroma : chromas.contains(chroma) }
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
