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

    public init(folder: String, format: PackageFormat, rendition: String, segment: MediaTime) {
        self.folder = folder; self.format = format; self.rendition = rendition; self.segment = segment
    }
}

extension ConversionPlan {
    /// The package this output is a rendition of; nil: a file of its own.
    public var package: PackageMember? { request?.package }
}
