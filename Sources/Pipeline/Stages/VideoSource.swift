import Recipe

/// Reader packets → (skip what will not be shown) → decoder → constant-rate retime or source
/// timing, trimmed to its segment → pictures stamped on the output's timeline.
///
/// With a frame rate, the output time base is 1/rate and pictures are the slots of the segment's
/// grid (`TimeSegment.sourceGrid`); without one it is the source stream's and pictures keep the
/// source's times, moved and scaled by the segment. A piece of a phone's slow motion
/// (`TimeSegment.slowMotion`) shows only the pictures the phone keeps, at the phone's times
/// (`SlowMotionPicker`).
final class VideoSource: SourceStage {
    private let env: LaneEnvironment
    /// Where its packets come from.
    private let tap: PacketTap
    private let track: Track
    private let segment: TimeSegment
    private let decoder: Decoder
    /// The decoder's share of the threads, held as long as it.
    private let threads: DecoderThreads.Lease
    let sourceTimeBase: TimeBase
    /// What the pictures are stamped in.
    let outputTimeBase: TimeBase
    /// The rate the encoder is told (the source's average without a frame rate).
    let outputFrameRate: FrameRate?
    private let grid: FrameGrid?
    /// The output slot number of the grid's slot 0 (the segment's place on the output's grid).
    private let firstSlot: Int64
    private var retimer: ConstantRateRetimer<Frame>?
    private var selector: SelectiveDecode<Packet>?
    private let droppability: Droppability?
    private var maxPTS: MediaTime = .invalid
    /// How long the last picture lasts, where nothing follows it (not merely what it states).
    private var spacing = PictureSpacing()
    /// The last decoded picture's stated length (before any deinterlacing).
    private var lastDecodedDuration: MediaTime = .invalid
    private var lastOutputPTS: Int64 = .min
    /// Source timing: the last picture before the segment start (on screen there unless a
    /// picture starts exactly at the start).
    private var leadIn: (frame: Frame, pts: MediaTime)?
    /// Source timing: the picture sent next, held until the one after it (or the segment's end)
    /// says how long it is shown.
    private var onScreen: (frame: Frame, pts: MediaTime)?
    /// Times for pictures the file gives none.
    private var untimed = UntimedPictures()
    /// Nothing more of the segment will be shown: reading stops.
    private var done = false
    /// The decoder is drained and the trailing slots are out.
    private var ended = false
    private var pending = PendingFrames()
    /// A piece of a phone's slow motion: which packets are decoded, which pictures shown and when.
    private var picker: SlowMotionPicker?
    /// Source timing of a slow-motion piece: the picture shown last, from its time, until the next.
    private var shownHeld: (frame: Frame, at: MediaTime)?
    private(set) var lastTime: MediaTime = .invalid
    var file: String? { tap.file }
    private(set) var statistics: LaneStatistics

    /// Slots up to the segment's end are all this segment's (a composition), not only those
    /// whose midpoint the material reaches (a single range: no sliver frame at its end).
    private let fillsRange: Bool
    /// Every slot of the segment shows a picture: before the file's first, that one; after its
    /// last, that one (a segment lengthened past its file for a cross-fade).
    private let holdsEdges: Bool
    /// An interlaced track's pictures made progressive before they are timed; nil: as decoded.
    private let deinterlacer: Deinterlacer?

