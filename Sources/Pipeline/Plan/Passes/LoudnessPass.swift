import Recipe

/// The planner's loudness pass, last (the lanes and their reading are settled): each audio
/// output track that asks for `loudness:` is decoded once — its time range as the run reads it
/// (`AudioSource` on the plan's segment), converted to the output's rate and layout as the
/// sink's gain stage converts it — and measured (`LoudnessMeter`); the gain the sink applies
/// is target − measured, lowered so the true peak stays at the ceiling. `plan` runs it too, so
/// it shows what `run` will do. A composition is refused: its sound is cut, mixed and faded from
/// several files by stages this pass does not run yet.
enum LoudnessPass {
    static func measure(_ plan: inout ConversionPlan) throws(MediaError) {
        for i in plan.lanes.indices {
            guard case .audio(var s) = plan.lanes[i].kind, let target = s.loudness else { continue }
            let track = plan.lanes[i].track.index
            guard !plan.isComposed else {
                throw MediaError(.invalidSettings, "'loudness' is not measured in a composition yet (its sound is cut, mixed and faded from several files): normalise each file on its own first",
                                 file: plan.source.path, track: track, setting: "loudness")
            }
            let measured: LoudnessMeter.Measurement
            do throws(MediaError) { measured = try measureLane(plan, lane: i, settings: s) } catch {
                throw error.at(file: plan.source.path, track: track)
            }
            var gain = LoudnessGain(measured: measured, target: target.integrated, ceiling: target.truePeak)
            do throws(MediaError) { gain = try encodedPeakChecked(gain, plan: plan, lane: i, settings: s) } catch {
                throw error.at(file: plan.source.path, track: track)
            }
            s.loudnessGain = gain
            s.decisions.append(decision(gain))
            plan.lanes[i].kind = .audio(s)
            if let notice = notice(gain, track: track) { plan.notices.append(notice) }
        }
    }

    /// A lossy codec's gain whose true peak comes within `checkedWithin` dB of the ceiling,
    /// checked on a real encode: the lane decoded again, gained, encoded as the sink encodes it
    /// and decoded (`EncodedPeak`); while the encode's true peak passes the ceiling the gain is
    /// lowered by its overshoot (and 0.1 dB), up to three encodes.
    static let checkedWithin = 3.0

    private static func encodedPeakChecked(_ first: LoudnessGain, plan: ConversionPlan, lane i: Int,
                                           settings s: ResolvedAudioSettings) throws(MediaError) -> LoudnessGain {
        guard AudioFamily.of(s.codec).map({ !$0.lossless }) == true, first.result != nil,
              first.resultPeak > first.ceiling - checkedWithin else { return first }
        var gain = first
        for _ in 0..<3 where gain.decibels != 0 {
            let checker = try EncodedPeak(settings: s)
            let stage = try SoundGain(decibels: gain.decibels, rate: Int32(s.sampleRate), layout: s.channelLayout)
            try readLane(plan, lane: i, settings: s) { (frame) throws(MediaError) in
                for gained in try stage.apply(frame) { try checker.add(gained) }
            }
            let encoded = try checker.finish()
            guard encoded > gain.ceiling else { return gain }
            gain = LoudnessGain(measured: gain.measured, target: gain.target, ceiling: gain.ceiling,
                                headroom: gain.headroom + encoded - gain.ceiling + 0.1)
        }
        return gain
    }

    /// The sound of lane `i` as its sink takes it, measured.
    private static func measureLane(_ plan: ConversionPlan, lane i: Int, settings s: ResolvedAudioSettings) throws(MediaError) -> LoudnessMeter.Measurement {
        let feed = try LoudnessFeed(rate: Int32(s.sampleRate), layout: s.channelLayout)
        try readLane(plan, lane: i, settings: s) { (frame) throws(MediaError) in try feed.add(frame) }
        return feed.meter.measurement
    }

    /// Hands `body` each block of lane `i`'s decoded sound in its time range, then nil.
    private static func readLane(_ plan: ConversionPlan, lane i: Int, settings s: ResolvedAudioSettings,
                                 _ body: (Frame?) throws(MediaError) -> Void) throws(MediaError) {
        let input = try ExportSession.sourceInputs(plan, lane: i)[0]
        // Its own reading of the one stream, positioned as the run's (the run's reader takes the probe).
        let group = ReaderPool.Group(source: plan.source, streams: [input.track.index], lanes: [0], start: plan.readerGroups[0].start)
        let readers = ReaderPool(groups: [group], takingProbe: false)
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(lanes: [], duration: plan.duration, handler: nil)
        let env = LaneEnvironment(readers: readers, file: plan.source.path, writer: writer, cutsStart: plan.cutsStart, cutsEnd: plan.cutsEnd,
                                  progress: tracker, cancellation: Cancellation(), selectiveDecode: plan.selectiveDecode)
        let source = try AudioSource(env: env, tap: try readers.tap(group: 0, output: 0), track: input.track, segment: input.segment,
                                     outputRate: Int32(s.sampleRate))
        readers.lanesStarted()
        while let timed = try source.next() {
            if case .samples(let frame, _) = timed { try body(frame) }
        }
        try body(nil)
    }

    /// What `plan` shows of the gain (`loudness-gain`, rule `loudness.measured`).
    private static func decision(_ g: LoudnessGain) -> Decision {
        let measured = g.measured.integrated.map { "\(LoudnessTarget.decibels($0)) LUFS" } ?? "silence (below the \(Int(LoudnessMeter.absoluteGate)) LUFS gate)"
        var reason = "measured \(measured) integrated, true peak \(peakText(g.measured.truePeak))"
        if let result = g.result {
            reason += "; target \(LoudnessTarget.decibels(g.target)) LUFS, gives \(LoudnessTarget.decibels(result)) LUFS, true peak \(peakText(g.resultPeak))"
        }
        return Decision(setting: "loudness-gain", value: "\(LoudnessTarget.decibels(g.decibels, sign: true)) dB", rule: "loudness.measured", reason: reason)
    }

    static func peakText(_ dbtp: Double) -> String { dbtp.isFinite ? "\(LoudnessTarget.decibels(dbtp)) dBTP" : "-inf dBTP" }

    /// The warning when the target cannot be reached under the ceiling, the note for silence.
    static func notice(_ g: LoudnessGain, track: Int) -> PlanNotice? {
        guard let result = g.result else {
            return PlanNotice(.ignored, "setting.loudness", track: track,
                              "'loudness' leaves the sound as it is: it is silent (below the \(Int(LoudnessMeter.absoluteGate)) LUFS gate), so there is no loudness to bring to \(LoudnessTarget.decibels(g.target)) LUFS")
        }
        guard g.peakLimited else { return nil }
        return PlanNotice(.changed, "loudness.peak-limited", track: track,
                          "the loudness target \(LoudnessTarget.decibels(g.target)) LUFS cannot be reached without the true peak exceeding \(LoudnessTarget.decibels(g.ceiling)) dBTP: the gain is \(LoudnessTarget.decibels(g.decibels, sign: true)) dB, giving \(LoudnessTarget.decibels(result)) LUFS"
                          + (g.headroom > 0 ? " (\(LoudnessTarget.decibels(g.headroom)) dB less than the ceiling allows: the encoded sound's true peak overshoots)" : ""))
    }
}
