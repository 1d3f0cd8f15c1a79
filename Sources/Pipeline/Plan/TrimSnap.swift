import Recipe

/// Moves a trim's ends to frame boundaries, so that no output picture is a sliver of a source
/// frame: each end the recipe asked for goes to the nearest frame start, ties to the earlier.
/// Audio is cut at the same instants, so sync holds.
///
/// Which frames: those of the first video track the output has (in output order). Converted to
/// a frame rate, they are the output's own frames — slots every 1/rate from the file's start, so
/// a trimmed conversion shows exactly the frames the untrimmed one shows in that range; otherwise
/// (source timing, passthrough) the source's frames, found by reading the packets near each end.
/// A file without video is cut where asked.
enum TrimSnap {
    /// How the asked range became the planned one.
    struct Result {
        let range: TimeRange
        /// nil: the range is as asked.
        let notice: PlanNotice?
    }

    /// `wanted` and `whole` are on the file's timeline; only the ends inside the source move.
    /// `onSourceFrames`: the source's frames even when the output has a frame rate (a segment
    /// played at another speed shows every source frame of its range, so those are its frames).
    /// `subject` and `key` name the range in the notice.
    static func snap(_ wanted: TimeRange, whole: TimeRange, asset: Asset, lanes: [LanePlan], onSourceFrames: Bool = false,
                     subject: String = "the time range", key: String = "time-range") throws(MediaError) -> Result {
        let range = wanted.intersection(whole)
        // Cover art is a picture, not frames.
        guard let lane = lanes.first(where: { $0.track.mediaType == .video && !$0.track.isAttachedPicture }) else {
            return Result(range: range, notice: nil)
        }
        let snapStart = range.start > whole.start
        let snapEnd = range.end.isNumeric && range.end < whole.end
        guard snapStart || snapEnd else { return Result(range: range, notice: nil) }

        var start = range.start, end = range.end
        let how: String
        if !onSourceFrames, case .video(let s) = lane.kind, let rate = s.frameRate {
            let d = rate.frameDuration
            func slot(_ t: MediaTime) -> MediaTime {
                // Nearest slot, ties earlier: round (t − origin)/d half down.
                let k = MediaTime.count(of: d, from: whole.start, to: t - d.half, rounding: .up) ?? 0
                return whole.start + d * max(0, k)
            }
            if snapStart {
                start = slot(start)
                // A start in the last half slot would round to the end: the last frame stays in.
                if start >= whole.end { start = MediaTime.max(start - d, whole.start) }
            }
            if snapEnd { end = MediaTime.min(slot(end), whole.end) }
            if end <= start { end = MediaTime.min(start + d, whole.end) }
            how = "the output's \(rate.decimalDescription) fps frames"
        } else {
            let instants = [snapStart ? start : nil, snapEnd ? end : nil].compactMap { $0 }
            let found = try FrameStartScan.neighbours(of: instants, path: asset.path, stream: lane.track.index, fileStart: whole.start)
            var i = 0
            if snapStart { start = found[i].nearest(to: start, forStart: true) ?? start; i += 1 }
            if snapEnd {
                end = found[i].nearest(to: end) ?? end
                // A range reaching into a late-starting video keeps its first frame: an end in
                // that frame, nearer its start, would leave the video nothing to convert.
                let first = lane.track.startTime
                if first.isNumeric, start <= first, end <= first, range.end > first, let next = found[i].after { end = next }
                // At least one frame: a range shorter than a frame keeps the frame it starts on.
                if end <= start {
                    let next = try FrameStartScan.neighbours(of: [start], path: asset.path, stream: lane.track.index, fileStart: whole.start)
                    end = next.first?.after ?? range.end
                }
            }
            how = "the source's frames"
        }
        let snapped = TimeRange(start: start, end: end)
        guard snapped != range else { return Result(range: range, notice: nil) }
        let relative = { (r: TimeRange) -> String in
            let e = r.end.isNumeric ? (r.end - whole.start).secondsDescription : "the end"
            return "\((r.start - whole.start).secondsDescription)–\(e)"
        }
        return Result(range: snapped, notice: PlanNotice(.changed, key,
            "\(subject) \(relative(range)) is cut at frame boundaries (\(how)): \(relative(snapped))"))
    }
}
