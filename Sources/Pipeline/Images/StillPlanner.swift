import Recipe

/// A still-image request resolved against its source (`StillPlan`), every refusal made before
/// anything is decoded or written: a source without video (66), an instant outside the source
/// or an image extension that is not JPEG, PNG or WebP (64), an output that cannot be made (73).
public enum StillPlanner {
    /// `asset`: the source loaded already (a recipe's), else it is loaded here.
    public static func plan(_ request: StillRequest, asset loaded: Asset? = nil) throws(MediaError) -> StillPlan {
        let asset: Asset
        if let loaded { asset = loaded } else { asset = try Asset.load(request.source) }
        let video = request.track.map { i in asset.track(index: i).flatMap { $0.mediaType == .video ? $0 : nil } } ?? asset.videoTracks.first
        guard let track = video else {
            let which = request.track.map { "track #\($0) is not a video track" } ?? "has no video track"
            throw MediaError(.notMedia, "\(which) to take stills of (it has \(RecipeCompiler.trackList(asset)))", file: asset.path)
        }
        var duration = asset.duration
        // A file that states no length (or 0) is measured by its packets.
        // A file that cannot be read to its end says why, rather than "states no length".
        if !(duration.isNumeric && duration > .zero), let extent = try PacketScan.extents(asset.path)[track.index] {
            duration = extent.end - asset.startTime
        }
        guard duration.isNumeric, duration > .zero else {
            throw MediaError(.unsupported, "states no length, so no instant in it can be found", file: asset.path)
        }
        // A time range: instants count from its start and within it.
        var origin = asset.startTime
        var within: String?
        if let range = request.range {
            let end = range.duration.isNumeric ? MediaTime.min(range.end, duration) : duration
            guard range.start < end else {
                throw MediaError(.usage, "the time range starts at \(range.start.secondsDescription), at or after the source's end (\(duration.secondsDescription))", file: asset.path, setting: "time")
            }
            within = "the time range read (\(range.start.secondsDescription) to \(end.secondsDescription) of the source)"
            origin = origin + range.start
            duration = end - range.start
        }
        let asked = try instants(request.times, duration: duration, source: asset.path, within: within)
        let size = stillSize(track.format, box: request.box)
        let (paths, sheet, format) = try files(request, offsets: asked.map(\.1), source: asset.path)
        var stills: [PlannedStill] = []
        var found: [MediaTime: StillScan.Shown] = [:]
        let cursor = StreamCursor(path: asset.path, stream: track.index)
        for (i, (text, offset)) in asked.enumerated() {
            // The end of a range that stops before the source's end shows the last frame that
            // starts before it: one starting there is outside what is read.
            let t = origin + offset - (offset == duration && within != nil ? MediaTime(value: 1, timescale: 1_000_000) : .zero)
            if found[t] == nil {
                guard let shown = try StillScan.shown(at: t, tolerance: request.tolerance, in: cursor, fileStart: asset.startTime) else {
                    throw MediaError(.notMedia, "no frame with a time was found near \(offset.secondsDescription)", file: asset.path, track: track.index)
                }
                found[t] = shown
            }
            let shown = found[t]!
            let tile = sheet.map { s in (x: size.width * (i % s.columns), y: size.height * (i / s.columns), width: size.width, height: size.height) }
            stills.append(PlannedStill(number: i + 1, asked: text, requested: offset, shown: shown.time - origin,
                                       decodeFrom: shown.decodeFrom - origin, isKeyframe: shown.isKeyframe, path: paths[i], tile: tile))
        }
        return StillPlan(source: asset.path, track: track, fileStart: asset.startTime, origin: origin, duration: duration, format: format,
                         quality: request.quality ?? StillRequest.defaultQuality, width: size.width, height: size.height,
                         toneMapping: SettingsAssistant.toneMapping(source: track.format), overwrite: request.overwrite, stills: stills,
                         sheet: sheet)
    }

