import Recipe

/// The planner's pass for what the output keeps besides its tracks: metadata, chapters and
/// cover art as the container holds them, and what it will not keep (notices).
enum KeepingPass {
    static func plan(_ files: PlanFiles, range: TimeRange, lanes: [LanePlan],
                     composition: CompositionPass.Resolved?) -> (kept: KeptItems, notices: [PlanNotice]) {
        var (kept, notices) = Keeping.plan(files.asset, format: files.format, range: range, lanes: lanes, extra: files.request.metadata,
                                            spec: files.request.metadataSpec)
        guard let composition else { return (kept, notices) }
        let assets = files.assets
        // Chapters go where the segments play them, from every file the composition shows.
        let (chapters, chapterNotices) = CompositionChapters.map(composition.composed.timeline, sources: assets)
        kept.chapters = chapters
        notices = notices.filter { $0.item != "chapters" && $0.item != "track" } + chapterNotices
        // Tracks no lane reads, file by file: the lanes' track numbers are each file's own
        // (and the tracks its segments name are read too).
        for k in files.usedSources {
            let named = zip(files.segments, files.ownTracks).compactMap { r, own in r.source == k ? own?.index : nil }
            let read = Set(composition.trackMap.compactMap { $0[k] } + named)
            for t in Keeping.unwritten(assets[k], reading: read) {
                let what = "\(Keeping.describe(t)) is not written: no writer input takes it"
                notices.append(PlanNotice(.dropped, "track", track: t.index, file: k == 0 ? nil : assets[k].path, what))
            }
        }
        return (kept, notices)
    }
}
