/// An entry of `outputs:` that is still images (`images:` instead of `inputs:`): which reader
/// output, when, how near, how large, one file each or a contact sheet. What needs no source is
/// refused here, at its line: the file format from the path's extension, names that would give
/// two stills one file, a sheet named per still, `quality` for PNG.
extension Parser {
    static let imageKeys = ["source", "at", "every", "count", "tolerance", "size", "quality", "tiles", "storyboard"]

    /// `entry` is the output's own pairs (`path`, `overwrite`, …): the keys of a media file
    /// have no place beside `images`.
    mutating func parseImageOutput(_ node: Node, what: String, path: Located<String>, entry: [(String, Node, Mark)]) -> ImageOutputSpec? {
        for (key, _, mark) in entry where ["inputs", "format", "optimize-for-network"].contains(key) {
            error(mark, "\(what) is still images ('images'): '\(key)' has no place in it (the extension names the image format)")
        }
        guard let pairs = mapping(node, "'images' of \(what)", keys: Self.imageKeys) else { return nil }
        var source: Located<String>?
        var times: [(StillTimes, Mark)] = []
        var tolerance = StillTolerance.exact
        var toleranceMark: Mark?
        var box: (Int, Int)?, tiles: (Int, Int?)?
        var quality: (Int, Mark)?
        var storyboard: (Bool, Mark)?
        for (key, value, _) in pairs {
            switch key {
            case "source": if let s = string(value, key) { source = Located(s, value.mark) }
            case "at": if let list = stillTimes(value) { times.append((.at(list), value.mark)) }
            case "every":
                if let t = time(value, key) {
                    if t > .zero { times.append((.every(t), value.mark)) } else { error(value.mark, "'every' must be a duration above 0 (10s), not 0") }
                }
            case "count": if let n = integer(value, key, range: 1...100_000) { times.append((.count(n), value.mark)) }
            case "tolerance":
                guard let s = value.scalar, let t = StillTolerance(s.trimmingWhitespace()) else {
                    error(value.mark, "'tolerance' must be exact, keyframe, a duration (1s) or BEFORE,AFTER (0.5s,2s), not \(value.kindDescription)")
                    continue
                }
                tolerance = t
                toleranceMark = value.mark
            case "size": box = pair(value, key, in: 2...16384, example: "320x180")
            case "tiles": tiles = grid(value)
            case "quality": if let q = integer(value, key, range: 1...100) { quality = (q, value.mark) }
            case "storyboard": if let b = bool(value, key) { storyboard = (b, value.mark) }
            default: break
            }
        }
        guard let source else {
            error(node.mark, "'images' of \(what) needs a 'source': the reader output whose pictures the stills are of")
            return nil
        }
        guard times.count == 1, let (when, whenMark) = times.first else {
            if times.count > 1 { error(times[1].1, "'images' of \(what) says when once: 'at', 'every' or 'count', not two of them") }
            else if !pairs.contains(where: { ["at", "every", "count"].contains($0.0) }) {
                error(node.mark, "'images' of \(what) needs a time: 'at' (1.5s, 25%), 'every' (10s) or 'count' (20)")
            }
            return nil
        }
        let ext = FilePaths.pathExtension(of: path.value)
        guard let format = StillFormat(pathExtension: ext) else {
            error(path.mark, ext.isEmpty ? "\(what) is still images: end its path in .jpg, .png or .webp to name the image format"
                                         : "\(what) is still images, and '.\(ext)' names no image format: use .jpg, .png or .webp")
            return nil
        }
        if let (_, mark) = quality, !format.isLossy { error(mark, "'quality' is for JPEG and WebP: PNG is lossless") }
        let named = path.value.contains("{n}") || path.value.contains("{time}")
        if let (b, mark) = storyboard, b, tiles == nil {
            error(mark, "a storyboard is one picture of tiles: say how many with 'tiles' (10x10)")
        }
        if tiles != nil, named {
            error(path.mark, "a contact sheet is one file: {n} and {time} have nothing to name in its path")
        }
        if tiles == nil, !named, let n = Self.knownCount(when), n > 1 {
            error(path.mark, "\(what) makes \(n) stills, and its path names them all the same file: put {n} in it")
        }
        return ImageOutputSpec(source: source, times: when, timesMark: whenMark, tolerance: tolerance, toleranceMark: toleranceMark, box: box, quality: quality?.0,
                               tiles: tiles, storyboard: storyboard?.0 ?? false, mark: node.mark)
    }