    /// Opens the decoder. `frameRate` nil: source timing. `deinterlace`: the rate an interlaced
    /// track is made progressive at (a progressive one is left as it is).
    init(env: LaneEnvironment, tap: PacketTap, track: Track, segment: TimeSegment, frameRate: FrameRate?,
         fillsRange: Bool = false, holdsEdges: Bool = false, deinterlace: DeinterlaceRate? = nil) throws(MediaError) {
        self.fillsRange = fillsRange
        self.holdsEdges = holdsEdges
        self.env = env
        self.tap = tap
        self.track = track
        self.segment = segment
        statistics = LaneStatistics(track: track.index)
        let stream = tap.stream
        let parameters = StreamParameters(stream)
        sourceTimeBase = parameters.timeBase
        threads = env.decoderThreads.lease()
        decoder = try Decoder(stream: stream, threads: threads.request)
        threads.opened(threads: decoder.threadCount)
        var picker: SlowMotionPicker?
        if let piece = segment.slowMotion {
            picker = try SlowMotionPicker(piece: piece, segment: segment, codecName: track.format.codec, extradata: parameters.extradata,
                                          selective: env.selectiveDecode, file: tap.file)
        }
        self.picker = picker
        if let deinterlace, let order = track.format.fieldOrder, order.isInterlaced {
            deinterlacer = try Deinterlacer(rate: deinterlace, topFieldFirst: order.topFieldFirst)
        } else {
            deinterlacer = nil
        }
        if let rate = frameRate {
            let (grid, first) = segment.sourceGrid(frameDuration: rate.frameDuration)
            self.grid = grid
            firstSlot = first
            outputTimeBase = TimeBase(framesOf: rate)
            outputFrameRate = rate
            retimer = ConstantRateRetimer(grid: grid, fillsFromStart: holdsEdges)
            // A slow-motion piece decides by layer (the picker): the grid's skipping would judge
            // by every picture's time, shown or not. The deinterlacer reads each picture's
            // neighbours: none is skipped.
            if env.selectiveDecode && picker == nil && deinterlacer == nil {
                droppability = Droppability(codecName: track.format.codec, extradata: parameters.extradata)
                selector = SelectiveDecode(grid: grid)
            } else {
                droppability = nil
            }
        } else {
            grid = nil
            firstSlot = 0
            outputTimeBase = sourceTimeBase
            outputFrameRate = parameters.averageFrameRate
            droppability = nil
        }
    }

    /// What it gives: the track's pictures (as decoded), stamped in `outputTimeBase`.
    var pictureFormat: PictureFormat {
        PictureFormat(width: track.format.width, height: track.format.height, pixelFormat: track.format.pixelFormat ?? "none",
                      timeBase: Ratio(outputTimeBase), frameRate: outputFrameRate)
    }

    func next() throws(MediaError) -> TimedFrame? {
        while true {
            if let frame = pending.pop() { return frame }
            if ended { return nil }
            try advance()
        }
    }

    /// One packet's worth of work, or the end.
    private func advance() throws(MediaError) {
        if !done, let packet = try tap.next() {
            try env.checkCancelled()
            statistics.packetsRead += 1
            let pts = MediaTime(ts: packet.pts, timeBase: sourceTimeBase)
            if pts.isNumeric { lastTime = pts }
            if var sel = selector {
                let droppable = !packet.isKeyframe && (packet.isDisposable || droppability?.isDroppable(packet.bytes) == true)
                let ready = sel.push(packet, pts: pts, dts: MediaTime(ts: packet.dts, timeBase: sourceTimeBase), droppable: droppable)
                statistics.packetsSkipped = sel.skipped
                selector = sel
                for p in ready where !done { try decode(p) }
            } else if var p = picker {
                let decodes = try p.decodes(packet.bytes, pts: pts, keyframe: packet.isKeyframe, disposable: packet.isDisposable)
                statistics.packetsSkipped = p.skipped
                picker = p
                if decodes { try decode(packet) }
            } else {
                try decode(packet)
            }
            return
        }
        tap.detach()
        if !done, var sel = selector {
            let rest = sel.finish()
            statistics.packetsSkipped = sel.skipped
            selector = sel
            for p in rest { try decode(p) }
        }
        _ = try decoder.send(nil)
        try receiveFrames()
        for (f, pts) in untimed.flush(from: untimedStart, duration: knownFrameDuration) where !done {
            try present(f, pts: pts)
        }
        if let deinterlacer, !done {
            for (picture, pts, duration) in try deinterlacer.finish() { try place(picture, pts: pts, duration: duration) }
        }
        try finishTiming()
        ended = true
    }

    private func decode(_ packet: Packet) throws(MediaError) {
        statistics.packetsDecoded += 1
        while try !decoder.send(packet) {
            try receiveFrames()
        }
        try receiveFrames()
    }

