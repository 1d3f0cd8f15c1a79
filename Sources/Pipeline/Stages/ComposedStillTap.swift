import Recipe

/// Stills of a composition taken from its video track's sink (`VideoSink`, or `DrawnStillSink`
/// where no output encodes it): each picture as the timeline makes it — segments at their speeds,
/// cross-fades, layers drawn — at the composition's render size, faded and dipped as the output
/// is, on the composition's timeline. A still shows the picture on display at its instant: the
/// last one starting at or before it, known once the next one starts (or the track ends). One
/// picture is held meanwhile, by a reference of its own, and drawn (fitted, faded) only when a
/// still shows it: pictures no still shows cost nothing here.
// Not Sendable: used on the lane's queue only (its sink's), like the sink.
final class ComposedStillTap {
    /// What the pictures reaching the sink still need to be the composition's picture at its
    /// render size (`ComposedStills.width`, `height`).
    enum Drawing {
        /// One file's, as decoded: the render size is its display size (the still turns it upright
        /// and tone-maps it as it does a file's frame).
        case asDecoded
        /// Several files': each (made SDR first where the lane tone-maps) turned upright and
        /// fitted into the render size.
        case fitted(PictureFitter, toneMapping: PictureToneMapping?)
        /// A compositor's canvas, drawn at the render size already.
        case canvas
    }

    let maker: StillMaker
    private let drawing: Drawing
    private let fades: [PictureFade]
    private let fadedPictures = PicturePools(capacity: 1)
    private let isCancelled: () -> Bool
    /// The stills not made yet, by instant, earliest last (so the next is `removeLast`).
    private var waiting: [PlannedStill]
    private var held: (picture: Frame, time: MediaTime)?

    init(_ maker: StillMaker, drawing: Drawing, fades: [PictureFade], isCancelled: @escaping () -> Bool) {
        self.maker = maker
        self.drawing = drawing
        self.fades = fades
        self.isCancelled = isCancelled
        waiting = maker.plan.stills.sorted { $0.requested > $1.requested }
    }

    /// Every still is made: the lane may stop drawing for it.
    var isDone: Bool { waiting.isEmpty && held == nil }

    /// The picture that starts at `time` on the composition's timeline (as it reaches the sink,
    /// before the sink scales or fades it): the held one is on display at every instant before it.
    func take(_ picture: Frame, at time: MediaTime) throws(MediaError) {
        if let held { try show(held.picture, from: held.time, before: time) }
        // Nothing left to show: no picture is held (and none drawn).
        held = waiting.isEmpty ? nil : (try picture.reference(), time)
    }

    /// The track ended: the last picture is on display at every instant left.
    func finish() throws(MediaError) {
        guard let held else { return }
        try show(held.picture, from: held.time, before: .positiveInfinity)
        self.held = nil
    }

    /// Hands `picture` (starting at `start`), drawn, to the maker for every still asked for
    /// before `end`, under the time the plan says it shows (the maker makes each still once).
    private func show(_ picture: Frame, from start: MediaTime, before end: MediaTime) throws(MediaError) {
        var drawn: Frame?
        while let next = waiting.last, next.requested < end {
            waiting.removeLast()
            if drawn == nil { drawn = try draw(picture, at: start) }
            guard let drawn else { break }
            try maker.take(drawn, at: maker.plan.origin + next.shown, isCancelled: isCancelled)
        }
    }

    /// The composition's picture at the render size, faded as the output is at `time`.
    private func draw(_ picture: Frame, at time: MediaTime) throws(MediaError) -> Frame {
        var made = picture
        if case .fitted(let fitter, let toneMapping) = drawing {
            let display = picture.display ?? (0, .square)
            made = try fitter.fit(try toneMapping?.map(picture) ?? picture, rotation: display.rotation, pixelAspect: display.pixelAspect)
        }
        let (amount, color) = fades.amount(atSeconds: time.seconds)
        return amount < 1 ? try made.faded(amount, toward: color, from: fadedPictures) : made
    }
}
