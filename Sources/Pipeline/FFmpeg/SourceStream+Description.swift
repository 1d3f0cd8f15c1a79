import CFFmpeg
import Recipe

/// What the probe reads of a stream and a container: the FFmpeg side of `Asset`.
extension SourceStream {
    /// What the stream's samples are, as its parameters state them.
    var formatDescription: FormatDescription {
        let st = pointer
        let par = st.pointee.codecpar.pointee
        let type = MediaType(par.codec_type)
        var f = FormatDescription(mediaType: type, codec: String(cString: avcodec_get_name(par.codec_id)))
        if let p = avcodec_profile_name(par.codec_id, par.profile) { f.profile = String(cString: p) }
        f.bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : nil
        let tag = (0..<4).map { UInt8(truncatingIfNeeded: par.codec_tag >> (8 * $0)) }
        if tag.allSatisfy({ (0x20...0x7e).contains($0) }) { f.codecTag = String(decoding: tag, as: UTF8.self) }
        switch type {
        case .video:
            f.width = Int(par.width)
            f.height = Int(par.height)
            let sar = par.sample_aspect_ratio.num > 0 ? par.sample_aspect_ratio : st.pointee.sample_aspect_ratio
            if sar.num > 0 && sar.den > 0 {
                let g = Int(av_gcd(Int64(sar.num), Int64(sar.den)))
                f.pixelAspect = Ratio(Int(sar.num) / g, Int(sar.den) / g)
            }
            if let m = rx_stream_display_matrix(st) {
                let ccw = av_display_rotation_get(m)
                if ccw.isFinite {
                    // FFmpeg reports counter-clockwise degrees; people (and players) speak clockwise.
                    let cw = Int((-ccw).rounded())
                    f.rotation = ((cw % 360) + 360) % 360
                }
            }
            let pix = AVPixelFormat(rawValue: par.format)
            if pix != AV_PIX_FMT_NONE, let desc = av_pix_fmt_desc_get(pix) {
                f.pixelFormat = pixelFormatName(pix)
                f.bitDepth = Int(desc.pointee.comp.0.depth)
                f.hasAlpha = desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
            }
            f.colorPrimaries = colorName(av_color_primaries_name(par.color_primaries), unspecified: par.color_primaries == AVCOL_PRI_UNSPECIFIED)
            f.colorTransfer = colorName(av_color_transfer_name(par.color_trc), unspecified: par.color_trc == AVCOL_TRC_UNSPECIFIED)
            f.colorMatrix = colorName(av_color_space_name(par.color_space), unspecified: par.color_space == AVCOL_SPC_UNSPECIFIED)
            f.colorRange = colorName(av_color_range_name(par.color_range), unspecified: par.color_range == AVCOL_RANGE_UNSPECIFIED)
            f.chromaLocation = colorName(av_chroma_location_name(par.chroma_location), unspecified: par.chroma_location == AVCHROMA_LOC_UNSPECIFIED)
            f.fieldOrder = fieldOrder(par.field_order)
            let avg = st.pointee.avg_frame_rate
            if avg.num > 0 && avg.den > 0 && avg.num <= Int32.max && avg.den <= Int32.max {
                f.averageFrameRate = standardRate(near: FrameRate(frames: avg.num, seconds: avg.den))
            }
            let r = st.pointee.r_frame_rate
            if r.num > 0 && r.den > 0 { f.minFrameDuration = MediaTime(value: Int64(r.den), timescale: r.num) }
            if let a = f.averageFrameRate {
                let base = r.num > 0 && r.den > 0 ? standardRate(near: FrameRate(frames: r.num, seconds: r.den)) : a
                f.isVariableFrameRate = !a.isStandardLooking || base != a
            }
            if st.pointee.nb_frames > 0 { f.frameCount = Int(st.pointee.nb_frames) }
        case .audio:
            f.sampleRate = Int(par.sample_rate)
            f.channels = Int(par.ch_layout.nb_channels)
            var layout = par.ch_layout
            if layout.order != AV_CHANNEL_ORDER_UNSPEC {
                var buf = [CChar](repeating: 0, count: 64)
                if rx_channel_layout_describe(&layout, &buf, Int32(buf.count)) > 0 { f.channelLayout = String(cChars: buf) }
            }
            let sf = AVSampleFormat(rawValue: par.format)
            if let n = av_get_sample_fmt_name(sf) { f.sampleFormat = String(cString: n) }
            // The depth of integer samples (a 24-bit FLAC or PCM decodes to 32-bit samples);
            // float samples (a lossy codec's) have none to keep.
            if par.bits_per_raw_sample > 0 {
                f.bitDepth = Int(par.bits_per_raw_sample)
            } else if ![AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP, AV_SAMPLE_FMT_NONE].contains(sf) {
                f.bitDepth = Int(av_get_bytes_per_sample(sf)) * 8
            }
            if st.pointee.nb_frames > 0 { f.frameCount = Int(st.pointee.nb_frames) }
        default:
            break
        }
        return f
    }
}

