import Recipe

/// Compiles a `ConversionRequest` against its real files into a `ConversionPlan`, in passes
/// with one job each (Plan/Passes): load the files and check the output's place → resolve the
/// tracks → the time range → the settings → the time mapping (trim cut at frames, or a
/// composition's timeline) → what is kept → checks said as notices → negotiate (everything the
/// run opens is opened, and each edge's format fixed). Whatever can fail before decoding fails here.
public enum Planner {
    /// Why a time range that starts at `start` (0: the file's start) has nothing of `asset`: it
    /// starts at or after the file's stated end. nil: it starts within the file, or the file
    /// states no length (none, or 0), so it is read to its end. The compiler says it at the
    /// recipe's `time-range:`.
    static func timeRangeRefusal(start: MediaTime, in asset: Asset) -> String? {
        guard asset.duration.isNumeric, asset.duration > .zero, start >= asset.duration else { return nil }
        return "the time range starts at \(start.secondsDescription), at or after the end of \(asset.path) (\(asset.duration.secondsDescription))"
    }

    /// The grid a fragmented output is cut at: ISO media only, and only on a keyframe grid.
    private static func fragments(_ request: ConversionRequest, format: ContainerFormat) throws(MediaError) -> KeyframeGrid? {
        guard request.fragmented else { return nil }
        guard let grid = request.keyframeGrid, format.isISOMedia else {
            throw MediaError(.invalidSettings, format.isISOMedia ? "a fragmented output needs a keyframe grid to cut at" : RecipeCompiler.fragmentRefusal(format),
                             file: request.output, setting: "fragment")
        }
        return grid
    }

    /// `sources`: the composition's other files already loaded (`request.sources`, in order).
    public static func plan(_ request: ConversionRequest, asset preloaded: Asset? = nil, sources loaded: [Asset]? = nil,
                            assistant: SettingsAssistant = .system) throws(MediaError) -> ConversionPlan {
        let files = try PlanFiles.load(request, asset: preloaded, sources: loaded)
        var time = try TimePass.requested(files)
        let chosen = try TrackPass.resolve(files)
        let settled = try SettingsPass.settle(chosen, files: files, trimmed: time.cutsFile, assistant: assistant)
        let lanes = settled.lanes
        time = try TimePass.snap(time, files: files, lanes: lanes)
        let composition = try CompositionPass.resolve(files, lanes: lanes)
        let (kept, keptNotices) = KeepingPass.plan(files, range: time.range, lanes: lanes, composition: composition)

        var plan = ConversionPlan(source: files.asset, outputPath: request.output, format: files.format,
                                  optimizeForNetwork: request.optimizeForNetwork, overwrite: request.overwrite,
                                  timeRange: time.range, timeline: .trim(time.range), lanes: lanes,
                                  selectiveDecode: request.selectiveDecode, metadata: kept.metadata, kept: kept)
        plan.protectedFiles = request.protectedFiles
        plan.fileLengthLimit = request.fileLengthLimit
        plan.request = request
        plan.fragments = try fragments(request, format: files.format)
        plan.chains = lanes.map { StageChain.single(track: $0.track.index, timeline: plan.timeline) }
        if let composition {
            try CompositionPass.apply(composition, to: &plan, files: files, renderFrame: settled.renderFrame)
            try CopyJoinPass.check(plan)
        }
        if let notice = time.notice {
            plan.requestedTimeRange = time.wanted.map { $0.intersection(time.whole) }
            plan.notices.append(notice)
        }
        plan.notices += keptNotices
        plan.notices += lanes.flatMap { HDRNotices.notices(for: $0, format: files.format) + AudioNotices.notices(for: $0, format: files.format) }
        if composition == nil { plan.notices += lanes.flatMap(AlphaNotice.notices) }
        plan.notices += IgnoredSettings.notices(request.tracks, lanes: lanes)
        if let target = request.targetSize { try TargetSizePass.derive(target, for: &plan) }
        try SmartPass.plan(&plan)
        SmartSoundPass.plan(&plan)
        try ChunkPass.plan(&plan, parallel: request.parallel)
        try Negotiation.negotiate(&plan)
        try LoudnessPass.measure(&plan)
        return plan
    }
}
