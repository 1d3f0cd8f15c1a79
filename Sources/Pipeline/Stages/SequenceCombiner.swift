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
/// - before the first segment and after the last, up to the timeline's end (`end`), the same:
///   black slots or silence, in the format of the nearest segment's material.
/// Only the current source exists: the next is made (its decoder opened, its reader positioned)
/// when it is reached, and a finished one is let go, so a timeline of hundreds of segments holds
/// one decoder and one reader per lane at a time.
final class SequenceCombiner: SourceStage {
    /// Makes a source stage when it is reached.
    typealias Maker = (ExportSession.SourceInput) throws(MediaError) -> any SourceStage
    private var source: (any SourceStage)?
    private let rest: [ExportSession.SourceInput]
    /// The next of `rest` to make.
    private var nextInput = 0
    private let make: Maker
    /// Where the timeline ends, in the output's units (a slot on a constant-rate grid, a sample
    /// at the output rate); nil: where the last segment's material ends.
    private let end: Int64?
    /// Counters of the sources let go.
    private var finished: LaneStatistics
    private var lastFrame: (picture: Frame?, samples: Frame?)
    /// The latest source time of the sources let go.
    private var previousTime: MediaTime = .invalid
    private(set) var file: String?
    var lastTime: MediaTime {
        if let t = source?.lastTime, t.isNumeric { return t }
        return previousTime
    }
    /// Output sample rate (audio positions) — samples are counted at the source rate in between.
    private let outputRate: Int64
    /// Whether pictures are slots of a constant-rate grid (duration 1 each).
    private let constantRate: Bool
    /// Pictures only where segments are: a layer's gaps show what is below it, so nothing fills them.
    private let leavesGaps: Bool
    private var atSegmentStart = true
    private var filledEnd = false
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

    /// `first` is the first segment's source (made already: the sink is made from it); `rest`
    /// make the others, in order.
    /// `first`: the first source, made already; nil: `rest[0]` is made when it is first read
    /// (a composition's layer that shows later opens nothing until then).
    init(first: (any SourceStage)?, rest: [ExportSession.SourceInput], make: @escaping Maker,
         outputRate: Int32 = 0, constantRate: Bool = false, end: Int64? = nil, leavesGaps: Bool = false) {
        self.leavesGaps = leavesGaps
        source = first
        file = first?.file ?? rest.first?.file
        self.rest = rest
        self.make = make
        self.outputRate = Int64(outputRate)
        self.constantRate = constantRate
        self.end = end
        finished = LaneStatistics(track: first?.statistics.track ?? rest.first?.track.index ?? 0)
    }

    var statistics: LaneStatistics {
        var s = finished
        if let t = source?.statistics { s.addReading(of: t) }
        return s
    }

    /// The source being read; nil once every segment is done.
    private func currentSource() throws(MediaError) -> (any SourceStage)? {
        if let source { return source }
        guard nextInput < rest.count else { return nil }
        // The file let go's times are no place in the next one, which an error now names.
        previousTime = .invalid
        let input = rest[nextInput]
        nextInput += 1
        let made = try make(input)
        source = made
        file = made.file
        return made
    }

    /// The current source is done: its counters are kept, it goes (and its reader with it).
    private func letGo() {
        guard let s = source else { return }
        finished.addReading(of: s.statistics)
        if s.lastTime.isNumeric { previousTime = s.lastTime }
        source = nil
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
            guard let input = try currentSource() else {
                if try fillToEnd() { continue }
                return nil
            }
            guard let frame = try input.next() else {
                letGo()
                atSegmentStart = true
                continue
            }
            file = input.file
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
        // A slot past the timeline's last (its midpoint after the end) is nobody's.
        if constantRate, let end, pts >= end { return }
        lastFrame.picture = picture
        if lastPicture == nil, pts > 0, !leavesGaps {
            // The timeline starts with a gap (a first segment placed later, or a first source
            // without pictures): black from 0.
            lastPicture = (pts: -1, end: 0)
        }
        if let last = lastPicture {
            guard pts > last.pts else { return }
            if first && pts > last.end && !leavesGaps {
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
        lastFrame.samples = run
        if sampleEnd == nil, position > 0, outputRate > 0, rate > 0 {
            // Silence from 0 before the first sound on the timeline.
            sampleEnd = (0, 0, rate)
        }
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

    /// After the last segment: black slots or silence up to the timeline's end. True when some
    /// were queued.
    private func fillToEnd() throws(MediaError) -> Bool {
        guard !filledEnd, let end else { return false }
        filledEnd = true
        if let picture = lastFrame.picture, let last = lastPicture, constantRate, last.end < end, !leavesGaps {
            blackSlots = (try picture.black(), last.end, end)
            return true
        }
        if let run = lastFrame.samples, let e = sampleEnd, outputRate > 0, e.sourceRate > 0 {
            let expected = e.anchor + WideArithmetic.mulDiv(e.count, outputRate, e.sourceRate)
            let gap = WideArithmetic.mulDiv(end - expected, Int64(run.sampleRate), outputRate)
            if gap > 0 {
                silence = (run, gap, expected)
                return true
            }
        }
        return false
    }
}
