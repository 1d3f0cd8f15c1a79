import Recipe

/// Stills of a composition taken from its video track's sink (`VideoSink`): each picture as it
/// goes to the encoder — drawn, fitted, faded — on the composition's timeline. A still shows the
/// picture on display at its instant: the last one starting at or before it, known once the next
/// one starts (or the track ends). One picture is held meanwhile, by a reference of its own.
// Not Sendable: used on the lane's queue only (its sink's), like the sink.
final class ComposedStillTap {
    let maker: StillMaker
    private let isCancelled: () -> Bool
    /// The stills not made yet, by instant, earliest last (so the next is `removeLast`).
    private var waiting: [PlannedStill]
    private var held: (picture: Frame, time: MediaTime)?

    init(_ maker: StillMaker, isCancelled: @escaping () -> Bool) {
        self.maker = maker
        self.isCancelled = isCancelled
        waiting = maker.plan.stills.sorted { $0.requested > $1.requested }
    }

    /// The picture that starts at `time` on the composition's timeline: the held one is on
    /// display at every instant before it.
    func take(_ picture: Frame, at time: MediaTime) throws(MediaError) {
        if let held { try show(held.picture, before: time) }
        held = (try picture.reference(), time)
    }

    /// The track ended: the last picture is on display at every instant left.
    func finish() throws(MediaError) {
        guard let held else { return }
        try show(held.picture, before: .positiveInfinity)
        self.held = nil
    }

    /// Hands `picture` to the maker for every still asked for before `end`, under the time the
    /// plan says it shows (the maker makes each still once).
    private func show(_ picture: Frame, before end: MediaTime) throws(MediaError) {
        while let next = waiting.last, next.requested < end {
            waiting.removeLast()
            try maker.take(picture, at: maker.plan.origin + next.shown, isCancelled: isCancelled)
        }
    }
}
