import Recipe

/// Contact sheets and storyboards: all the stills as tiles of one picture, in order from the top
/// left, row by row; a storyboard adds a WebVTT file beside it (same name, `.vtt`) whose cues
/// cover the source, each from its still's instant to the next one's (the last to the end),
/// pointing at the still's tile: `sheet.jpg#xywh=X,Y,W,H` — the thumbnail track web players
/// read for scrubbing previews.
public enum StillSheets {
    /// The default names: beside the source.
    public static let defaultSheet = "{dir}/{stem}-sheet.jpg"
    public static let defaultStoryboard = "{dir}/{stem}-storyboard.jpg"

    /// The sheet a request asks for, nil for none. Refused (64): more stills than tiles, a
    /// storyboard without tiles, `{n}` or `{time}` in a sheet's name (it is one file).
    static func sheet(_ r: StillRequest, count: Int, source: String) throws(MediaError) -> StillSheet? {
        guard let tiles = r.tiles else {
            if r.storyboard { throw MediaError(.usage, "a storyboard is one picture of tiles: say how many with tiles (10x10)", file: source) }
            return nil
        }
        let rows = tiles.rows ?? (count + tiles.columns - 1) / tiles.columns
        guard count <= tiles.columns * rows else {
            throw MediaError(.usage, "\(count) stills do not fit in \(tiles.columns)x\(rows) tiles", file: source)
        }
        let pattern = r.pattern ?? (r.storyboard ? defaultStoryboard : defaultSheet)
        if pattern.contains("{n}") || pattern.contains("{time}") {
            throw MediaError(.usage, "a contact sheet is one file: {n} and {time} have nothing to name in it", file: pattern)
        }
        let path = RecipeCompiler.expand(pattern, source: source)
        let ext = FilePaths.pathExtension(of: path)
        let vtt = r.storyboard ? String(path.dropLast(ext.isEmpty ? 0 : ext.count + 1)) + ".vtt" : nil
        return StillSheet(columns: tiles.columns, rows: rows, path: path, webVTT: vtt)
    }

    /// The storyboard's WebVTT text for `plan`'s sheet, its tiles named relative to the VTT file
    /// (they lie side by side).
    public static func webVTT(_ plan: StillPlan) -> String {
        guard let sheet = plan.sheet else { return "" }
        let name = FilePaths.name(of: sheet.path)
        let ordered = plan.stills.sorted { $0.requested < $1.requested }
        var text = "WEBVTT\n"
        for (i, still) in ordered.enumerated() {
            guard let tile = still.tile else { continue }
            let end = ordered[(i + 1)...].first { $0.requested > still.requested }?.requested ?? plan.duration
            guard end > still.requested else { continue }
            text += "\n\(clock(still.requested)) --> \(clock(end))\n\(name)#xywh=\(tile.x),\(tile.y),\(tile.width),\(tile.height)\n"
        }
        return text
    }

    /// `HH:MM:SS.mmm`, as WebVTT writes times.
    static func clock(_ t: MediaTime) -> String {
        let ms = WideArithmetic.mulDiv(t.value, 1000, Int64(t.timescale), rounding: .nearest)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : String(n) }
        let frac = String(ms % 1000)
        return "\(two(ms / 3_600_000)):\(two(ms / 60000 % 60)):\(two(ms / 1000 % 60)).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }
}