/// The field order a stream states (its parser's or decoder's reading of the first pictures).
private func fieldOrder(_ o: AVFieldOrder) -> FieldOrder? {
    switch o {
    case AV_FIELD_PROGRESSIVE: return .progressive
    case AV_FIELD_TT: return .tt
    case AV_FIELD_BB: return .bb
    case AV_FIELD_TB: return .tb
    case AV_FIELD_BT: return .bt
    default: return nil
    }
}

private func colorName(_ p: UnsafePointer<CChar>?, unspecified: Bool) -> String? {
    guard !unspecified, let p else { return nil }
    return String(cString: p)
}

extension InputContainer {
    /// The chapter marks, on the file's timeline, in time order (marks without a usable time left out).
    var chapters: [Chapter] {
        let ctx = context
        var out: [Chapter] = []
        for i in 0..<Int(ctx.pointee.nb_chapters) {
            guard let c = ctx.pointee.chapters[i]?.pointee else { continue }
            let start = MediaTime(ts: c.start, timeBase: TimeBase(c.time_base)), end = MediaTime(ts: c.end, timeBase: TimeBase(c.time_base))
            guard start.isNumeric, end.isNumeric, end >= start else { continue }
            out.append(Chapter(start: start, end: end, title: FFmpeg.dictionary(c.metadata)["title"]))
        }
        return out.sorted { $0.start < $1.start }
    }
}

extension SourceStream {
    /// The cover art this stream holds; nil when it is not cover art.
    var attachedPicture: AttachedPicture? {
        let st = pointer
        let pkt = st.pointee.attached_pic
        guard st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0, pkt.size > 0, let data = pkt.data else { return nil }
        let par = st.pointee.codecpar.pointee
        let tags = FFmpeg.dictionary(st.pointee.metadata)
        // FFmpeg's FLAC and ID3v2 readers state a picture's type as its `comment`, its
        // description as its `title`.
        return AttachedPicture(track: self.index, codec: String(cString: avcodec_get_name(par.codec_id)),
                               width: Int(par.width), height: Int(par.height),
                               bytes: Array(UnsafeBufferPointer(start: data, count: Int(pkt.size))),
                               fileName: tags["filename"], pictureType: tags["comment"].flatMap { $0.isEmpty ? nil : $0 },
                               pictureDescription: tags["title"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The codec's out-of-band set-up (for H.264/HEVC in MP4/MOV/MKV the avcC/hvcC record with
    /// the parameter sets): what copied samples of two streams need alike to be joined.
    var codecSetup: [UInt8] {
        guard let par = pointer.pointee.codecpar?.pointee, let data = par.extradata else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(max(par.extradata_size, 0))))
    }

    /// A Matroska attachment stream: the file is the stream's extradata.
    var attachment: Attachment? {
        let st = pointer
        guard let par = st.pointee.codecpar?.pointee, par.codec_type == AVMEDIA_TYPE_ATTACHMENT else { return nil }
        let tags = FFmpeg.dictionary(st.pointee.metadata)
        let bytes = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(par.extradata_size, 0)))) } ?? []
        return Attachment(track: self.index, fileName: tags["filename"] ?? "attachment-\(self.index)",
                          mimeType: tags["mimetype"] ?? "application/octet-stream", bytes: bytes)
    }
}