    private func receiveFrames() throws(MediaError) {
        while let frame = try decoder.receive() {
            statistics.framesDecoded += 1
            if done { continue }
            let stated = MediaTime(ts: frame.decodedTimestamp, timeBase: sourceTimeBase)
            for (f, pts) in untimed.place(frame, stated: stated, duration: nominalDuration(of: frame), start: untimedStart) where !done {
                try present(f, pts: pts)
            }
        }
    }

    /// One picture's length where its time is not stated: its packet's, else `knownFrameDuration`.
    private func nominalDuration(of frame: Frame) -> MediaTime {
        frame.duration > 0 ? MediaTime(ts: frame.duration, timeBase: sourceTimeBase) : knownFrameDuration
    }

    /// The last decoded picture's length, else the track's average, else the stored slow-motion
    /// rate's (a decoded picture's: a deinterlaced one at field rate lasts half as long).
    private var knownFrameDuration: MediaTime {
        lastDecodedDuration.isNumeric ? lastDecodedDuration : track.format.averageFrameDuration ?? SlowMotionInfo.storedFrameRate.frameDuration
    }

    /// Where pictures of a stream that states no time at all start: the track's start.
    private var untimedStart: MediaTime { track.startTime.isNumeric ? track.startTime : segment.sourceRange.start }

    /// A decoded picture at its time in the source: as it is, or as the deinterlacer's pictures.
    private func present(_ frame: Frame, pts: MediaTime) throws(MediaError) {
        let duration = frame.duration > 0 ? MediaTime(ts: frame.duration, timeBase: sourceTimeBase) : MediaTime.invalid
        if duration.isNumeric { lastDecodedDuration = duration }
        guard let deinterlacer else { return try place(frame, pts: pts, duration: duration) }
        for (picture, at, lasting) in try deinterlacer.push(frame, at: pts, duration: duration.isNumeric ? duration : track.format.averageFrameDuration ?? .invalid) {
            try place(picture, pts: at, duration: lasting)
            if done { break }
        }
    }

    /// A picture as decoded (or deinterlaced), shown from `pts` for `duration` (invalid: not stated).
    private func place(_ frame: Frame, pts: MediaTime, duration: MediaTime) throws(MediaError) {
        lastTime = pts
        spacing.saw(pts, stated: duration)
        frame.display = (track.format.rotation, track.format.pixelAspect)
        if !maxPTS.isNumeric || pts > maxPTS { maxPTS = pts }
        var shownAt = pts
        if picker != nil {
            guard let at = picker?.placement(ofPictureAt: pts) else { return }
            shownAt = at
        }
        try handle(frame, pts: shownAt)
    }

    private func handle(_ frame: Frame, pts: MediaTime) throws(MediaError) {
        if var r = retimer {
            let slots = r.push(frame, pts: pts)
            retimer = r
            for (picture, k) in slots { emit(picture, pts: firstSlot + k, duration: 1) }
            if let grid, !grid.inSession(r.nextSlot) { done = true }
            return
        }
        if let piece = picker?.piece { return try showSlowMotion(frame, at: pts, piece: piece) }
        // Source timing, trimmed to the segment. Each picture lasts until the next one starts, or
        // the segment ends (whatever its sample states: `PictureSpacing`), so a segment's pictures
        // reach its end and the next segment's join them without a hole. A trim starts on a
        // frame start (TrimSnap); the picture before it is shown from the start only when no
        // picture starts exactly there (the snap found none), so there is no sliver.
        let range = segment.sourceRange
        if pts < range.start {
            leadIn = (frame, pts)
            return
        }
        if let held = leadIn {
            leadIn = nil
            if pts > range.start { try show(held, from: range.start, until: MediaTime.min(pts, range.end)) }
        }
        if let shown = onScreen {
            guard pts > shown.pts else { return }
            onScreen = nil
            try show(shown, from: shown.pts, until: MediaTime.min(pts, range.end))
        }
        if pts >= range.end { done = true; return }
        guard try segment.targetTicks(ofSource: pts, in: sourceTimeBase) > lastOutputPTS else { return }
        onScreen = (frame, pts)
    }

