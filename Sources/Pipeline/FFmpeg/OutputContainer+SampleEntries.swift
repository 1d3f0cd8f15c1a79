import CFFmpeg

extension OutputContainer {
    /// HEVC streams stored under the `hvc1` sample entry (parameter sets in the hvcC only) instead
    /// of FFmpeg's default `hev1`: what Apple's HLS authoring specification asks of fMP4 segments,
    /// and what Apple's players decode. Before `open`.
    func storeHEVCAsHVC1() {
        let hvc1 = UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8 | UInt32(UInt8(ascii: "c")) << 16 | UInt32(UInt8(ascii: "1")) << 24
        for i in 0..<streamCount {
            guard let st = stream(i), st.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC else { continue }
            st.pointee.codecpar.pointee.codec_tag = hvc1
        }
    }
}
