import Recipe

/// The planner's time pass: the request's time range on the file's own timeline, checked, and
/// then cut at frame boundaries once the lanes are known (`TrimSnap`).
enum TimePass {
    struct Range {
        /// The whole file.
        let whole: TimeRange
        /// What is converted: the whole file, or the requested range within it (then snapped).
        var range: TimeRange
        /// What the recipe asked for, absolute; nil: no time range.
        let wanted: TimeRange?
        /// Where the snapped range differs from what was asked: said in `plan`.
        var notice: PlanNotice?

        /// The range cuts the file at either end.
        var cutsFile: Bool { range.start > whole.start || range.end < whole.end }
    }

    static func requested(_ files: PlanFiles) throws(MediaError) -> Range {
        let asset = files.asset, src = files.source
        let whole = asset.wholeRange
        guard let r = files.request.timeRange else { return Range(whole: whole, range: whole, wanted: nil) }
        guard r.isValid, r.start >= .zero else {
            throw MediaError(.invalidSettings, "time range \(r) is not valid", file: src)
        }
        // Recipe times are range-checked, but a file's start time can be anything.
        let wantedStart: MediaTime
        do throws(MediaTimeOverflow) { wantedStart = try asset.startTime.adding(r.start) } catch { throw MediaError(error, file: src) }
        let wanted = TimeRange(start: wantedStart, duration: r.duration)
        if let why = Planner.timeRangeRefusal(start: r.start, in: asset) { throw MediaError(.invalidSettings, why, file: src) }
        return Range(whole: whole, range: wanted.intersection(whole), wanted: wanted)
    }

    /// The range's ends moved to frame starts of the lanes' video (`TrimSnap`); a range to the
    /// file's end then ends where its encoded pictures stop being shown (`LastPictureEnd`).
    static func snap(_ requested: Range, files: PlanFiles, lanes: [LanePlan]) throws(MediaError) -> Range {
        var range = requested
        if let wanted = requested.wanted {
            let snapped = try TrimSnap.snap(wanted, whole: requested.whole, asset: files.asset, lanes: lanes)
            range.range = snapped.range
            range.notice = snapped.notice
        }
        if let video = LastPictureEnd.encodedVideo(lanes) {
            range.range = LastPictureEnd.extending(range.range, fileEnd: requested.whole.end, asset: files.asset, track: video)
        }
        return range
    }
}
