import Recipe

/// The files a request reads and what its composition says of them: what every planner pass
/// after the first reads (`Planner.plan`). Loading the files and checking where the output goes
/// is this pass's one job.
struct PlanFiles {
    let request: ConversionRequest
    /// The source (a composition's first segment's file).
    let asset: Asset
    /// A composition's other files (segment source 1, 2, …).
    let extras: [Asset]
    let format: ContainerFormat
    /// The tracks segments name (`track:`), per segment request, each found in its own file.
    let ownTracks: [SegmentTracks.Own?]
    /// The files the timeline shows, by index into `assets`.
    let usedSources: [Int]
    /// The files each kind of lane shows: pictures come from the video list; sound from the audio
    /// list (else the video list) and every mix input. Each kind is reconciled over its own.
    let pictureSources: Set<Int>
    let soundSources: Set<Int>
    /// The render size is the video list's alone: a layer's pictures go in a rectangle of it.
    let renderFiles: Set<String>

    var assets: [Asset] { [asset] + extras }
    var source: String { request.source }
    var output: String { request.output }
    /// The settings are decided from all the files a composition shows.
    var reconciles: Bool { !extras.isEmpty }
    var segments: [SegmentRequest] { request.timeline ?? [] }

    /// `preloaded`, `loaded`: the source and a composition's other files already loaded.
    static func load(_ request: ConversionRequest, asset preloaded: Asset?, sources loaded: [Asset]?) throws(MediaError) -> PlanFiles {
        let asset: Asset
        if let preloaded { asset = preloaded } else { asset = try Asset.load(request.source) }
        let format = try OutputLocation.format(for: request.output, requested: request.format)
        // A composition's other files are as precious as its first, and the recipe as they.
        // A package's rendition is a folder inside the package's, checked as the package (`PackageFolder`).
        if request.package == nil {
            try OutputLocation.check(request.output, protecting: request.protectedFiles, overwrite: request.overwrite, format: format)
        }
        var extras: [Asset] = []
        if request.timeline != nil {
            if let loaded, loaded.count == request.sources.count { extras = loaded } else {
                for path in request.sources { extras.append(try Asset.load(path)) }
            }
        }
        let assets = [asset] + extras
        let requested = request.timeline ?? []
        let ownSound = requested.contains { $0.list == .audio && $0.layer == 0 }
        let ownTracks = try request.timeline.map { t throws(MediaError) in try SegmentTracks.resolve(t, assets: assets) } ?? []
        return PlanFiles(
            request: request, asset: asset, extras: extras, format: format, ownTracks: ownTracks,
            usedSources: Set(request.timeline?.map(\.source) ?? [0]).filter { assets.indices.contains($0) }.sorted(),
            pictureSources: Set(requested.filter { $0.list == .video }.map(\.source)),
            soundSources: Set(requested.filter { $0.isMixInput || ($0.layer == 0 && $0.list == (ownSound ? .audio : .video)) }.map(\.source)),
            renderFiles: Set(requested.filter { $0.list == .video && $0.layer == 0 }.map { assets.indices.contains($0.source) ? assets[$0.source].path : "" }))
    }

    /// The tracks of `type` a lane whose own is `track` of file `home` shows: its own, the other
    /// files' first, and those segments name; each once.
    func shownTracks(_ type: MediaType, home: Int, track: Track) -> [(file: String, track: Track)] {
        let assets = assets
        let files = type == .video ? pictureSources : soundSources
        var pairs: [(source: Int, track: Track)] = [(home, track)]
        for k in usedSources where k != home && files.contains(k) { if let t = assets[k].track(type, ordinal: 0) { pairs.append((k, t)) } }
        for (r, own) in zip(segments, ownTracks) where files.contains(r.source) {
            if let own, own.kind == type, let t = assets[r.source].track(index: own.index) { pairs.append((r.source, t)) }
        }
        var seen: Set<[Int]> = []
        return pairs.filter { seen.insert([$0.source, $0.track.index]).inserted }.map { (assets[$0.source].path, $0.track) }
    }
}