    /// How many stills, where that needs no source.
    static func knownCount(_ times: StillTimes) -> Int? {
        switch times {
        case .at(let list): return list.count
        case .count(let n): return n
        case .every: return nil
        }
    }

    /// `at:` — one time, a list, or times joined by commas.
    mutating func stillTimes(_ node: Node) -> [StillTime]? {
        let items: [Node]
        switch node {
        case .sequence(let list, _): items = list
        default: items = [node]
        }
        var out: [StillTime] = []
        for item in items {
            guard let text = item.scalar, !text.isEmpty else {
                error(item.mark, "'at' must be times like 1.5s, 00:01:02.5 or 25%, not \(item.kindDescription)")
                return nil
            }
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let t = StillTime(String(part)), Self.withinLimits(t) else {
                    error(item.mark, "'\(part.trimmingWhitespace())' in 'at' is not a time from \(RecipeParser.maxTimeDescription) or a share of the duration (1.5s, 00:01:02.5, 25%)")
                    return nil
                }
                out.append(t)
            }
        }
        if out.isEmpty { error(node.mark, "'at' lists no time") }
        return out.isEmpty ? nil : out
    }

    private static func withinLimits(_ t: StillTime) -> Bool {
        switch t {
        case .time(let v): return v >= .zero && v <= RecipeParser.maxTime
        case .percent(let p): return p >= .zero && p <= MediaTime(seconds: 100)
        }
    }

    /// `tiles:` — `CxR`, or `C` columns and as many rows as the stills fill; each 1 to 100.
    private mutating func grid(_ node: Node) -> (Int, Int?)? {
        if let s = node.scalar, let columns = Int(s), (1...100).contains(columns) { return (columns, nil) }
        return pair(node, "tiles", in: 1...100, example: "5x4, or 10 for 10 columns").map { ($0.0, $0.1) }
    }

    /// `WxH`, each in `range`.
    private mutating func pair(_ node: Node, _ key: String, in range: ClosedRange<Int>, example: String) -> (Int, Int)? {
        let parts = node.scalar?.split(separator: "x", omittingEmptySubsequences: false) ?? []
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), range.contains(a), range.contains(b) else {
            error(node.mark, "'\(key)' must be two whole numbers from \(range.lowerBound) to \(range.upperBound) joined by x (\(example)), not \(node.kindDescription)")
            return nil
        }
        return (a, b)
    }

    /// Why an image output's `source` cannot give it pictures, where that needs no source: it
    /// names no reader output, or one that copies its samples or names a track that is not video;
    /// of a composition, a tolerance other than `exact`.
    func imageSourceRefusal(_ images: ImageOutputSpec, output number: Int) -> Diagnostic? {
        let name = images.source.value
        guard let out = recipe.readerOutput(name) else {
            let hint = recipe.readerOutputs.count <= maxSuggestionCandidates ? suggestion(name, among: recipe.readerOutputs.map(\.name)) : ""
            return recipe.diagnostic(images.source.mark, "the images of output \(number) are of '\(name)', which is not a reader output" + hint)
        }
        if case .kind(let kind, _) = out.track, kind != .video {
            return recipe.diagnostic(images.source.mark, "the images of output \(number) are of '\(name)', which reads the \(out.track) track: stills are of a video track")
        }
        if !out.decode {
            return recipe.diagnostic(images.source.mark, "the images of output \(number) are of '\(name)', which is not decoded ('decode: false'): stills are of decoded pictures")
        }
        // A composition's pictures are drawn on its timeline, frame by frame: no sync sample of
        // it lies near an instant, so only the frame on display there has a meaning.
        if recipe.composition != nil, images.tolerance != .exact {
            return recipe.diagnostic(images.toleranceMark ?? images.mark, "the images of output \(number) are of the composition, whose pictures are drawn frame by frame: a tolerance other than 'exact' has no meaning for them (no keyframe of the composition lies near an instant); leave out 'tolerance'")
        }
        return nil
    }
}
