import Recipe

/// What an output will weigh, said before the work (AVAssetExportSession's
/// `estimatedOutputFileLength`): each track's bytes, how they were found, and the container's own.
public struct SizeEstimate: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        /// Quality-coded tracks from a sample encode: short spans spread over the source, encoded
        /// with the real settings, scaled to the duration.
        case sample
        /// No encode: quality-coded tracks from an assumed bits per pixel (`assumedBitsPerPixel`).
        case fast
    }

    /// How one track's bytes were found.
    public enum Basis: String, Sendable {
        /// Its bit rate times the duration.
        case bitrate
        /// Measured in the sample encode, scaled to the duration.
        case sample
        /// Assumed (`fast`): bits per pixel, or a lossless codec's share of PCM.
        case assumed
        /// Copied: the source track's bit rate times the duration.
        case copied
    }

    public struct Track: Sendable {
        /// 1-based, as `plan` numbers output tracks.
        public let output: Int
        public let bytes: Int64
        public let basis: Basis
        /// How far the true size may be from `bytes`, as a fraction (0.02: ±2 %).
        public let spread: Double
        /// What it was found from, in words.
        public let detail: String
    }

    public let method: Method
    public let tracks: [Track]
    /// The container's own bytes: its header and index, and each sample's framing.
    public let overhead: Int64
    /// The source file's size (the first source's).
    public let sourceBytes: Int64
    /// What `sample` measured on (nil: nothing was encoded), as `N spans of Ts`.
    public let sampled: String?

    public var bytes: Int64 { tracks.reduce(overhead) { $0 + $1.bytes } }
    /// The range the file's size is expected in.
    public var low: Int64 { bytes - spread }
    public var high: Int64 { bytes + spread }
    private var spread: Int64 { tracks.reduce(Int64(0)) { $0 + Int64(Double($1.bytes) * $1.spread) } + overhead / 10 }

    /// The estimate is larger than the source: the warning `plan` gives.
    public var exceedsSource: Bool { sourceBytes > 0 && bytes > sourceBytes }

    /// Bits per pixel a quality-coded family is assumed to spend without a sample encode (their
    /// default quality on camera material): H.264 0.10, HEVC and VP9 0.06, AV1 0.05, ProRes 1.5.
    static func assumedBitsPerPixel(_ codec: VideoCodec) -> Double {
        switch codec {
        case .h264: return 0.10
        case .hevc, .vp9: return 0.06
        case .av1: return 0.05
        case .prores: return 1.5
        case .copy: return 0
        }
    }

    /// The container's bytes per picture and per sound frame (framing and index entries) and for
    /// the file itself (header, trailer), as measured on reencode's own outputs: MP4/MOV index
    /// entries (a picture's size, composition offset, sync and chunk entries; a sound frame's
    /// size); Matroska block headers, clusters and cues.
    static func containerCost(_ format: ContainerFormat) -> (picture: Double, sound: Double, fixed: Double) {
        switch format {
        case .mp4, .mov, .m4a: return (16, 6, 1_500)
        case .mkv, .webm: return (8, 8, 1_500)
        case .flac, .opus, .ogg, .wav: return (0, 2, 1_000)
        }
    }
}
