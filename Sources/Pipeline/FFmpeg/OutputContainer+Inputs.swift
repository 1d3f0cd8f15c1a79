import CFFmpeg
import Recipe

/// One stream of an output container: a view, valid while the container is open (the
/// container owns the AVStream and frees it with itself).
struct OutputStream {
    let pointer: UnsafeMutablePointer<AVStream>

    var index: Int32 { pointer.pointee.index }
    /// What the muxer counts the stream's timestamps in (it may change it when it writes the header).
    var timeBase: TimeBase { TimeBase(pointer.pointee.time_base) }
    /// The profile the stream's own headers state (H.264, HEVC), as the muxer will write it.
    var statedProfile: String? { CodecProfile.name(pointer.pointee.codecpar) }
    /// Its packets come steadily, one after another (video, audio), not now and then (subtitles).
    var isSteady: Bool { [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO].contains(pointer.pointee.codecpar.pointee.codec_type) }

    /// HDR10's static metadata as the container states it (MP4's `mdcv` and `clli`, Matroska's
    /// colour elements), each where the stream states none yet: an encoder's (read from the
    /// source's SEI by the settings assistant), or a smart-rendered track's, whose copied
    /// pictures carry it in their SEI while the source's container stated nothing.
    func state(masteringDisplay: MasteringDisplay?, contentLightLevel: ContentLightLevel?) throws(MediaError) {
        var size = 0
        if let m = masteringDisplay, rx_stream_side_data(pointer, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size) == nil {
            try FFmpeg.check(rx_stream_set_mastering(pointer, m.sideDataValues), "mastering display metadata")
        }
        if let c = contentLightLevel, rx_stream_side_data(pointer, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size) == nil {
            try FFmpeg.check(rx_stream_set_content_light(pointer, UInt32(clamping: c.maxCLL), UInt32(clamping: c.maxFALL)), "content light level")
        }
    }

    /// Turns the picture for display (clockwise degrees) and sets the track's metadata.
    func finish(rotation: Int, metadata: [String: String]) throws(MediaError) {
        if rotation != 0 {
            // av_display_rotation_set takes clockwise degrees, as `rotation` is.
            try FFmpeg.check(rx_stream_set_rotation(pointer, Double(rotation)), "display matrix")
        }
        for (k, v) in metadata { try FFmpeg.set(&pointer.pointee.metadata, k, v, in: "a track's metadata") }
    }
}

extension SourceStream {
    /// A VP9 stream whose picture format FFmpeg could not read: MP4 cannot describe it (vpcC).
    var lacksVP9PictureFormat: Bool {
        let par = pointer.pointee.codecpar.pointee
        return par.codec_id == AV_CODEC_ID_VP9 && par.format < 0
    }

    /// Carries a Dolby Vision configuration (stream side data).
    var carriesDolbyVision: Bool {
        var size = 0
        return rx_stream_side_data(pointer, AV_PKT_DATA_DOVI_CONF, &size) != nil
    }
}

extension OutputContainer {
    /// A stream fed by `encoder` (opened already: its parameters are final), in its time base.
    func addStream(encodedBy encoder: Encoder) throws(MediaError) -> OutputStream {
        let st = try addStream()
        try encoder.copyParameters(to: st.pointee.codecpar)
        st.pointee.time_base = encoder.timeBase.rational
        // Matroska states a pixel aspect from the stream's (MP4's `pasp` from the parameters').
        st.pointee.sample_aspect_ratio = st.pointee.codecpar.pointee.sample_aspect_ratio
        let stream = OutputStream(pointer: st)
        try stream.state(masteringDisplay: encoder.masteringDisplay, contentLightLevel: encoder.contentLightLevel)
        return stream
    }

    /// A stream fed by a subtitle encoder (opened already), in its time base.
    func addStream(encodedBy encoder: SubtitleEncoder) throws(MediaError) -> OutputStream {
        let st = try addStream()
        try encoder.copyParameters(to: st.pointee.codecpar)
        st.pointee.time_base = SubtitleEncoder.timeBase.rational
        return OutputStream(pointer: st)
    }

    /// A stream fed with `source`'s own packets, in its time base.
    func addStream(copying source: SourceStream) throws(MediaError) -> OutputStream {
        let st = try addStream()
        try FFmpeg.check(avcodec_parameters_copy(st.pointee.codecpar, source.pointer.pointee.codecpar), "stream parameters")
        // The source container's tag may not be valid in ours (e.g. Matroska → MP4).
        st.pointee.codecpar.pointee.codec_tag = 0
        // HDR10 and Dolby Vision configuration live in stream side data, which the parameters
        // copy leaves behind (before FFmpeg 6.1).
        try FFmpeg.check(rx_stream_copy_side_data(st, source.pointer), "stream side data")
        st.pointee.time_base = source.pointer.pointee.time_base
        return OutputStream(pointer: st)
    }

    /// Sets the file's metadata (before the header is written).
    func setMetadata(_ entries: [String: String]) throws(MediaError) {
        for (k, v) in entries { try FFmpeg.set(&context.pointee.metadata, k, v, in: "the file's metadata") }
    }
}
