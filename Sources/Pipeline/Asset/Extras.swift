import Recipe

/// A chapter mark: a titled span of the file's timeline.
public struct Chapter: Sendable, Hashable {
    public var start: MediaTime
    public var end: MediaTime
    public var title: String?

    public init(start: MediaTime, end: MediaTime, title: String?) {
        self.start = start; self.end = end; self.title = title
    }

    /// This chapter on a timeline that starts at `range.start`, cut to the range; nil when no
    /// part of it lies inside.
    public func clipped(to range: TimeRange) -> Chapter? {
        // A mark without length (start = end) is kept when it lies in the range.
        if start == end { return start >= range.start && start < range.end ? Chapter(start: start - range.start, end: end - range.start, title: title) : nil }
        let s = max(start, range.start), e = min(end, range.end)
        guard s.isNumeric, e > s else { return nil }
        return Chapter(start: s - range.start, end: e.isNumeric ? e - range.start : e, title: title)
    }
}

/// A still picture a file carries as cover art (an MP4 `covr`, a FLAC picture block, a Matroska
/// image attachment): the image file's bytes, as they are.
public struct AttachedPicture: Sendable, Hashable {
    /// The stream index FFmpeg gives it.
    public let track: Int
    /// FFmpeg's codec name: mjpeg, png, bmp, gif, webp…
    public let codec: String
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]
    /// The name a Matroska attachment gave it (`cover.jpg`), kept when it is written as one.
    public var fileName: String?
    /// What it shows, by ID3v2's picture types as FFmpeg's FLAC and MP3 readers name them
    /// (`Cover (front)`); nil where the source says nothing (an MP4 `covr`).
    public var pictureType: String?
    /// The FLAC or ID3v2 picture's description, where it has one.
    public var pictureDescription: String?

    public init(track: Int, codec: String, width: Int, height: Int, bytes: [UInt8], fileName: String? = nil,
                pictureType: String? = nil, pictureDescription: String? = nil) {
        self.track = track; self.codec = codec; self.width = width; self.height = height; self.bytes = bytes
        self.fileName = fileName; self.pictureType = pictureType; self.pictureDescription = pictureDescription
    }

    /// `png 600x600`.
    public var summary: String { "\(codec) \(width)x\(height)" }
}

/// A file a Matroska source carries as an attachment (a font for its subtitles, an image, any
/// other file): its name, MIME type and bytes, as they are.
public struct Attachment: Sendable, Hashable {
    /// The stream index FFmpeg gives it.
    public let track: Int
    public let fileName: String
    public let mimeType: String
    public let bytes: [UInt8]

    public init(track: Int, fileName: String, mimeType: String, bytes: [UInt8]) {
        self.track = track; self.fileName = fileName; self.mimeType = mimeType; self.bytes = bytes
    }

    /// `"font.ttf" (font/ttf, 12345 bytes)`.
    public var summary: String { "\"\(fileName)\" (\(mimeType), \(bytes.count) bytes)" }
}
