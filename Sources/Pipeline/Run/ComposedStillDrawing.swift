import Dispatch
import Recipe

/// A composition's video drawn for its stills alone (`ComposedStills.alone`): where no output
/// draws the composition's picture at its render size — the recipe writes only stills of it,
/// its video is copied, or its layers are drawn on a smaller canvas — its video track is played
/// as a run plays it (the same sources, sequence, compositor, fades), into a sink that encodes
/// nothing (`DrawnStillSink`). Only the pictures a still shows are fitted, faded and kept, and
/// the drawing stops after the last still's picture; no file but the stills is written (the
/// plan's writer is never started).
enum ComposedStillDrawing {
    /// Draws the composition of each group of `makers` that share a drawing plan, one lane each,
    /// handing every maker the pictures its stills show. Blocks the calling thread.
    static func draw(_ makers: [StillMaker], cancellation: Cancellation) throws(MediaError) {
        var groups: [(plan: ConversionPlan, makers: [StillMaker])] = []
        for maker in makers {
            guard let plan = maker.plan.composition?.alone else { continue }
            if let k = groups.firstIndex(where: { $0.plan.outputPath == plan.outputPath }) { groups[k].makers.append(maker) } else { groups.append((plan, [maker])) }
        }
        for group in groups {
            if cancellation.isCancelled { throw MediaError.cancelled(file: group.plan.source.path) }
            try draw(group.plan, for: group.makers, cancellation: cancellation)
        }
    }

    private static func draw(_ planned: ConversionPlan, for makers: [StillMaker], cancellation: Cancellation) throws(MediaError) {
        var plan = planned
        if plan.graph == nil { try Negotiation.negotiate(&plan) }
        guard let lane = makers.first?.plan.composition?.lane, plan.lanes.indices.contains(lane) else {
            throw MediaError(.processing, "the composition's stills name no video track to draw", file: plan.source.path)
        }
        let reader = plan.makeReaders()
        // A rehearsal writer: it holds no file, and is never started (nothing is written).
        let writer = try AssetWriter(path: plan.outputPath, format: plan.format, rehearsal: true)
        let tracker = ProgressTracker(lanes: [LaneProgress(track: plan.lanes[lane].track.index, mediaType: .video, outputTime: .zero, frames: 0)],
                                      duration: plan.duration, handler: nil)
        let env = LaneEnvironment(readers: reader, file: plan.source.path, writer: writer, cutsStart: plan.cutsStart, cutsEnd: plan.cutsEnd,
                                  progress: tracker, cancellation: cancellation, selectiveDecode: plan.selectiveDecode)
        let drawnAll = Locked(false)
        let tee = ExportSession.Tee(readerOutput: nil, composedStills: makers, stillsDrawn: drawnAll)
        let work = try ExportSession.laneWork(plan, output: lane, env: env, tee: tee).work
        let running = Lane(name: "stills-track\(plan.lanes[lane].track.index)", work: work)
        let failure = Locked<MediaError?>(nil)
        let group = DispatchGroup()
        reader.lanesStarted()
        running.start(in: group) { error in
            failure.withLock { $0 = $0 ?? error }
            reader.stop(error)
        }
        group.wait()
        if cancellation.isCancelled { throw MediaError.cancelled(file: plan.source.path) }
        // Stopped once every still was made (`DrawnStillSink.stop`): done, not failed.
        if drawnAll.withLock({ $0 }) { return }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

extension ExportSession {
    /// What the pictures reaching a composition's video sink are (`ComposedStillTap.Drawing`).
    enum StillPictures {
        case asDecoded, fitted, canvas
    }

    /// How `plan`'s video track hands its pictures to its sink.
    static func stillDrawing(_ plan: ConversionPlan) -> StillPictures {
        !plan.videoLayers.isEmpty ? .canvas : plan.extraSources.isEmpty ? .asDecoded : .fitted
    }

    /// The taps of the composition's stills a lane's own sink feeds, each drawing the pictures
    /// at the composition's render size (`ComposedStills.renderWidth`, `renderHeight`).
    static func composedStillTaps(_ tee: Tee?, plan: ConversionPlan, settings s: ResolvedVideoSettings,
                                  env: LaneEnvironment) throws(MediaError) -> [ComposedStillTap] {
        var taps: [ComposedStillTap] = []
        for maker in tee?.composedStills ?? [] {
            guard let c = maker.plan.composition else { continue }
            let drawing: ComposedStillTap.Drawing
            switch stillDrawing(plan) {
            case .asDecoded: drawing = .asDecoded
            case .canvas: drawing = .canvas
            case .fitted:
                guard let format = PixelFormat(named: s.pixelFormat) else {
                    throw MediaError(.invalidSettings, "unknown pixel format '\(s.pixelFormat)'")
                }
                let fitter = try PictureFitter(width: Int32(c.renderWidth), height: Int32(c.renderHeight), format: format)
                drawing = .fitted(fitter, toneMapping: s.toneMapping.map { PictureToneMapping($0, target: format) })
            }
            taps.append(ComposedStillTap(maker, drawing: drawing, fades: plan.pictureFades) { env.cancellation.isCancelled })
        }
        return taps
    }
}
