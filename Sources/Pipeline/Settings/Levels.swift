import Recipe

/// The lowest level (the family's Annex A table) that allows a picture size at a frame rate.
enum Levels {
    /// Refuses a level that is not one of the family's, or that does not allow this picture size
    /// at this rate.
    static func check(_ level: String, family: VideoFamily, width: Int, height: Int, rate: FrameRate) throws(MediaError) {
        let names = family.levels.names
        if names.isEmpty { throw MediaError(.invalidSettings, "\(family.displayName) has no levels: leave 'level' out", setting: "level") }
        let name = level.hasSuffix(".0") ? String(level.dropLast(2)) : level
        guard let asked = names.firstIndex(of: name) else {
            // x264's and HEVC's own spelling without the dot (`41`): the nearest name is 4.1, not 1.
            let dotted = level.count == 2 && level.allSatisfy(\.isASCII) && level.allSatisfy(\.isNumber)
                ? "\(level.prefix(1)).\(level.suffix(1))" : ""
            let hint = names.contains(dotted) ? " (did you mean '\(dotted)'?)" : suggestion(level, among: names)
            throw MediaError(.invalidSettings, "\(family.displayName) has no level '\(level)'" + hint
                             + " (it has \(names.joined(separator: ", ")))", setting: "level")
        }
        guard let lowest = lowest(family, width: width, height: height, rate: rate), let needed = names.firstIndex(of: lowest) else {
            throw MediaError(.invalidSettings, "no \(family.displayName) level allows \(width)x\(height) at \(rate.decimalDescription) fps", setting: "level")
        }
        if asked < needed {
            throw MediaError(.invalidSettings, "level \(level) does not allow \(width)x\(height) at \(rate.decimalDescription) fps: the lowest that does is \(lowest)", setting: "level")
        }
    }

    /// The lowest level of `family` for the picture size at the rate; nil when none allows it.
    static func lowest(_ family: VideoFamily, width: Int, height: Int, rate: FrameRate) -> String? {
        switch family.levels {
        case .macroblocks(let table):
            let mbs = Int64((width + 15) / 16) * Int64((height + 15) / 16)
            let perSecond = (mbs * Int64(rate.frames) + Int64(rate.seconds) - 1) / Int64(rate.seconds)
            return table.first { perSecond <= $0.perSecond && mbs <= $0.perFrame }?.name
        case .lumaSamples(let table):
            let ps = Int64(width) * Int64(height)
            let perSecond = (ps * Int64(rate.frames) + Int64(rate.seconds) - 1) / Int64(rate.seconds)
            return table.first { ps <= $0.perFrame && perSecond <= $0.perSecond }?.name
        case .none:
            return nil
        }
    }
}
