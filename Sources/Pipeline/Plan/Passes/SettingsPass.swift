import Recipe

/// The planner's settings pass: every value the recipe left open, decided by the settings
/// assistant from the tracks a lane shows (a composition's files reconciled first).
enum SettingsPass {
    struct Result {
        var lanes: [LanePlan]
        /// The render frame a composition's layer rectangles are in: its first video lane's
        /// reconciled source size; nil: the output size.
        var renderFrame: (width: Int, height: Int)?
    }

    /// `trimmed`: the requested time range cuts the file (subtitles are then converted, not copied).
    static func settle(_ chosen: [TrackPass.Chosen], files: PlanFiles, trimmed: Bool, assistant: SettingsAssistant) throws(MediaError) -> Result {
        var result = Result(lanes: [])
        for pick in chosen {
            let track = pick.track, trackFile = files.assets[pick.home].path
            if pick.isCopy {
                if files.request.keyframeGrid != nil && track.mediaType == .video {
                    throw MediaError(.invalidSettings, "a copied video track keeps the source's keyframes, which cannot be moved onto the output's fragment starts: reencode it",
                                     file: trackFile, track: track.index, setting: "keyframes")
                }
                result.lanes.append(LanePlan(track: track, kind: .passthrough))
                continue
            }
            if case .subtitle = pick.request.mode {
                result.lanes.append(LanePlan(track: track, kind: try SubtitleConversion.plan(track, format: files.format, trimmed: trimmed, source: files.source)))
                continue
            }
            do throws(MediaError) {
                switch pick.request.mode {
                case .video(let s): result.lanes.append(try video(pick, settings: s, files: files, renderFrame: &result.renderFrame, assistant: assistant))
                case .audio(let s): result.lanes.append(try audio(pick, settings: s, files: files, assistant: assistant))
                case .subtitle, .passthrough: break  // above
                }
            } catch { throw error.at(file: trackFile, track: track.index) }
        }
        return result
    }

    private static func video(_ pick: TrackPass.Chosen, settings s: VideoSettings, files: PlanFiles,
                              renderFrame: inout (width: Int, height: Int)?, assistant: SettingsAssistant) throws(MediaError) -> LanePlan {
        let trackFile = files.assets[pick.home].path
        var source = VariableRate.measured(pick.track, path: trackFile, settings: s)
        var settings = s, reconciled: [Decision] = []
        let shown = files.shownTracks(.video, home: pick.home, track: pick.track)
        let composition = files.request.videoComposition
        if files.reconciles || shown.count > 1 || composition != nil {
            var formats = [(file: trackFile, format: source)]
            for (file, t) in shown.dropFirst() { formats.append((file, VariableRate.measured(t, path: file, settings: s))) }
            (source, settings, reconciled) = try CompositionSources.video(formats, settings: s, renderFiles: files.renderFiles,
                                                                          renderSize: composition?.renderSize)
            renderFrame = renderFrame ?? (source.width, source.height)
        }
        // Drawn as layers, the pictures are painted on an opaque canvas: no alpha to keep.
        if composition != nil { source.hasAlpha = false }
        var resolved = try assistant.video(source: source, settings: settings, container: files.format, keyframes: files.request.keyframeGrid)
        if !reconciled.isEmpty {
            let replaced = Set(reconciled.map(\.setting))
            resolved.decisions = reconciled + resolved.decisions.filter { !replaced.contains($0.setting) }
        }
        return LanePlan(track: pick.track, kind: .video(resolved), source: pick.home)
    }

    private static func audio(_ pick: TrackPass.Chosen, settings s: AudioSettings, files: PlanFiles,
                              assistant: SettingsAssistant) throws(MediaError) -> LanePlan {
        var source = pick.track.format, reconciled: [Decision] = []
        let shown = files.shownTracks(.audio, home: pick.home, track: pick.track)
        if files.reconciles || shown.count > 1 {
            (source, reconciled) = CompositionSources.audio(shown.map { (file: $0.file, format: $0.track.format) })
        }
        var resolved = try assistant.audio(source: source, settings: s, container: files.format)
        resolved.decisions = reconciled + resolved.decisions
        return LanePlan(track: pick.track, kind: .audio(resolved), source: pick.home)
    }
}
