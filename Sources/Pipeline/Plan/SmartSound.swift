import Recipe

/// How the sound of a smart-rendered output is made (`SmartSoundPass` plans it,
/// `SmartSoundSequence` runs it): the source's AAC frames copied where whole frames lie inside a
/// kept range, and the few frames at each cut encoded again. Every place is counted in samples on
/// the source's sample clock (the output's rate is the source's).
///
/// The output's frames follow one another without a gap: an encoded stretch holds a whole number
/// of frames, so each copied run lands within half a frame of where a full encode puts its sound
/// (the stretch at a cut is cut or padded there, by at most half a frame).
public struct SmartSound: Sendable {
    /// Samples of one source file's sound, decoded for an encoded stretch.
    struct Piece: Sendable {
        /// Which of the plan's sources (`ConversionPlan.sources`) and its track.
        let source: Int
        let track: Int
        /// Its first sample and how many (the source's sample clock).
        let from: Int64
        let count: Int64
    }

    /// Frames encoded again: from the cut (or the output's start) to the next copied frame.
    struct Stretch: Sendable {
        /// The samples it shows, in output order.
        let pieces: [Piece]
        /// The frame the copied run after it shows itself: encoded too (its packet not kept), so
        /// that the stretch's last kept frame carries the overlap the copied frame is decoded with.
        let overlap: Piece?
        /// It follows copied frames: the encoder's priming frame (which the copied frame before
        /// stands for) is not kept. The output's first stretch keeps it (the edit list hides it).
        let afterCopy: Bool

        /// What is given to the encoder before the first piece and after the overlap frame (its
        /// packets not kept): the source's sound just before and after, so that the kept frames
        /// are coded as in a full encode (an encoder that starts from silence codes its first
        /// frames with short windows, whose overlap does not cancel a copied frame's).
        static let lead: Int64 = 2 * SmartSound.frame
        var leadIn: Piece? {
            pieces.first.map { Piece(source: $0.source, track: $0.track, from: $0.from - Self.lead, count: Self.lead) }
        }
        var leadOut: Piece? {
            overlap.map { Piece(source: $0.source, track: $0.track, from: $0.from + $0.count, count: SmartSound.frame) }
        }

        var samples: Int64 { pieces.reduce(0) { $0 + $1.count } }
    }

    /// Source frames copied as they are.
    struct Copy: Sendable {
        let source: Int
        let track: Int
        /// The first frame's time (source samples) and how many frames.
        let first: Int64
        let frames: Int
        /// Where its first frame lands on the output (samples), and where a full encode puts it.
        let at: Int64
        let ideal: Int64
    }

    enum Run: Sendable {
        case encoded(Stretch)
        case copied(Copy)
    }

    let runs: [Run]
    /// The sound's rate and its AAC frame (1024 samples).
    public let sampleRate: Int
    static let frame: Int64 = 1024
    /// The output's sound track (its lane).
    public let lane: Int

    public var copiedFrames: Int {
        runs.reduce(0) { if case .copied(let c) = $1 { return $0 + c.frames } else { return $0 } }
    }

    /// Frames encoded per stretch, in output order (the last one's partial frame counted whole).
    public var encodedFrames: [Int] {
        runs.compactMap { run -> Int? in
            guard case .encoded(let s) = run else { return nil }
            return Int((s.samples + Self.frame - 1) / Self.frame)
        }
    }

    /// Per copied run: how far (samples) its sound lies from where a full encode puts it.
    public var offsets: [Int64] {
        runs.compactMap { if case .copied(let c) = $0 { return c.at - c.ideal } else { return nil } }
    }
}
