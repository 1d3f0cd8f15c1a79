import CFFmpeg
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

    public init(track: Int, codec: String, width: Int, height: Int, bytes: [UInt8], fileName: String? = nil) {
        self.track = track; self.codec = codec; self.width = width; self.height = height; self.bytes = bytes
        self.fileName = fileName
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

extension Asset {
    static func readChapters(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> [Chapter] {
        var out: [Chapter] = []
        for i in 0..<Int(ctx.pointee.nb_chapters) {
            guard let c = ctx.pointee.chapters[i]?.pointee else { continue }
            let start = MediaTime(ts: c.start, timeBase: c.time_base), end = MediaTime(ts: c.end, timeBase: c.time_base)
            guard start.isNumeric, end.isNumeric, end >= start else { continue }
            out.append(Chapter(start: start, end: end, title: dictionary(c.metadata)["title"]))
        }
        return out.sorted { $0.start < $1.start }
    }

    static func readPicture(_ st: UnsafeMutablePointer<AVStream>, index: Int) -> AttachedPicture? {
        let pkt = st.pointee.attached_pic
        guard st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0, pkt.size > 0, let data = pkt.data else { return nil }
        let par = st.pointee.codecpar.pointee
        return AttachedPicture(track: index, codec: String(cString: avcodec_get_name(par.codec_id)),
                               width: Int(par.width), height: Int(par.height),
                               bytes: Array(UnsafeBufferPointer(start: data, count: Int(pkt.size))),
                               fileName: dictionary(st.pointee.metadata)["filename"])
    }

    /// A Matroska attachment stream: the file is the stream's extradata.
    static func readAttachment(_ st: UnsafeMutablePointer<AVStream>, index: Int) -> Attachment? {
        guard let par = st.pointee.codecpar?.pointee, par.codec_type == AVMEDIA_TYPE_ATTACHMENT else { return nil }
        let tags = dictionary(st.pointee.metadata)
        let bytes = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(par.extradata_size, 0)))) } ?? []
        return Attachment(track: index, fileName: tags["filename"] ?? "attachment-\(index)",
                          mimeType: tags["mimetype"] ?? "application/octet-stream", bytes: bytes)
    }
}