    /// Each still's file (the sheet's, for tiles), the sheet, and the image format the names
    /// say; every file checked as an output (`offsets`: the instants, from the source's start).
    static func files(_ request: StillRequest, offsets: [MediaTime], source: String) throws(MediaError) -> (paths: [String], sheet: StillSheet?, format: StillFormat) {
        let sheet = try StillSheets.sheet(request, count: offsets.count, source: source)
        let paths: [String]
        if let sheet { paths = Array(repeating: sheet.path, count: offsets.count) } else {
            paths = try StillNames.paths(pattern: request.pattern ?? StillNames.defaultPattern, source: source, offsets: offsets)
        }
        let format = try imageFormat(of: paths[0])
        let protected = [ProtectedFile(source, role: "source")] + request.protected
        for path in Set(paths).union([sheet?.webVTT].compactMap { $0 }).sorted() {
            try OutputLocation.check(path, protecting: protected, overwrite: request.overwrite, format: nil)
        }
        return (paths, sheet, format)
    }

    /// Each instant as written and from the source's start (or `within` a part of it, which
    /// `duration` is then). An instant outside is refused (`setting` "time"), naming it and the
    /// length; the end shows the last frame.
    static func instants(_ times: StillTimes, duration: MediaTime, source: String, within: String? = nil) throws(MediaError) -> [(String, MediaTime)] {
        switch times {
        case .at(let list):
            var out: [(String, MediaTime)] = []
            for time in list {
                guard let t = time.offset(in: duration), t >= .zero, t <= duration else {
                    throw MediaError(.usage, "the time \(time) is outside \(within ?? "the source"), which lasts \(duration.secondsDescription)", file: source, setting: "time")
                }
                out.append((time.description, t))
            }
            return out
        case .every(let d):
            guard d > .zero, let n = MediaTime.count(of: d, from: .zero, to: duration, rounding: .up) else {
                throw MediaError(.usage, "a still every \(d.secondsDescription) is no interval", file: source, setting: "time")
            }
            return (0..<max(n, 1)).map { k in let t = d * k; return (t.secondsDescription, t) }
        case .count(let n):
            guard n > 0 else { throw MediaError(.usage, "a count of stills must be at least 1, not \(n)", file: source) }
            // The middle of part i of n: duration · (2i + 1) / 2n, in the duration's units.
            return (0..<n).map { i in
                let v = WideArithmetic.mulDiv(duration.value, Int64(2 * i + 1), Int64(2 * n))
                let t = MediaTime(value: v, timescale: duration.timescale)
                return (t.secondsDescription, t)
            }
        }
    }

    /// The format the name's extension says; refused (64) when it names none we write, or one
    /// this FFmpeg cannot.
    static func imageFormat(of path: String) throws(MediaError) -> StillFormat {
        let ext = FilePaths.pathExtension(of: path)
        guard let format = StillFormat(pathExtension: ext) else {
            throw MediaError(.usage, ext.isEmpty ? "has no extension to tell the image format from: end it in .jpg, .png or .webp"
                                                 : "cannot tell the image format from the extension '.\(ext)': use .jpg, .png or .webp", file: path)
        }
        guard StillEncoder.isAvailable(format) else {
            throw MediaError(.unsupported, "cannot write \(format.rawValue.uppercased()): this FFmpeg has no \(format.encoderName) encoder (use .jpg or .png)", file: path)
        }
        return format
    }

    /// The display size (pixel aspect, then rotation) fitted inside `box`, never larger than
    /// itself, in even numbers (as `PictureFitter` places pictures).
    static func stillSize(_ f: FormatDescription, box: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        let display = f.displaySize
        let whole = (Int32(clamping: max(display.width, 2)), Int32(clamping: max(display.height, 2)))
        func fitted(_ render: (Int32, Int32)) -> (width: Int, height: Int) {
            let p = PictureFitter.placement(source: (Int32(f.width), Int32(f.height)), rotation: f.rotation, pixelAspect: f.pixelAspect, render: render)
            return (Int(p.width), Int(p.height))
        }
        let full = fitted(whole)
        guard let box else { return full }
        let inBox = fitted((Int32(clamping: box.width), Int32(clamping: box.height)))
        return inBox.width <= full.width && inBox.height <= full.height ? inBox : full
    }
}
