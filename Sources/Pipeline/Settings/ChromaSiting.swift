/// Where the output says its chroma samples sit. A 4:2:0 picture has one chroma sample per 2×2
/// luma samples, and where that sample sits (`left` as H.264 assumes, `topleft` as BT.2020 wants)
/// decides how a player scales it back up: state the wrong place and every colour edge shifts by
/// half a pixel. So the source's siting is passed on only where its chroma samples reach the
/// encoder untouched — same size, same subsampling, not tone-mapped (a bit-depth change keeps
/// them where they are); anything else resamples them, and where the scaler puts them is not
/// claimed.
enum ChromaSiting {
    /// The siting to state (FFmpeg's name), or nil; and the plan's decision when the source states one.
    static func resolve(source: FormatDescription, width: Int, height: Int, pixelFormat: String, toneMapped: Bool,
                        decide: (String, String, String, String) -> Void) -> String? {
        guard let location = source.chromaLocation else { return nil }
        let from = subsampling(source.pixelFormat), to = subsampling(pixelFormat)
        guard let from, from != (0, 0) else { return nil }  // full-resolution chroma: no siting to keep
        var changes: [String] = []
        if width != source.width || height != source.height {
            changes.append("resized (\(source.width)x\(source.height) → \(width)x\(height))")
        }
        if to.map({ $0 != from }) ?? true {
            changes.append("made \(pixelFormat)")
        }
        if toneMapped { changes.append("tone-mapped") }
        guard changes.isEmpty else {
            decide("chroma-location", "unspecified", "chroma-location.resampled",
                   "the source's is \(location), but its pictures are \(changes.joined(separator: " and ")): their chroma is resampled, and where it then sits is not claimed")
            return nil
        }
        decide("chroma-location", location, "chroma-location.source", "the source's: its chroma samples reach the encoder where they were")
        return location
    }

    /// log2 of the chroma subsampling (horizontal, vertical) of a planar or semi-planar Y'CbCr
    /// format by its FFmpeg name: 4:2:0 is (1, 1), 4:2:2 (1, 0), 4:4:4 (0, 0); nil for RGB, grey
    /// and names not known here. `ChromaSitingTests` holds this table to libavutil's.
    static func subsampling(_ name: String?) -> (Int, Int)? {
        guard let n = name?.lowercased() else { return nil }
        let semiPlanar: [String: (Int, Int)] = ["nv12": (1, 1), "nv21": (1, 1), "p010le": (1, 1), "p010be": (1, 1),
                                                "p016le": (1, 1), "p016be": (1, 1), "nv16": (1, 0), "nv20le": (1, 0),
                                                "p210le": (1, 0), "p216le": (1, 0), "nv24": (0, 0), "nv42": (0, 0),
                                                "p410le": (0, 0), "p416le": (0, 0)]
        if let s = semiPlanar[n] { return s }
        for prefix in ["yuva", "yuvj", "yuv"] where n.hasPrefix(prefix) {
            let kind = n.dropFirst(prefix.count).prefix(3)
            let planar: [Substring: (Int, Int)] = ["420": (1, 1), "422": (1, 0), "444": (0, 0), "440": (0, 1),
                                                   "411": (2, 0), "410": (2, 2)]
            return planar[kind]
        }
        return nil
    }
}
