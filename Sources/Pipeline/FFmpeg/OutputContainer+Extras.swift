import CFFmpeg
import Recipe

/// Chapters and cover art: what a container holds beside its tracks.
extension OutputContainer {
    /// Chapter times are given to the muxer in nanoseconds: exact for every time a source or a
    /// recipe states in milliseconds or finer decimal units.
    static let chapterTimeBase = TimeBase(num: 1, den: 1_000_000_000)

    /// Sets the chapters (before the header is written). The arrays are allocated with FFmpeg's
    /// allocator: avformat_free_context frees them, with the context.
    func setChapters(_ all: [Chapter]) throws(MediaError) {
        // A hostile file's chapter times may not fit in nanoseconds: such a mark is not kept
        // (a player could not seek to it either), the rest are.
        let chapters = all.filter { (try? $0.start.ts(in: Self.chapterTimeBase)) != nil && (try? $0.end.ts(in: Self.chapterTimeBase)) != nil }
        guard !chapters.isEmpty, context.pointee.nb_chapters == 0 else { return }
        guard let table = av_calloc(chapters.count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride) else {
            throw ResourceShortage.outOfMemory("a chapter")
        }
        let slots = table.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: chapters.count)
        context.pointee.chapters = slots
        for (i, c) in chapters.enumerated() {
            guard let raw = av_mallocz(MemoryLayout<AVChapter>.stride) else { throw ResourceShortage.outOfMemory("a chapter") }
            let ch = raw.bindMemory(to: AVChapter.self, capacity: 1)
            slots[i] = ch
            context.pointee.nb_chapters = UInt32(i + 1)
            ch.pointee.id = Int64(i + 1)
            ch.pointee.time_base = Self.chapterTimeBase.rational
            ch.pointee.start = try c.start.ts(in: Self.chapterTimeBase)
            ch.pointee.end = try c.end.ts(in: Self.chapterTimeBase)
            if let title = c.title { try FFmpeg.set(&ch.pointee.metadata, "title", title, in: "chapter \(i + 1)'s metadata") }
        }
    }

    /// A stream that carries one picture as cover art (MP4 `covr`, a FLAC picture block): its one
    /// packet is written by `writePicture` once the header is written.
    func addPictureStream(_ p: AttachedPicture) throws(MediaError) -> OutputStream {
        let st = try addStream()
        let par = st.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        par.pointee.codec_id = avcodec_descriptor_get_by_name(p.codec)?.pointee.id ?? AV_CODEC_ID_NONE
        par.pointee.width = Int32(p.width)
        par.pointee.height = Int32(p.height)
        st.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
        st.pointee.time_base = AVRational(num: 1, den: 90000)
        // FFmpeg's FLAC writer reads the picture's type from `comment` (else writes "Other") and
        // its description from `title`; MP4's `covr` has neither, and is the front cover.
        try FFmpeg.set(&st.pointee.metadata, "comment", p.pictureType ?? "Cover (front)", in: "the cover art's metadata")
        if let d = p.pictureDescription { try FFmpeg.set(&st.pointee.metadata, "title", d, in: "the cover art's metadata") }
        return OutputStream(pointer: st)
    }

    func writePicture(_ p: AttachedPicture, to st: OutputStream) throws(MediaError) {
        let packet = try Packet()
        try FFmpeg.check(av_new_packet(packet.pointer, Int32(p.bytes.count)), "cover art")
        p.bytes.withUnsafeBufferPointer { src in
            if let from = src.baseAddress, let to = packet.pointer.pointee.data { to.update(from: from, count: src.count) }
        }
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        packet.pts = 0
        packet.dts = 0
        packet.streamIndex = st.index
        try write(packet)
    }

    /// A Matroska attachment holding a file: a picture (`cover.jpg` is the front cover by the
    /// Matroska convention), a font, anything; `codec` is FFmpeg's name for it where it has one.
    func addAttachment(_ file: [UInt8], codec: String?, fileName: String, mimeType: String) throws(MediaError) {
        let st = try addStream()
        let par = st.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        par.pointee.codec_id = codec.flatMap { avcodec_descriptor_get_by_name($0)?.pointee.id } ?? AV_CODEC_ID_NONE
        guard let size = Int32(exactly: file.count) else { throw MediaError(.unsupported, "the attachment \"\(fileName)\" is too large to write") }
        // Freed with the stream's parameters, by avformat_free_context.
        guard let data = av_mallocz(file.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { throw ResourceShortage.outOfMemory("the attachment \"\(fileName)\"") }
        let bytes = data.bindMemory(to: UInt8.self, capacity: file.count)
        file.withUnsafeBufferPointer { src in if let from = src.baseAddress { bytes.update(from: from, count: src.count) } }
        par.pointee.extradata = bytes
        par.pointee.extradata_size = size
        try FFmpeg.set(&st.pointee.metadata, "filename", fileName, in: "the attachment's metadata")
        try FFmpeg.set(&st.pointee.metadata, "mimetype", mimeType, in: "the attachment's metadata")
    }
}
