import Recipe

/// One piece of a `slow-motion: from-source` segment on the timeline: a stretch of the phone's
/// flattened timeline played at one speed (`SlowMotionSpan`). Its video source shows only the
/// frames the flattening keeps, each at the flattening's own time (`SlowMotionPicker`), so the
/// pieces of one segment join into the phone's timeline whatever piece a frame is read in.
struct SlowMotionPiece: Sendable, Hashable {
    let flattening: SlowMotionFlattening
    /// The file time the SEF times count from: the file's start.
    let origin: MediaTime
    /// Where flattened time 0 lands on the target timeline.
    let targetZero: MediaTime
    /// The SEF segment's divisor; 1 between segments.
    let speedDivisor: Int
    /// The first piece of its recipe segment shows the kept frame before its start from there (a
    /// lead-in); a later piece leaves that frame to the piece before, which shows it up to the
    /// next kept frame.
    let isFirst: Bool
    /// The last piece of its recipe segment ends its last frame at the segment's end; an earlier
    /// one lets it run to the next kept frame, wherever that is.
    let isLast: Bool

    /// Where the frame at file time `t` is shown on the target timeline.
    func targetTime(ofFileTime t: MediaTime) -> MediaTime {
        targetZero + flattening.outputTime(t - origin)
    }
}

/// Expands a `slow-motion: from-source` segment into the pieces of the phone's flattened
/// timeline (media3's SefSlowMotionFlattener): the file's stored frames are 1/30 s apart, so a
/// 240 fps capture plays 8 times faster than stored outside the SEF segments (real time) and
/// `8 ÷ divisor` times faster inside one. The pieces are the flattening's spans cut to the
/// segment's range, laid end to end from its target start.
///
/// A file with no slow-motion data, or with some that gives no segments and cannot be flattened
/// (no capture rate or layer count: a super slow motion file, whose slow part is in its frames,
/// or an Android file with only a capture rate), plays as stored, with a warning. Slow-motion
/// segments that cannot be flattened, and data that cannot be read, are errors.
enum SlowMotionExpansion {
    struct Result {
        let segments: [TimeSegment]
        let notices: [PlanNotice]
        /// The target end of the last piece.
        let end: MediaTime
        /// Per piece (index into `segments`), the `audio-stretch:` method its sound takes: every
        /// piece when muted, else the pieces not at the stored speed. The file's sound lies on the
        /// stored timeline with its pictures (docs/slow-motion.md), so each piece's is stretched
        /// to the piece's speed like any scaled segment's.
        let audioStretches: [Int: AudioStretch]
    }

    /// The pieces of segment `n`'s range (snapped, on the file's timeline), from `targetStart`.
    /// `hasAudio`: the plan has a sound track, which follows the pieces, each stretched by
    /// `audioStretch` to its speed (`mute`: every piece silent, those at the stored speed too).
    /// `sourceIndex`: which of the plan's files `asset` is (the pieces' `TimeSegment.source`).
    static func expand(_ range: TimeRange, at targetStart: MediaTime, segment n: Int, asset: Asset, sourceIndex: Int = 0, source src: String,
                       hasAudio: Bool, audioStretch: AudioStretch) throws(MediaError) -> Result {
        func refuse(_ field: SegmentField.Name, _ message: String) -> MediaError {
            MediaError(.invalidSettings, "segment \(n): \(message)", file: src, segment: SegmentField(n, field))
        }
        func asStored(_ why: String) throws(MediaError) -> Result {
            let segment = TimeSegment(source: sourceIndex, track: nil, sourceRange: range, targetStart: targetStart, scale: .identity)
            let notice = PlanNotice(.ignored, "composition.segment.\(n).slow-motion",
                                    "segment \(n) asks for 'slow-motion: from-source', but \(why): it plays as stored")
            return Result(segments: [segment], notices: [notice], end: try segment.targetEnd(), audioStretches: [:])
        }
        let flattening: SlowMotionFlattening
        do throws(MediaError) {
            guard let info = try asset.slowMotion() else { return try asStored("the file holds no slow-motion data") }
            do throws(MediaError) {
                flattening = try SlowMotionFlattening(info, file: src)
            } catch {
                guard info.segments.isEmpty else { throw error }
                let prefix = "cannot play its slow motion as the phone does: "
                let why = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
                return try asStored("the file has no slow-motion segments and nothing to pick its frames by (\(why))")
            }
        } catch {
            throw MediaError(error.kind, "segment \(n): \(error.message)", file: src, segment: SegmentField(n, .slowMotion))
        }
        let origin = asset.startTime
        let targetZero = targetStart - flattening.outputTime(range.start - origin)
        var cut: [(range: TimeRange, span: SlowMotionSpan)] = []
        for span in flattening.spans {
            let start = MediaTime.max(span.sourceStart + origin, range.start)
            let end = MediaTime.min(span.sourceEnd.map { $0 + origin } ?? .positiveInfinity, range.end)
            if start < end { cut.append((TimeRange(start: start, end: end), span)) }
        }
        var segments: [TimeSegment] = []
        var stretches: [Int: AudioStretch] = [:]
        var at = targetStart
        for (i, c) in cut.enumerated() {
            guard let scale = TimeScale(c.span.scale.numerator, c.span.scale.denominator) else {
                throw refuse(.slowMotion, "its slow motion has a speed that is not valid (\(c.span.scale))")
            }
            // Recipes keep their own speeds within 1/32…32; the file's can go beyond what the
            // stretcher takes (a ÷128 segment of a 30 fps capture): said here, not mid-run.
            if hasAudio && audioStretch != .mute && (scale.num > TimeStretchScale.limit * scale.den || scale.den > TimeStretchScale.limit * scale.num) {
                throw refuse(.audioStretch, "its slow motion plays \(c.range.start.secondsDescription)–\(c.range.end.secondsDescription) of the file at speed \(scale.inverse), beyond what its sound can be stretched to (1/\(TimeStretchScale.limit)…\(TimeStretchScale.limit)): say 'audio-stretch: mute', or leave the sound out of the output")
            }
            let piece = SlowMotionPiece(flattening: flattening, origin: origin, targetZero: targetZero, speedDivisor: c.span.speedDivisor,
                                        isFirst: i == 0, isLast: i == cut.count - 1)
            let segment = TimeSegment(source: sourceIndex, track: nil, sourceRange: c.range, targetStart: at, scale: scale, slowMotion: piece)
            // End to end: each piece starts exactly where the one before ends.
            at = try segment.targetEnd()
            if hasAudio && (audioStretch == .mute || !scale.isIdentity) { stretches[segments.count] = audioStretch }
            segments.append(segment)
        }
        return Result(segments: segments, notices: [], end: at, audioStretches: stretches)
    }
}
