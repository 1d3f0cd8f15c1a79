import Foundation
import Recipe

/// Two-pass rate control over a run's outputs (`passes: 2`, `target-size`): first a statistics
/// pass over each output's two-pass video tracks alone — their pictures coded at the bitrate into
/// a scratch file, their encoders' statistics kept (`EncoderPass`) — then the run itself, whose
/// two-pass encoders read them. Sound and every other track are encoded once, in the second pass.
/// The statistics and the scratch files live in a private temp folder (mode 0700) that is removed
/// when the run ends, however it ends.
enum TwoPassRun {
    /// Some video lane of the plans runs two passes, and is not told which one yet (a statistics
    /// pass's own plans are: they run as they are).
    static func isNeeded(_ plans: [ConversionPlan]) -> Bool {
        plans.contains { $0.lanes.contains(where: runsTwoPasses) }
    }

    static func runsTwoPasses(_ lane: LanePlan) -> Bool {
        guard let s = lane.videoSettings else { return false }
        return s.passes == 2 && s.ratePass == nil
    }

    /// A new private folder for the statistics.
    static func makeFolder() throws(MediaError) -> String {
        var template = Array(FilePaths.join(NSTemporaryDirectory(), "reencode-passes-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw MediaError(.io, "cannot make a folder for the first pass's statistics: \(String(cString: strerror(errno)))", file: NSTemporaryDirectory())
        }
        return String(cString: made)
    }

    /// The folder and everything the passes left in it.
    static func removeFolder(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Where output `k`'s lane `i` keeps its statistics.
    static func statisticsFile(_ folder: String, output k: Int, lane i: Int) -> String {
        FilePaths.join(folder, "output\(k)-track\(i).stats")
    }

    /// The first pass: for each plan with two-pass lanes, a plan of those lanes alone, at the
    /// bitrate the plan gives them, written into a scratch file in `folder`.
    static func statisticsPlans(_ plans: [ConversionPlan], folder: String) throws(MediaError) -> [ConversionPlan] {
        var made: [ConversionPlan] = []
        for (k, plan) in plans.enumerated() {
            let lanes = plan.lanes.indices.filter { runsTwoPasses(plan.lanes[$0]) }
            guard !lanes.isEmpty else { continue }
            guard var r = plan.request else {
                throw MediaError(.processing, "two passes need the plan's request, and this plan was made without one", file: plan.outputPath)
            }
            // The request's video tracks are the plan's video lanes, in order.
            let videoTracks = r.tracks.filter { if case .video = $0.mode { return true } else { return false } }
            let videoLanes = plan.lanes.indices.filter { plan.lanes[$0].videoSettings != nil }
            guard videoTracks.count == videoLanes.count else {
                throw MediaError(.processing, "two passes: the plan's video tracks do not match its request's", file: plan.outputPath)
            }
            var tracks: [TrackRequest] = [], firstLanes: [Int] = []
            for (track, i) in zip(videoTracks, videoLanes) where lanes.contains(i) {
                guard case .video(var v) = track.mode, let s = plan.lanes[i].videoSettings else { continue }
                v.bitrate = s.bitrate
                v.quality = nil
                var t = track
                t.mode = .video(v)
                tracks.append(t)
                firstLanes.append(i)
            }
            r.tracks = tracks
            let ext = FilePaths.pathExtension(of: plan.outputPath)
            r = r.scratch(into: FilePaths.join(folder, "output\(k)-first-pass" + (ext.isEmpty ? "" : "." + ext)), format: plan.format)
            r.audioMix = nil
            var first = try Planner.plan(r, asset: plan.source, sources: plan.extraSources)
            for (j, i) in firstLanes.enumerated() where j < first.lanes.count {
                guard case .video(var s) = first.lanes[j].kind else { continue }
                s.ratePass = .statistics(file: statisticsFile(folder, output: k, lane: i))
                first.lanes[j].kind = .video(s)
            }
            made.append(first.droppingOpenedEncoders())
        }
        return made
    }

    /// The second pass: the plans as they are, their two-pass lanes reading the statistics.
    static func finalPlans(_ plans: [ConversionPlan], folder: String) -> [ConversionPlan] {
        var final = plans
        for k in final.indices {
            for i in final[k].lanes.indices {
                guard runsTwoPasses(final[k].lanes[i]), case .video(var s) = final[k].lanes[i].kind else { continue }
                s.ratePass = .final(file: statisticsFile(folder, output: k, lane: i))
                final[k].lanes[i].kind = .video(s)
            }
        }
        return final
    }
}
