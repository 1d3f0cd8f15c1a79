import CFFmpeg
import Recipe

extension SlowMotionLayer {
    /// The video track's frames in decode order, with presentation times and temporal layers
    /// read from their NAL unit headers (no decoding). `track` is a stream index; nil means the
    /// first video track that is not cover art. Reads every packet of the file: meant for the
    /// conform and for tests, not for `inspect`.
    public static func frames(path: String, track: Int? = nil) throws(MediaError) -> [SlowMotionFrame] {
        // Packet times and NAL headers only: no stream information (it decodes pictures).
        let input = try InputContainer(path: path, streamInformation: false)
        var chosen: Int?
        for i in 0..<input.streamCount {
            let st = input.stream(i)
            let isVideo = st.mediaType == .video && !st.isAttachedPicture
            if let track { if i == track && isVideo { chosen = i } } else if isVideo && chosen == nil { chosen = i }
        }
        guard let index = chosen else {
            throw MediaError(.notMedia, track.map { "track #\($0) is not a video track" } ?? "it has no video track", file: path)
        }
        let st = input.stream(index).pointer
        let par = st.pointee.codecpar.pointee
        let name = String(cString: avcodec_get_name(par.codec_id))
        guard let codec = VideoFamily.of(streamCodec: name)?.frames else {
            throw MediaError(.unsupported, "its video is \(name); temporal layers are read from H.264 and HEVC only", file: path, track: index)
        }
        let extradata = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(par.extradata_size, 0)))) } ?? []
        let framing = Self.framing(codec: codec, extradata: extradata)
        let timeBase = TimeBase(st.pointee.time_base)
        var frames: [SlowMotionFrame] = []
        let packet = try Packet()
        while try input.read(into: packet) {
            guard packet.streamIndex == Int32(index) else { continue }
            guard packet.pts != FFmpeg.noPTS else {
                throw MediaError(.unsupported, "frame \(frames.count + 1) has no presentation time", file: path, track: index)
            }
            frames.append(SlowMotionFrame(pts: MediaTime(ts: packet.pts, timeBase: timeBase),
                                          temporalLayer: temporalLayer(of: packet.bytes, codec: codec, framing: framing)))
        }
        return frames
    }

    /// MP4's avcC (version 1) and hvcC (version 1) say the NAL length size in their low two bits
    /// of byte 4 and byte 21; anything else is taken for Annex B start codes.
    static func framing(codec: Codec, extradata: [UInt8]) -> Framing {
        switch codec {
        case .h264 where extradata.count >= 7 && extradata[0] == 1:
            return .lengthPrefixed(Int(extradata[4] & 3) + 1)
        case .hevc where extradata.count >= 23 && extradata[0] == 1:
            return .lengthPrefixed(Int(extradata[21] & 3) + 1)
        default:
            return .annexB
        }
    }
}
