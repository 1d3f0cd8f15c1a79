import Recipe

/// N source stages → 1: each on its own segment of the output's timeline, played one after the
/// other (AVMutableComposition's insertTimeRange, end to end). The sources already stamp their
/// frames on the output's timeline; this joins them so the sink sees one continuous stream:
/// - pictures: one whose pts is not after the last one's is dropped (two segments cannot show
///   the same slot); a gap between segments is filled with black — on a constant-rate grid one
///   black slot per missing slot, with source timing one black picture lasting the gap;
/// - samples: at each segment's first run, its position (exact, from the mapping) is compared
///   with where the samples so far end: a gap is filled with silence, an overlap is cut from the
///   new run. So every segment starts on the sample the rational sum of the timeline says, and
///   nothing drifts however many segments there are.
/// Only the current source is pulled; the next is opened for reading only when it is reached
/// (its reader output holds at most one GOP before its start meanwhile).
final class SequenceCombiner: FrameStage {
    private let inputs: [any SourceStage]
    /// Output sample rate (audio positions) — samples are counted at the source rate in between.
    private let outputRate: Int64
    /// Whether pictures are slots of a constant-rate grid (duration 1 each).
    private let constantRate: Bool
    private var current = 0
    private var atSegmentStart = true
    /// Video: the last picture handed out (pts, end).
    private var lastPicture: (pts: Int64, end: Int64)?
    /// Black slots still to hand out before the queued frames (made one at a time: a long gap
    /// costs no memory).
    private var blackSlots: (picture: Frame, next: Int64, end: Int64)?
    /// Audio: the output position of a run handed out and the source samples handed out since,
    /// at the source rate: the samples so far end at anchor + count·outputRate/sourceRate.
    private var sampleEnd: (anchor: Int64, count: Int64, sourceRate: Int64)?
    /// Silence still to hand out (source rate samples, in runs of at most `silenceRun`), at its
    /// output position.
    private var silence: (template: Frame, samples: Int64, position: Int64)?
    private static let silenceRun: Int64 = 4096
    private var queued: [TimedFrame] = []

    init(inputs: [any SourceStage], outputRate: Int32 = 0, constantRate: Bool = false) {
        self.inputs = inputs
        self.outputRate = Int64(outputRate)
        self.constantRate = constantRate
    }

    func next() throws(MediaError) -> TimedFrame? {
        while true {
            if let black = blackSlots {
                blackSlots = black.next + 1 < black.end ? (black.picture, black.next + 1, black.end) : nil
                return .picture(black.picture, pts: black.next, duration: 1)
            }
            if let gap = silence {
                let n = min(gap.samples, Self.silenceRun)
                let after = gap.position + WideArithmetic.mulDiv(n, outputRate, Int64(gap.template.sampleRate))
                silence = gap.samples > n ? (gap.template, gap.samples - n, after) : nil
                return .samples(try gap.template.silence(samples: Int32(n)), position: gap.position)
            }
            if !queued.isEmpty { return queued.removeFirst() }
            guard current < inputs.count else { return nil }
            guard let frame = try inputs[current].next() else {
                current += 1
                atSegmentStart = true
                continue
            }
            let first = atSegmentStart
            atSegmentStart = false
            switch frame {
            case .picture(let picture, let pts, let duration):
                try joinPicture(picture, pts: pts, duration: duration, first: first)
            case .samples(let run, let position):
                try joinSamples(run, position: position, first: first)
            }
        }
    }

    private func joinPicture(_ picture: Frame, pts: Int64, duration: Int64, first: Bool) throws(MediaError) {
        if let last = lastPicture {
            guard pts > last.pts else { return }
            if first && pts > last.end {
                let black = try picture.black()
                if constantRate {
                    blackSlots = (black, last.end, pts)
                } else {
                    queued.append(.picture(black, pts: last.end, duration: pts - last.end))
                }
            }
        }
        let (sum, overflow) = pts.addingReportingOverflow(max(duration, 1))
        let end = overflow ? Int64.max : sum
        lastPicture = (pts, end)
        queued.append(.picture(picture, pts: pts, duration: duration))
    }

    private func joinSamples(_ run: Frame, position: Int64, first: Bool) throws(MediaError) {
        let rate = Int64(run.sampleRate)
        guard let end = sampleEnd, first, outputRate > 0, rate > 0 else {
            if let end = sampleEnd {
                sampleEnd = (end.anchor, end.count + Int64(run.samples), end.sourceRate)
            } else {
                sampleEnd = (position, Int64(run.samples), rate)
            }
            queued.append(.samples(run, position: position))
            return
        }
        // Where the samples so far end, at the output rate (exact when the rates agree).
        let expected = end.anchor + WideArithmetic.mulDiv(end.count, outputRate, end.sourceRate)
        var frame = run, gap: Int64 = 0
        if position > expected {
            gap = WideArithmetic.mulDiv(position - expected, rate, outputRate)
            if gap > 0 { silence = (run, gap, expected) }
        } else if position < expected {
            let overlap = WideArithmetic.mulDiv(expected - position, rate, outputRate)
            // A run wholly before where the samples so far end adds nothing; the next one decides.
            guard overlap < Int64(run.samples) else { atSegmentStart = true; return }
            if overlap > 0 { frame = try run.samples(overlap..<Int64(run.samples)) }
        }
        sampleEnd = (expected, gap + Int64(frame.samples), rate)
        queued.append(.samples(frame, position: max(position, expected)))
    }
}
