/// HDR10 static metadata and what else an HDR source carries, as plain values (the settings
/// assistant is tested on made-up sources).

/// The mastering display (SMPTE ST 2086) in the units HEVC's SEI, x265 and the MP4 `mdcv` box
/// use: chromaticity in 1/50000, luminance in 1/10000 cd/m².
public struct MasteringDisplay: Sendable, Hashable, CustomStringConvertible {
    public struct Point: Sendable, Hashable {
        public var x: Int, y: Int
        public init(_ x: Int, _ y: Int) { self.x = x; self.y = y }
    }
    public var red: Point, green: Point, blue: Point, whitePoint: Point
    public var minLuminance: Int, maxLuminance: Int

    public init(red: Point, green: Point, blue: Point, whitePoint: Point, minLuminance: Int, maxLuminance: Int) {
        self.red = red; self.green = green; self.blue = blue; self.whitePoint = whitePoint
        self.minLuminance = minLuminance; self.maxLuminance = maxLuminance
    }

    /// x265's and x264's `master-display` / `mastering-display` value (green, blue, red order).
    public var encoderParameter: String {
        "G(\(green.x),\(green.y))B(\(blue.x),\(blue.y))R(\(red.x),\(red.y))WP(\(whitePoint.x),\(whitePoint.y))L(\(maxLuminance),\(minLuminance))"
    }

    /// Peak luminance in cd/m².
    public var peak: Double { Double(maxLuminance) / 10000 }

    public var description: String {
        func f(_ v: Int, _ d: Double) -> String { String(Double(v) / d) }
        return "R(\(f(red.x, 50000)),\(f(red.y, 50000))) G(\(f(green.x, 50000)),\(f(green.y, 50000))) B(\(f(blue.x, 50000)),\(f(blue.y, 50000))) WP(\(f(whitePoint.x, 50000)),\(f(whitePoint.y, 50000))) \(f(minLuminance, 10000))-\(f(maxLuminance, 10000)) cd/m²"
    }
}

/// Content light level (CTA-861.3): MaxCLL and MaxFALL in cd/m².
public struct ContentLightLevel: Sendable, Hashable {
    public var maxCLL: Int
    public var maxFALL: Int
    public init(maxCLL: Int, maxFALL: Int) { self.maxCLL = maxCLL; self.maxFALL = maxFALL }
    /// x265's `max-cll` and x264's `cll` value.
    public var encoderParameter: String { "\(maxCLL),\(maxFALL)" }
}

/// A Dolby Vision configuration record (the `dvcC`/`dvvC` box, Matroska's block addition mapping).
public struct DolbyVisionConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var profile: Int
    public var level: Int
    /// What a player without Dolby Vision sees: 0 none (profile 5), 1 HDR10, 2 SDR, 4 HLG.
    public var compatibilityID: Int
    public init(profile: Int, level: Int, compatibilityID: Int) {
        self.profile = profile; self.level = level; self.compatibilityID = compatibilityID
    }
    public var description: String { "profile \(profile).\(compatibilityID)" }
}

/// The HDR items of a video track: stream-level (container) ones, and those the first picture
/// carries in its SEI when the container says nothing.
public struct HDRItems: Sendable, Hashable {
    public var masteringDisplay: MasteringDisplay?
    public var contentLightLevel: ContentLightLevel?
    /// HDR10+ (SMPTE 2094-40) dynamic metadata on the pictures.
    public var hasHDR10Plus = false
    public var dolbyVision: DolbyVisionConfiguration?
    public init() {}
}

/// How the pixels of a track encode light, from its transfer characteristic.
public enum DynamicRange: String, Sendable, Hashable {
    case sdr
    /// SMPTE ST 2084 (HDR10, Dolby Vision 8.1).
    case pq
    /// ARIB STD-B67 (broadcast HDR, iPhone, Dolby Vision 8.4).
    case hlg

    public init(transfer: String?) {
        switch transfer {
        case "smpte2084": self = .pq
        case "arib-std-b67": self = .hlg
        default: self = .sdr
        }
    }

    public var name: String {
        switch self {
        case .sdr: return "SDR"
        case .pq: return "PQ/HDR10"
        case .hlg: return "HLG"
        }
    }
}
