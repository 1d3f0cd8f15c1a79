import CFFmpeg

/// The field order of a video stream whose container and parser leave it unstated (DV, ProRes,
/// Motion JPEG, MPEG-4 Part 2 say it only in each picture): read from the first decoded picture's
/// own flags. Only for codecs that code interlaced pictures, so most files decode nothing here.
enum FieldOrderProbe {
    static let codecs: Set<String> = ["dvvideo", "prores", "mjpeg", "mpeg4", "vc1", "wmv3", "dnxhd", "ffv1", "h264", "mpeg2video"]

    static func order(_ st: UnsafeMutablePointer<AVStream>, path: String) -> FieldOrder? {
        let par = st.pointee.codecpar.pointee
        guard par.field_order == AV_FIELD_UNKNOWN, st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0,
              codecs.contains(String(cString: avcodec_get_name(par.codec_id))),
              let frame = HDRProbe.firstFrame(path: path, stream: Int(st.pointee.index)) else { return nil }
        guard frame.pointer.pointee.interlaced_frame != 0 else { return .progressive }
        return frame.pointer.pointee.top_field_first != 0 ? .tt : .bb
    }
}
