import CFFmpeg
import Recipe

/// The profile a stream's own headers state, read by its family's `FrameSyntax` (avcC/hvcC, or
/// an Annex B SPS).
enum CodecProfile {
    static func name(_ par: UnsafePointer<AVCodecParameters>) -> String? {
        let p = par.pointee
        guard let data = p.extradata, p.extradata_size > 0,
              let syntax = VideoFamily.of(streamCodec: String(cString: avcodec_get_name(p.codec_id)))?.frames else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
        let profile: Int32?
        switch syntax {
        case .h264: profile = h264(bytes)
        case .hevc: profile = hevc(bytes)
        }
        guard let profile, let name = avcodec_profile_name(p.codec_id, profile) else { return nil }
        return String(cString: name)
    }

    /// FFmpeg's profile number: profile_idc with the constraint flags that name a profile.
    static func h264(_ b: [UInt8]) -> Int32? {
        let sps: ArraySlice<UInt8>
        if b.first == 1, b.count >= 4 {
            sps = b[1...3]  // avcC: profile, constraint flags, level
        } else if let nal = annexBUnits(b).first(where: { ($0.first ?? 0) & 0x1f == 7 }), nal.count >= 3 {
            sps = nal.dropFirst()
        } else {
            return nil
        }
        let idc = Int32(sps[sps.startIndex]), flags = sps[sps.startIndex + 1]
        var profile = idc
        if idc == 66, flags & 0x40 != 0 { profile |= FF_PROFILE_H264_CONSTRAINED }
        if [110, 122, 244].contains(idc), flags & 0x10 != 0 { profile |= FF_PROFILE_H264_INTRA }
        return profile
    }

    static func hevc(_ b: [UInt8]) -> Int32? {
        if b.first == 1, b.count >= 2 { return Int32(b[1] & 0x1f) }  // hvcC
        // SPS: 2-byte NAL header, then 4+3+1 bits, then profile_space(2) tier(1) profile_idc(5).
        guard let nal = annexBUnits(b).first(where: { (($0.first ?? 0) >> 1) & 0x3f == 33 }), nal.count >= 4 else { return nil }
        return Int32(nal[nal.startIndex + 3] & 0x1f)
    }

    /// The NAL units of an Annex B byte stream (start codes 00 00 01 / 00 00 00 01).
    static func annexBUnits(_ b: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.enumerated().map { k, s in
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : b.count
            while end > s, b[end - 1] == 0 { end -= 1 }
            return b[s..<end]
        }
    }
}
