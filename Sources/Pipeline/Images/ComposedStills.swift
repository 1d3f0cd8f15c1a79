import Recipe

/// Stills of a composition: its pictures as its video track makes them — the timeline's
/// segments at their speeds, layers, cross-fades, fades and dips drawn — at the composition's
/// render size (AVAssetImageGenerator draws a video composition at its `renderSize`, then fits
/// the image into `maximumSize`), whatever size an output encodes them at. They are taken from
/// the video track of the output that plays the composition (`ComposedStillTap`), not decoded
/// again; where no output draws them at the render size (no output writes the composition's
/// video, it is copied, or its layers are drawn on a smaller canvas), the composition's video is
/// drawn for the stills alone (`alone`), nothing encoded. Times count on the composition's timeline.
public struct ComposedStills: Sendable {
    /// The media output (0-based among the recipe's compiled files) whose video track plays the
    /// composition, and that track (its output track, 0-based); with `alone`, that plan's track.
    public let output: Int
    public let lane: Int
    /// How the track's pictures are shown: its display turn and pixel aspect.
    public let rotation: Int
    public let pixelAspect: Ratio
    /// The composition's frame rate; nil: the sources' own timing.
    public let frameRate: FrameRate?
    /// Per still (in the plan's order), the source frames its picture is drawn from.
    public let sources: [[ComposedSourceFrame]]
    /// The picture the stills are drawn at: the composition's render size (one file's display
    /// size for one file drawn as it is).
    public let renderWidth: Int, renderHeight: Int
    /// The composition's video drawn for the stills alone (its one video track, never encoded);
    /// nil: taken from output `output`'s track.
    public let alone: ConversionPlan?
}

/// One source frame a composed picture shows.
public struct ComposedSourceFrame: Sendable, Equatable {
    /// The timeline segment, numbered from 1 as `plan` numbers them.
    public let segment: Int
    public let file: String
    /// The frame's presentation time, on the file's timeline (as `plan` gives segments' source ranges).
    public let time: MediaTime
}

extension StillPlan {
    /// The turn and pixel aspect its pictures are drawn upright with.
    var drawnRotation: Int { composition?.rotation ?? track.format.rotation }
    var drawnPixelAspect: Ratio { composition?.pixelAspect ?? track.format.pixelAspect }
}

/// A still-image request resolved against a composition (`ComposedStills`): every refusal made
/// before anything is read — an instant outside the composition (64, `setting` "time"), an image
/// extension that is not JPEG, PNG or WebP, an output that cannot be made.
enum ComposedStillPlanner {
    /// The stills of `request` of the composition that `plan` (media output `output`) plays, drawn
    /// at `render` (the composition's render size); nil where that plan draws no video (the stills
    /// have no pictures to take). `alone`: `plan` is drawn for the stills only.
    static func plan(_ request: StillRequest, composition plan: ConversionPlan, output: Int, render: (width: Int, height: Int),
                     alone: Bool = false) throws(MediaError) -> StillPlan? {
        guard let lane = plan.lanes.firstIndex(where: { $0.videoSettings != nil }), let s = plan.lanes[lane].videoSettings else { return nil }
        let source = plan.source.path
        let duration = plan.duration
        guard duration.isNumeric, duration > .zero else {
            throw MediaError(.unsupported, "the composition states no length, so no instant in it can be found", file: source)
        }
        let asked = try StillPlanner.instants(request.times, duration: duration, source: source, within: "the composition")
        let track = plan.lanes[lane].track
        let picture = drawnPicture(plan, settings: s, render: render, track: track)
        let size = StillPlanner.stillSize(picture, box: request.box)
        let files = try StillPlanner.files(request, offsets: asked.map(\.1), source: source)
        let inputs = try ExportSession.sourceInputs(plan, lane: lane)
        var cursors = SourceCursors(plan.sources)
        var stills: [PlannedStill] = [], sources: [[ComposedSourceFrame]] = []
        for (i, (text, offset)) in asked.enumerated() {
            let at = pictureTime(offset, duration: duration, frameDuration: s.frameRate?.frameDuration)
            let shown = try sourceFrames(at: at, inputs: inputs, constantRate: s.frameRate != nil, cursors: &cursors)
            // Without a frame rate, a picture starts where its source frame is put.
            let time = s.frameRate == nil ? shown.first.map { inputs[$0.input].segment.targetTime(ofSource: $0.frame.time) } ?? at : at
            let tile = files.sheet.map { sh in (x: size.width * (i % sh.columns), y: size.height * (i / sh.columns), width: size.width, height: size.height) }
            stills.append(PlannedStill(number: i + 1, asked: text, requested: offset, shown: time, decodeFrom: time, isKeyframe: false,
                                       path: files.paths[i], tile: tile))
            sources.append(shown.map(\.frame))
        }
        // HDR made SDR as a file's still is (`StillPlanner`): by the picture's own colours.
        var made = StillPlan(source: source, track: track, fileStart: .zero, origin: .zero, duration: duration, format: files.format,
                             quality: request.quality ?? StillRequest.defaultQuality, width: size.width, height: size.height,
                             toneMapping: SettingsAssistant.toneMapping(source: picture), overwrite: request.overwrite, stills: stills,
                             sheet: files.sheet)
        made.composition = ComposedStills(output: output, lane: lane, rotation: picture.rotation, pixelAspect: picture.pixelAspect,
                                          frameRate: s.frameRate, sources: sources, renderWidth: picture.width, renderHeight: picture.height,
                                          alone: alone ? plan.droppingOpenedEncoders() : nil)
        return made
    }

