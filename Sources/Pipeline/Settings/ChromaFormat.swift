/// The chroma format a re-encode keeps. HEVC carries 4:2:0, 4:2:2 and 4:4:4, so an HEVC output
/// keeps the source's (an archive of 4:2:2 masters stays 4:2:2); a format HEVC lacks becomes the
/// smallest it has that holds every chroma sample (4:1:1 DV → 4:2:2, 4:4:0 → 4:4:4). H.264 players
/// expect 4:2:0, so H.264 is made 4:2:0 unless a `pixel-format` asks, and `plan` says so.
enum ChromaFormat {
    /// 420, 422 or 444 for a Y'CbCr source by its pixel format's FFmpeg name; nil for RGB, grey and
    /// formats not known here (they are made 4:2:0, as before).
    static func kept(from pixelFormat: String?) -> Int? {
        guard let (h, v) = ChromaSiting.subsampling(pixelFormat) else { return nil }
        switch (min(h, 1), min(v, 1)) {
        case (1, 1): return 420
        case (1, 0): return 422
        default: return 444  // 4:4:4, and 4:4:0 (no encoder here takes it)
        }
    }

    /// FFmpeg's name of the planar Y'CbCr format of `chroma` (420, 422, 444) at 8 or 10 bits.
    static func pixelFormat(chroma: Int, tenBit: Bool) -> String {
        "yuv\(chroma)p" + (tenBit ? "10le" : "")
    }

    /// How people write a chroma format: `4:2:2`.
    static func name(_ chroma: Int) -> String {
        switch chroma {
        case 444: return "4:4:4"
        case 422: return "4:2:2"
        default: return "4:2:0"
        }
    }

    /// The source's chroma as people write it, for the plan (`4:1:1`), from its pixel format.
    static func sourceName(_ pixelFormat: String?) -> String? {
        guard let (h, v) = ChromaSiting.subsampling(pixelFormat) else { return nil }
        let names: [String: String] = ["1,1": "4:2:0", "1,0": "4:2:2", "0,0": "4:4:4", "0,1": "4:4:0", "2,0": "4:1:1", "2,2": "4:1:0"]
        return names["\(h),\(v)"]
    }
}
