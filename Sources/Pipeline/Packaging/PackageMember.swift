import Recipe

/// An output that is one rendition of a streaming package (`PackageRole`, its paths expanded):
/// the run writes it as a fragmented MP4 inside the package's temporary folder and splits it
/// into `RENDITION/init.mp4` and `RENDITION/seg-N.m4s` there.
public struct PackageMember: Sendable, Hashable {
    /// The package folder.
    public let folder: String
    public let format: PackageFormat
    public let rendition: String
    public let segment: MediaTime
    /// The rung of `ladder: auto` this rendition is (nil: a rendition the recipe lists).
    public let rung: LadderChoice?
    /// Every rung its ladder weighed, kept or dropped, in the specification's order.
    public let rungs: [LadderChoice]

    public init(folder: String, format: PackageFormat, rendition: String, segment: MediaTime, rung: LadderChoice? = nil, rungs: [LadderChoice] = []) {
        self.folder = folder; self.format = format; self.rendition = rendition; self.segment = segment
        self.rung = rung; self.rungs = rungs
    }
}

extension ConversionPlan {
    /// The package this output is a rendition of; nil: a file of its own.
    public var package: PackageMember? { request?.package }
}
