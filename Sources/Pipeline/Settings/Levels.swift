import Recipe

/// H.264 (Annex A) and HEVC (Annex A) levels from picture size and frame rate.
enum Levels {
    // (name, max macroblocks per second, max frame size in macroblocks)
    private static let h264Table: [(String, Int64, Int64)] = [
        ("1", 1485, 99), ("1b", 1485, 99), ("1.1", 3000, 396), ("1.2", 6000, 396), ("1.3", 11880, 396),
        ("2", 11880, 396), ("2.1", 19800, 792), ("2.2", 20250, 1620), ("3", 40500, 1620),
        ("3.1", 108000, 3600), ("3.2", 216000, 5120), ("4", 245760, 8192), ("4.1", 245760, 8192),
        ("4.2", 522240, 8704), ("5", 589824, 22080), ("5.1", 983040, 36864), ("5.2", 2073600, 36864),
        ("6", 4177920, 139264), ("6.1", 8355840, 139264), ("6.2", 16711680, 139264),
    ]
    // (name, max luma picture size, max luma samples per second)
    private static let hevcTable: [(String, Int64, Int64)] = [
        ("1", 36864, 552960), ("2", 122880, 3686400), ("2.1", 245760, 7372800),
        ("3", 552960, 16588800), ("3.1", 983040, 33177600), ("4", 2228224, 66846720),
        ("4.1", 2228224, 133693440), ("5", 8912896, 267386880), ("5.1", 8912896, 534773760),
        ("5.2", 8912896, 1069547520), ("6", 35651584, 1069547520), ("6.1", 35651584, 2139095040),
        ("6.2", 35651584, 4278190080),
    ]

    /// Refuses a level that is not one of the codec's, or that does not allow this picture size
    /// at this rate.
    static func check(_ level: String, codec: VideoCodec, width: Int, height: Int, rate: FrameRate) throws(MediaError) {
        let names = (codec == .hevc ? hevcTable : h264Table).map(\.0)
        let name = level.hasSuffix(".0") ? String(level.dropLast(2)) : level
        guard let asked = names.firstIndex(of: name) else {
            // x264's and HEVC's own spelling without the dot (`41`): the nearest name is 4.1, not 1.
            let dotted = level.count == 2 && level.allSatisfy(\.isASCII) && level.allSatisfy(\.isNumber)
                ? "\(level.prefix(1)).\(level.suffix(1))" : ""
            let hint = names.contains(dotted) ? " (did you mean '\(dotted)'?)" : suggestion(level, among: names)
            throw MediaError(.invalidSettings, "\(codec == .hevc ? "HEVC" : "H.264") has no level '\(level)'" + hint
                             + " (it has \(names.joined(separator: ", ")))", setting: "level")
        }
        let lowest = codec == .hevc ? hevc(width: width, height: height, rate: rate) : h264(width: width, height: height, rate: rate)
        guard let lowest, let needed = names.firstIndex(of: lowest) else {
            throw MediaError(.invalidSettings, "no \(codec == .hevc ? "HEVC" : "H.264") level allows \(width)x\(height) at \(rate.decimalDescription) fps", setting: "level")
        }
        if asked < needed {
            throw MediaError(.invalidSettings, "level \(level) does not allow \(width)x\(height) at \(rate.decimalDescription) fps: the lowest that does is \(lowest)", setting: "level")
        }
    }

    static func h264(width: Int, height: Int, rate: FrameRate) -> String? {
        let mbs = Int64((width + 15) / 16) * Int64((height + 15) / 16)
        let perSecond = (mbs * Int64(rate.frames) + Int64(rate.seconds) - 1) / Int64(rate.seconds)
        return h264Table.first { perSecond <= $0.1 && mbs <= $0.2 }?.0
    }

    static func hevc(width: Int, height: Int, rate: FrameRate) -> String? {
        let ps = Int64(width) * Int64(height)
        let perSecond = (ps * Int64(rate.frames) + Int64(rate.seconds) - 1) / Int64(rate.seconds)
        return hevcTable.first { ps <= $0.1 && perSecond <= $0.2 }?.0
    }
}
