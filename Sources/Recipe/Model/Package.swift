/// A streaming package: a folder of segments and playlists (`format: hls`, `dash`, `cmaf` on an
/// entry of `outputs:`) instead of one file.
public enum PackageFormat: String, Sendable, CaseIterable {
    case hls, dash, cmaf

    /// Whether it writes HLS playlists (`master.m3u8` and one per rendition).
    public var writesHLS: Bool { self == .hls || self == .cmaf }

    /// What its segments hold: the codecs whose `CODECS` string reencode reads from the parameter
    /// sets (`avc1.…`, `hvc1.…`, `mp4a.40.2`).
    public var holds: Holdings {
        Holdings(video: ["h264", "hevc"], audio: ["aac"], subtitles: [], description: "H.264 or HEVC video and AAC sound")
    }

    /// `an hls package`, `a dash package`, as a message says it.
    public var named: String { "\(self == .hls ? "an" : "a") \(rawValue) package" }
}

/// What makes an output one rendition of a package: the recipe's entry of `outputs:` with
/// `renditions:` becomes one output per rendition, each a fragmented MP4 cut on the package's
/// segment grid, which the run splits into the rendition's init and media segments inside the
/// package folder.
public struct PackageRole: Sendable {
    /// The package folder, as the recipe names it (may hold the path tokens).
    public let folder: Located<String>
    public let format: Located<PackageFormat>
    /// Every segment of every rendition starts at a multiple of this (`segment:`, default 6 s).
    public let segment: MediaTime
    /// The rendition's name: its sub-folder and its playlist's name.
    public let rendition: String
    /// The entry of `outputs:` (1-based) and how many renditions it has.
    public let entry: Int
    public let renditions: Int
    /// Where `ladder: auto` is written when this rendition is a ladder (one rendition per rung,
    /// chosen when the source is known: `Recipe.expandingLadders`); nil: a rendition as listed.
    public var ladder: Mark? = nil
    /// The rung this rendition is of its ladder, and every rung the ladder weighed (kept or
    /// dropped), once the ladder is expanded.
    public var rung: LadderChoice? = nil
    public var rungs: [LadderChoice] = []

    public init(folder: Located<String>, format: Located<PackageFormat>, segment: MediaTime, rendition: String, entry: Int, renditions: Int) {
        self.folder = folder; self.format = format; self.segment = segment
        self.rendition = rendition; self.entry = entry; self.renditions = renditions
    }

    /// The same rendition of the same package in another folder (batch puts every output in its
    /// output folder).
    public func moved(to folder: Located<String>) -> PackageRole {
        var r = PackageRole(folder: folder, format: format, segment: segment, rendition: rendition, entry: entry, renditions: renditions)
        (r.ladder, r.rung, r.rungs) = (ladder, rung, rungs)
        return r
    }
}