    /// Source timing: `picture` shown from source time `start` until `end`, on the output's timeline.
    private func show(_ picture: (frame: Frame, pts: MediaTime), from start: MediaTime, until end: MediaTime) throws(MediaError) {
        let a = try segment.targetTicks(ofSource: start, in: sourceTimeBase)
        let b = end.isNumeric ? try segment.targetTicks(ofSource: end, in: sourceTimeBase) : a
        emit(picture.frame, pts: a, duration: max(0, b - a))
    }

    /// Source timing: where the last picture, from `pts`, stops being shown with nothing after it:
    /// its length (`PictureSpacing`), cut at the segment's end; the segment's end where its
    /// length is not known.
    private func lastPictureEnd(from pts: MediaTime) -> MediaTime {
        let length = spacing.lastLength(average: track.format.averageFrameDuration)
        let end = segment.sourceRange.end
        guard length.isNumeric else { return end }
        return end.isNumeric ? MediaTime.min(pts + length, end) : pts + length
    }

    /// Source timing of a slow-motion piece (`at` is on its source line): each picture lasts
    /// until the next one, so pieces join without a gap; the picture before the recipe segment's
    /// start is shown from there (its first piece only: for a later piece it is the piece
    /// before's); the segment's last piece ends its last picture at the segment's end.
    private func showSlowMotion(_ frame: Frame, at t: MediaTime, piece: SlowMotionPiece) throws(MediaError) {
        let range = segment.sourceRange
        if t < range.start {
            if piece.isFirst { shownHeld = (frame, range.start) }
            return
        }
        try releaseShown(until: t, piece: piece)
        if t >= range.end { done = true; return }
        shownHeld = (frame, t)
    }

    private func releaseShown(until t: MediaTime, piece: SlowMotionPiece) throws(MediaError) {
        guard let held = shownHeld else { return }
        shownHeld = nil
        let end = piece.isLast ? MediaTime.min(t, segment.sourceRange.end) : t
        let a = try segment.targetTicks(ofSource: held.at, in: sourceTimeBase)
        let b = try segment.targetTicks(ofSource: end, in: sourceTimeBase)
        guard b > a, a > lastOutputPTS else { return }
        emit(held.frame, pts: a, duration: b - a)
    }

    /// The end of the last picture, for the slots after the last frame.
    private func finishTiming() throws(MediaError) {
        if let picker, shownHeld != nil {
            // The last picture lasts to the end of what was read, on the phone's timeline.
            let d = spacing.lastLength(average: track.format.averageFrameDuration)
            try releaseShown(until: picker.sourceLine(ofFileTime: maxPTS + (d.isNumeric ? d : knownFrameDuration)), piece: picker.piece)
        }
        if let held = leadIn {
            // Nothing came after the picture before the start: it is all the range shows, for
            // what is left of its length (nothing, where it ends before the start).
            leadIn = nil
            let end = lastPictureEnd(from: held.pts)
            if !end.isNumeric || end > segment.sourceRange.start { try show(held, from: segment.sourceRange.start, until: end) }
        }
        if let shown = onScreen {
            onScreen = nil
            try show(shown, from: shown.pts, until: lastPictureEnd(from: shown.pts))
        }
        guard var r = retimer, !done || r.grid.inSession(r.nextSlot) else { return }
        var frameDuration = spacing.lastLength(average: track.format.averageFrameDuration)
        if !frameDuration.isNumeric { frameDuration = r.grid.frameDuration }
        var end = maxPTS.isNumeric ? maxPTS + frameDuration : .negativeInfinity
        if let picker, end.isNumeric { end = picker.sourceLine(ofFileTime: end) }
        // In a composition every slot whose time lies in the segment's range is the segment's
        // (the next one starts at the first slot at or after its own start): when the material
        // reaches the range's end, the last frame fills them all, so no slot between two
        // segments is left black. A short file still leaves the slots past its end to the gap.
        if fillsRange, end.isNumeric, end >= segment.sourceRange.end { end = .positiveInfinity }
        if holdsEdges { end = .positiveInfinity }
        let slots = r.finish(sourceEnd: end)
        retimer = r
        for (picture, k) in slots { emit(picture, pts: firstSlot + k, duration: 1) }
    }

    private func emit(_ picture: Frame, pts: Int64, duration: Int64) {
        lastOutputPTS = pts
        pending.append(.picture(picture, pts: pts, duration: duration))
    }
}