    /// The composition's picture as the stills get it (`ComposedStillTap.Drawing`): one file's
    /// as decoded (its size, turn, pixel aspect and colours, as a file's still); several files'
    /// fitted upright into the render size, in the source's colours unless the track makes them
    /// SDR before fitting; a canvas of layers at the render size in the track's colours.
    private static func drawnPicture(_ plan: ConversionPlan, settings s: ResolvedVideoSettings, render: (width: Int, height: Int),
                                     track: Track) -> FormatDescription {
        var picture = track.format
        guard ExportSession.stillDrawing(plan) != .asDecoded else { return picture }
        (picture.width, picture.height, picture.pixelAspect, picture.rotation) = (render.width, render.height, .square, 0)
        if !plan.videoLayers.isEmpty || s.toneMapping != nil {
            (picture.colorPrimaries, picture.colorTransfer, picture.colorMatrix, picture.colorRange) = (s.colorPrimaries, s.colorTransfer, s.colorMatrix, s.colorRange)
        }
        return picture
    }

    /// Where the picture on display at `t` starts: at a frame rate, its slot (the last one at the
    /// composition's end); without one, `t` (just before the end at the end: nothing starts there).
    private static func pictureTime(_ t: MediaTime, duration: MediaTime, frameDuration: MediaTime?) -> MediaTime {
        guard let fd = frameDuration else { return t < duration ? t : duration - MediaTime(value: 1, timescale: 1_000_000) }
        var k = MediaTime.count(of: fd, from: .zero, to: t, rounding: .down) ?? 0
        while k > 0 && fd * k >= duration { k -= 1 }
        return fd * k
    }

    /// The source frames the picture starting at `t` is drawn from: of each segment of the
    /// video track's chain that `t` lies in (a cross-fade's two, the layers over them), the
    /// frame nearest the source time shown there (ties to the earlier, as `FrameGrid` fills
    /// slots) at a constant rate, else the frame on display there. With the chain input each is of.
    private static func sourceFrames(at t: MediaTime, inputs: [ExportSession.SourceInput], constantRate: Bool,
                                     cursors: inout SourceCursors) throws(MediaError) -> [(input: Int, frame: ComposedSourceFrame)] {
        var out: [(input: Int, frame: ComposedSourceFrame)] = []
        for (j, input) in inputs.enumerated() where input.segment.targetRange.contains(t) {
            let segment = input.segment
            let sourceTime = segment.sourceTime(ofTarget: t)
            let (cursor, fileStart) = cursors.cursor(input.file, stream: input.track.index)
            guard let around = try StillScan.frames(around: sourceTime, in: cursor, fileStart: fileStart) else { continue }
            // A frame at or past the segment's end is not read for it.
            let after = around.after.flatMap { $0 < segment.sourceRange.end ? $0 : nil }
            let frame: MediaTime?
            switch (around.atOrBefore, after) {
            case let (b?, a?) where constantRate: frame = sourceTime - b <= a - sourceTime ? b : a
            case let (b?, _): frame = b
            case (nil, let a): frame = a ?? around.after
            }
            guard let frame else { continue }
            out.append((j, ComposedSourceFrame(segment: input.timelineSegment + 1, file: input.file, time: frame)))
        }
        return out
    }
}

/// One cursor per file and stream a plan's stills look at, with the file's start.
private struct SourceCursors {
    private var open: [String: StreamCursor] = [:]
    private var starts: [String: MediaTime] = [:]

    init(_ sources: [Asset]) {
        for a in sources { starts[a.path] = a.startTime }
    }

    mutating func cursor(_ path: String, stream: Int) -> (StreamCursor, fileStart: MediaTime) {
        let key = "\(stream):\(path)"
        let start = starts[path] ?? .zero
        if let c = open[key] { return (c, start) }
        let c = StreamCursor(path: path, stream: stream)
        open[key] = c
        return (c, start)
    }
}
