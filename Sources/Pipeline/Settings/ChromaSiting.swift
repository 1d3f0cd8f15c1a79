/// Where the output says its chroma samples sit. A 4:2:0 picture has one chroma sample per 2×2
/// luma samples, and where that sample sits (`left` as H.264 and HEVC assume when a stream says
/// nothing, `topleft` as BT.2020 wants, `center` as JPEG) decides how a player scales it back up:
/// the wrong place shifts every colour edge by half a pixel. So a source's other siting is passed
/// on only where its chroma samples reach the encoder untouched — same size, same subsampling, not
/// tone-mapped (a bit-depth change keeps them where they are) — and only into 4:2:0, the one
/// layout x264 and x265 state a siting for. Anywhere else the output states none, and `plan` says
/// why.
enum ChromaSiting {
    /// The siting to state (FFmpeg's name), or nil; and the plan's decision when the source's siting
    /// is not the codecs' default.
    static func resolve(source: FormatDescription, width: Int, height: Int, pixelFormat: String, toneMapped: Bool,
                        decide: (String, String, String, String) -> Void) -> String? {
        // `left` is what an H.264 or HEVC stream means by saying nothing (FFmpeg reports it for such
        // a stream), and what the output means by saying nothing: there is nothing to keep.
        guard let location = source.chromaLocation, location != "left" else { return nil }
        guard let from = subsampling(source.pixelFormat), from != (0, 0) else { return nil }  // full-resolution chroma: no siting
        let to = subsampling(pixelFormat)
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
                   "the source's is \(location), but its pictures are \(changes.joined(separator: " and ")): their chroma is resampled, and its new siting is not known to be the source's, so none is stated (players then assume left)")
            return nil
        }
        guard to.map({ $0 == (1, 1) }) ?? false else {
            decide("chroma-location", "unspecified", "chroma-location.not-420",
                   "the source's is \(location), but x264 and x265 state a chroma location only for 4:2:0 pictures, and these are \(pixelFormat)")
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
