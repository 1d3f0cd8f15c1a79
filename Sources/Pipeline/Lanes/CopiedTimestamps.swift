import Recipe

/// Restamps a copied track's samples so that FFmpeg's muxers take them, without moving any
/// sample's presentation time: every pts keeps its distance to every other pts of every track.
///
/// A muxer wants, per track, decode times (dts) that increase and never pass the presentation
/// time (pts). Sources break that in two ways this fixes:
/// - Negative composition offsets: Apple's HEVC and MV-HEVC `.mov` files store B-frames shown
///   before they are decoded; FFmpeg 5.1 learns the needed shift only from the ctts entries
///   before the last two, so short clips read back with pts < dts. Every dts of the track moves
///   earlier by the same amount (`decodeLead`, what a `cslg` box states), learnt from the first
///   samples: order and spacing of the decode times stay, no pts moves.
/// - A dts that repeats or steps back, or is missing: it becomes the smallest valid one. Where
///   that passes the sample's pts (two samples at one time), the pts moves by the least the
///   muxer takes, a few ticks of the time base, never by half a sample or more.
/// A sample without a pts (AVI, some MPEG streams) is shown at its decode time, as FFmpeg's
/// muxers do. A sample that no valid dts fits without moving it that far (shown well before the
/// sample ahead of it can be decoded) is an error, never a silent change.
/// Negative results are fine: MP4/MOV hide them with an edit list (lead-in, priming); Matroska
/// moves the whole file later, every track alike, so that nothing is before 0.
struct CopiedTimestamps {
    /// The session's start in the track's time base, subtracted from every stamp: the same
    /// instant for every track, so tracks keep their offsets. A join of copied segments moves
    /// it at each segment (its source start less its place on the timeline).
    var origin: Int64
    let timeBase: TimeBase
    /// MP4/MOV need each dts above the last; Matroska takes equal ones.
    let strictlyIncreasing: Bool
    /// How much earlier every dts is put.
    private(set) var decodeLead: Int64 = 0
    private var lastDTS: Int64?
    private var lastDuration: Int64 = 0

    /// Samples looked at before the first is written, to learn `decodeLead`. Reordering spans at
    /// most 16 frames (H.264/HEVC), so this sees the deepest B-frame of the first GOPs.
    static let lookahead = 64

    init(origin: Int64, timeBase: TimeBase, strictlyIncreasing: Bool) {
        self.origin = origin
        self.timeBase = timeBase
        self.strictlyIncreasing = strictlyIncreasing
    }

    /// Learns `decodeLead` from the first samples (before any is restamped). Samples at the start
    /// that state no dts (Matroska with B-frames: FFmpeg knows a dts only after the reorder
    /// delay) get one counted back from the first stated dts, a sample's duration each.
    mutating func learn(from samples: [Packet]) {
        if let known = samples.firstIndex(where: { $0.dts != FFmpeg.noPTS }) {
            for i in stride(from: known - 1, through: 0, by: -1) {
                let (dts, overflow) = samples[i + 1].dts.subtractingReportingOverflow(max(samples[i].duration, 1))
                if overflow { break }
                samples[i].dts = dts
            }
        }
        for p in samples where p.pts != FFmpeg.noPTS && p.dts != FFmpeg.noPTS {
            let (lead, overflow) = p.dts.subtractingReportingOverflow(p.pts)
            if !overflow && lead > decodeLead { decodeLead = lead }
        }
    }

    /// Sets the packet's pts and dts to their output values (on the output's timeline, in the
    /// track's time base).
    mutating func restamp(_ packet: Packet) throws(MediaError) {
        var pts: Int64? = nil
        if packet.pts != FFmpeg.noPTS { pts = try shifted(packet.pts, by: origin) }
        var dts: Int64
        if packet.dts != FFmpeg.noPTS {
            dts = try shifted(try shifted(packet.dts, by: origin), by: decodeLead)
        } else if let lastDTS {
            // What FFmpeg's own copy guesses: the previous sample's end.
            let (end, overflow) = lastDTS.addingReportingOverflow(max(lastDuration, 1))
            if overflow {
                throw MediaError(MediaTimeOverflow(saturated: .positiveInfinity,
                                                   expression: "timestamp \(lastDTS) + \(lastDuration) in time base \(timeBase.num)/\(timeBase.den)"))
            }
            dts = end
        } else {
            dts = pts ?? 0
        }
        if let pts, dts > pts { dts = pts }
        if let lastDTS {
            let (floor, overflow) = lastDTS.addingReportingOverflow(strictlyIncreasing ? 1 : 0)
            if overflow { throw outOfOrder }
            if dts < floor { dts = floor }
        }
        if let p = pts, p < dts {
            // Two samples at one time (stills, Matroska's millisecond rounding), or a step back of
            // a few ticks: the muxer needs this one a little later. It moves by the least it
            // takes, never by half a sample or more (it would take another sample's place).
            let (move, overflow) = dts.subtractingReportingOverflow(p)
            guard !overflow, move <= max((max(packet.duration, 1) - 1) / 2, 1) else { throw outOfOrder }
            pts = dts
        }
        // A sample stated without a length (FFmpeg's MP4 reader states none where the file has
        // composition offsets) lasts what the one before it did: the muxer counts every other
        // sample's length from the next one's decode time, but the last one's from this alone —
        // without it the copy's last picture had no length, the track ended a picture early, and
        // an edit list ending at that picture's start hid it from every player.
        if packet.duration <= 0, let lastDTS, dts > lastDTS { packet.duration = dts - lastDTS }
        packet.dts = dts
        packet.pts = pts ?? dts
        lastDTS = dts
        lastDuration = packet.duration
    }

    private func shifted(_ ts: Int64, by amount: Int64) throws(MediaError) -> Int64 {
        let (r, overflow) = ts.subtractingReportingOverflow(amount)
        if overflow {
            throw MediaError(MediaTimeOverflow(saturated: amount > 0 ? .negativeInfinity : .positiveInfinity,
                                               expression: "timestamp \(ts) − \(amount) in time base \(timeBase.num)/\(timeBase.den)"))
        }
        return r
    }

    /// The time the lane adds is the sample's own (on the source's timeline).
    private var outOfOrder: MediaError {
        MediaError(.processing, "its timestamps cannot be copied as they are: this sample is shown before the sample "
                   + "ahead of it can be decoded; reencode this track instead")
    }
}
