import Recipe

/// How smart rendering makes one video track: what the output keeps, as runs in output order,
/// each either copied from its source as it is (whole groups of pictures) or decoded and
/// encoded again (the pictures between a cut and the next place a copy can start or end).
/// `SmartPass` plans it; `SmartSequence` runs it.
public struct SmartRender: Sendable {
    public enum Kind: String, Sendable { case copied, encoded }

    public struct Run: Sendable {
        public let kind: Kind
        /// Its source's track.
        let track: Int
        /// Its source range and place on the output (scale 1).
        let segment: TimeSegment
        /// The timeline segment (1-based) it is part of, as `plan` names it.
        public let piece: Int
        /// The pictures it shows (`GroupScan`).
        public let pictures: Int
        /// Groups of pictures a copied run holds.
        public let groups: Int

        public var sourceRange: TimeRange { segment.sourceRange }
        /// Which of the plan's sources (`ConversionPlan.sources`) it reads.
        public var sourceFile: Int { segment.source }
        public var targetStart: MediaTime { segment.targetStart }
    }

    public internal(set) var runs: [Run]
    /// The encoder of the encoded runs: the output's settings, told the source's profile, level
    /// and entropy coding so that its pictures and the copied ones make one stream.
    public internal(set) var settings: ResolvedVideoSettings
    /// The source's stream form (its parameter sets, NAL length), which every run is put in.
    let stream: NALStream

    public var encodedPictures: Int { runs.filter { $0.kind == .encoded }.reduce(0) { $0 + $1.pictures } }
    public var copiedPictures: Int { runs.filter { $0.kind == .copied }.reduce(0) { $0 + $1.pictures } }
    public var copiedGroups: Int { runs.reduce(0) { $0 + $1.groups } }
}
