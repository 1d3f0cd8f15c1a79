import Recipe

/// Draws and encodes the stills of one `StillPlan` as the frames they show arrive, from
/// whichever decode hands them over (the image generator's own, or a rendition's lane beside
/// them), then the contact sheet and storyboard: a file per still, or a tile of one sheet. The
/// drawing, encoding and writing happen on the stills queue (`StillFiles.perform`), beside the
/// decode.
// Not Sendable: used on one thread at a time (a lane's queue, then the caller's); its encoder is
// used only on the stills queue.
final class StillMaker {
    let plan: StillPlan
    private let encoder: StillEncoder
    private let files: StillFiles
    /// Source time of each frame shown (on the file's timeline) → the stills that show it.
    let byFrame: [MediaTime: [PlannedStill]]
    private(set) var found: Set<MediaTime> = []

    init(_ plan: StillPlan, into files: StillFiles) throws(MediaError) {
        self.plan = plan
        self.files = files
        encoder = try StillEncoder(format: plan.format, width: plan.width, height: plan.height,
                                   sheet: plan.sheet.map { ($0.columns, $0.rows) }, quality: plan.quality, toneMapping: plan.toneMapping)
        byFrame = Dictionary(grouping: plan.stills) { plan.origin + $0.shown }
    }

    /// The frames no decode has handed over yet.
    var missing: Set<MediaTime> { Set(byFrame.keys).subtracting(found) }

    /// A decoded frame shown from `t` (the file's timeline): its stills are made, once. The
    /// frame is kept by a new reference until they are (the decoder's next pictures go elsewhere).
    func take(_ frame: Frame, at t: MediaTime, isCancelled: () -> Bool) throws(MediaError) {
        guard let stills = byFrame[t], found.insert(t).inserted else { return }
        if isCancelled() { throw MediaError.cancelled() }
        let job = StillJob(frame: try frame.reference(), stills: stills, plan: plan, encoder: encoder, files: files)
        try files.perform { () throws(MediaError) in try job.make() }
    }

    /// Every frame arrived: once every still is made, the sheet and its storyboard are written.
    func finish() throws(MediaError) {
        if let t = missing.min() {
            throw MediaError(.processing, "the frame at \((t - plan.origin).secondsDescription) did not come out of the decoder", track: plan.track.index)
        }
        if plan.sheet != nil {
            let job = StillJob(frame: nil, stills: [], plan: plan, encoder: encoder, files: files)
            try files.perform { () throws(MediaError) in try job.writeSheet() }
        }
        try files.drain()
    }
}

/// One picture's stills, made on the stills queue.
// SAFETY: `frame` is a reference only this job holds; the encoder is used only on the stills
// queue, one job at a time (the queue is serial), and the plan is a value.
private struct StillJob: @unchecked Sendable {
    let frame: Frame?
    let stills: [PlannedStill]
    let plan: StillPlan
    let encoder: StillEncoder
    let files: StillFiles

    func make() throws(MediaError) {
        guard let frame else { return }
        let rotation = plan.drawnRotation, pixelAspect = plan.drawnPixelAspect
        if plan.sheet != nil {
            for still in stills { try encoder.place(frame, rotation: rotation, pixelAspect: pixelAspect, tile: still.number - 1) }
            return
        }
        let bytes = try encoder.encode(frame, rotation: rotation, pixelAspect: pixelAspect)
        for still in stills { try files.write(bytes, to: still.path, overwrite: plan.overwrite) }
    }

    func writeSheet() throws(MediaError) {
        guard let sheet = plan.sheet else { return }
        try files.write(try encoder.encodeSheet(), to: sheet.path, overwrite: plan.overwrite)
        if let vtt = sheet.webVTT { try files.write(Array(StillSheets.webVTT(plan).utf8), to: vtt, overwrite: plan.overwrite) }
    }
}
