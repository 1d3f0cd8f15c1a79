import Recipe

/// One compressed video frame of a slow-motion source, as the reader gives it: in decode order,
/// with its presentation time and SVC temporal layer (`SlowMotionLayer`; nil when the sample
/// does not say).
public struct SlowMotionFrame: Sendable, Equatable {
    public var pts: MediaTime
    public var temporalLayer: Int?
    public init(pts: MediaTime, temporalLayer: Int?) { self.pts = pts; self.temporalLayer = temporalLayer }
}

/// What the renderer does with one frame of the source.
public enum SlowMotionFrameChoice: Sendable, Equatable {
    /// Decode it and show it at this time of the flattened timeline.
    case keep(MediaTime)
    /// Decode it but do not show it: a frame kept for a segment may refer to it.
    case decodeOnly
    /// Skip its packet without decoding it.
    case drop
}

/// A stretch of the source played at one speed: `sourceStart..<sourceEnd` (nil: to the end) lands
/// at `targetStart`, every duration multiplied by `scale` (target ÷ source; 1/8 for a 240 fps
/// capture's normal-speed part, 1/4 in a ÷2 segment, 1 in a ÷8 one).
public struct SlowMotionSpan: Sendable, Equatable {
    public var sourceStart: MediaTime
    public var sourceEnd: MediaTime?
    public var targetStart: MediaTime
    public var scale: (numerator: Int64, denominator: Int64)
    /// The SEF segment's divisor, 1 outside segments.
    public var speedDivisor: Int

    public init(sourceStart: MediaTime, sourceEnd: MediaTime?, targetStart: MediaTime, scale: (numerator: Int64, denominator: Int64), speedDivisor: Int) {
        self.sourceStart = sourceStart; self.sourceEnd = sourceEnd; self.targetStart = targetStart
        self.scale = scale; self.speedDivisor = speedDivisor
    }

    public static func == (a: SlowMotionSpan, b: SlowMotionSpan) -> Bool {
        a.sourceStart == b.sourceStart && a.sourceEnd == b.sourceEnd && a.targetStart == b.targetStart
            && a.scale == b.scale && a.speedDivisor == b.speedDivisor
    }
}

/// A Samsung slow-motion recording played as the phone plays it, after media3's
/// SefSlowMotionFlattener: the file stores every captured frame 1/30 s apart; outside the SEF
/// segments the flattened video plays in real time, keeping only the temporal layers that make
/// 30 fps (240 fps capture, 4 layers: layer 0 only); inside a ÷d segment it plays d times slower,
/// keeping d times as many frames (more layers) while there are layers left.
///
/// Unlike media3, which walks the frames in decode order and so places a reordered frame by its
/// neighbour's time, every choice here depends on the frame's own presentation time: the output
/// times rise with the source times, and a segment shows every frame whose time is in it.
/// Frames decoded amid a segment's kept frames that are not shown, but could be their
/// references, are decoded and not shown.
public struct SlowMotionFlattening: Sendable, Hashable {
    public struct Segment: Sendable, Hashable {
        public let range: SlowMotionSegment
        /// The highest temporal layer kept in it.
        public let maxLayer: Int
    }

    public let file: String
    public let captureRate: FrameRate
    public let layerCount: Int
    /// The highest temporal layer kept outside the segments.
    public let normalMaxLayer: Int
    public let segments: [Segment]
    /// Per segment, how much the segments before it add to the timeline (length × (d − 1)).
    let stretchBefore: [MediaTime]

    /// Throws `.unsupported` naming the file when the stored data does not allow it: no capture
    /// rate or layer count, a capture rate that is not 30 fps times a power of two, fewer layers
    /// than the rate needs, a divisor that is not a power of two or is beyond ÷128, or a segment
    /// time that is not a number.
    public init(_ info: SlowMotionInfo, file: String) throws(MediaError) {
        func refuse(_ why: String) -> MediaError { MediaError(.unsupported, "cannot play its slow motion as the phone does: \(why)", file: file) }
        guard let rate = info.captureFrameRate else { throw refuse("it has no capture rate (no smta box with one, no \(SlowMotionReader.captureRateKey))") }
        guard let layers = info.temporalLayerCount, layers > 0 else { throw refuse("it has no SVC temporal layer count (smta box)") }
        // temporal_id has 3 bits.
        guard layers <= 8 else { throw refuse("it says it has \(layers) SVC temporal layers (at most 8 exist)") }
        let stored = Int(SlowMotionInfo.storedFrameRate.frames)
        guard rate.seconds == 1, rate.frames % Int32(stored) == 0, let stepsDown = Self.log2(Int(rate.frames) / stored) else {
            throw refuse("its capture rate \(rate) fps is not \(stored) fps times a power of two")
        }
        guard stepsDown <= layers - 1 else {
            throw refuse("\(rate) fps needs \(stepsDown + 1) temporal layers to play at \(stored) fps; it has \(layers)")
        }
        self.file = file
        captureRate = rate
        layerCount = layers
        normalMaxLayer = layers - 1 - stepsDown
        var segments: [Segment] = []
        // The slowest speed mode the SEF text can say: the public `SlowMotionInfo` can carry any
        // divisor, and beyond this the stretch sums and the spans' scales would overflow.
        let slowest = 1 << (SlowMotionSEF.maxSpeedMode - 1)
        for s in info.segments {
            guard s.start.isNumeric, s.end.isNumeric else { throw refuse("segment \(s) has a time that is not a number") }
            guard let up = Self.log2(s.speedDivisor) else { throw refuse("segment \(s) has a divisor that is not a power of two") }
            guard s.speedDivisor <= slowest else {
                throw refuse("segment \(s) is slower than ÷\(slowest), the slowest speed mode \(SlowMotionSEF.maxSpeedMode) gives")
            }
            // More layers than the file has: every frame is kept and the segment plays slower
            // than the frames alone would make it (media3 does the same).
            segments.append(Segment(range: s, maxLayer: min(normalMaxLayer + up, layers - 1)))
        }
        segments.sort { $0.range.start < $1.range.start }
        for (a, b) in zip(segments, segments.dropFirst()) where b.range.start < a.range.end {
            throw refuse("segments \(a.range) and \(b.range) overlap")
        }
        for s in segments where !(s.range.start < s.range.end) { throw refuse("segment \(s.range) does not end after it starts") }
        self.segments = segments
        var added = MediaTime.zero
        var stretchBefore: [MediaTime] = []
        for s in segments {
            stretchBefore.append(added)
            added = added + (s.range.end - s.range.start) * Int64(s.range.speedDivisor - 1)
        }
        self.stretchBefore = stretchBefore
    }

    /// The frames' fates, in their (decode) order.
    public func choices(_ frames: [SlowMotionFrame]) throws(MediaError) -> [SlowMotionFrameChoice] {
        var choices: [SlowMotionFrameChoice] = []
        choices.reserveCapacity(frames.count)
        // Per segment, the first and last decode positions of its shown frames.
        var shownSpan: [Int: (first: Int, last: Int)] = [:]
        for (i, f) in frames.enumerated() {
            guard let layer = f.temporalLayer else {
                throw MediaError(.unsupported, "a frame carries no SVC temporal layer (no prefix NAL unit): its frames cannot be picked by layer", file: file, time: f.pts)
            }
            let kept = keeps(f.pts, layer: layer)
            choices.append(kept ? .keep(outputTime(f.pts)) : .drop)
            if kept, let s = segmentIndex(containing: f.pts) {
                shownSpan[s] = (shownSpan[s]?.first ?? i, i)
            }
        }
        // Reordered frames decoded between a segment's shown frames may be their references.
        for (s, span) in shownSpan where span.last > span.first + 1 {
            for i in span.first + 1..<span.last where choices[i] == .drop && (frames[i].temporalLayer ?? 0) <= segments[s].maxLayer {
                choices[i] = .decodeOnly
            }
        }
        return choices
    }

    /// Whether a frame at `pts` of temporal layer `layer` is shown.
    public func keeps(_ pts: MediaTime, layer: Int) -> Bool {
        if let s = segmentIndex(containing: pts) { return layer <= segments[s].maxLayer }
        return layer <= normalMaxLayer || isReferencedByNextSegment(pts, layer: layer)
    }

    /// Whether a frame must be decoded, for a renderer that decides packet by packet without
    /// seeing the frames decoded after it: shown frames, and frames within `reorderWindow` of a
    /// segment's start or end whose layer that segment keeps (one of its shown frames, decoded
    /// later, may refer to them). A superset of what `choices` decodes when `reorderWindow` covers
    /// the stream's reordering (8 frames, 8/30 s, for Samsung's groups of 8).
    public func decodes(_ pts: MediaTime, layer: Int, reorderWindow: MediaTime) -> Bool {
        if keeps(pts, layer: layer) { return true }
        // Every segment that reaches into the window, not only the ones around pts: short or
        // adjacent segments put several edges within it.
        var i = firstSegment(endingAfter: pts - reorderWindow)
        while i < segments.count, segments[i].range.start < pts + reorderWindow {
            let s = segments[i]
            i += 1
            guard layer <= s.maxLayer else { continue }
            for edge in [s.range.start, s.range.end] where MediaTime.max(pts - edge, edge - pts) < reorderWindow { return true }
        }
        return false
    }

    /// The index of the first segment that ends after `t` (segments.count when none does); the
    /// segments' ends rise with their starts, as they do not overlap.
    func firstSegment(endingAfter t: MediaTime) -> Int {
        var (low, high) = (0, segments.count)
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].range.end > t { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The index of the first segment that starts after `pts` (segments.count when none does);
    /// segments are sorted and do not overlap, so a binary search finds it.
    func firstSegment(startingAfter pts: MediaTime) -> Int {
        var (low, high) = (0, segments.count)
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].range.start > pts { high = mid } else { low = mid + 1 }
        }
        return low
    }

    func segmentIndex(containing pts: MediaTime) -> Int? {
        let i = firstSegment(startingAfter: pts) - 1
        return i >= 0 && segments[i].range.contains(pts) ? i : nil
    }

    /// media3's rule for frames just before a segment: the segment's extra layers refer back to
    /// lower-layer frames before its start, which are kept (and shown) for the segment to
    /// decode. The nearer the segment, the more layers are kept: a frame n frames (at 30 fps)
    /// before it is kept when its layer is at most the highest i for which
    /// n ≤ 2^(top−i) − 2^(top−segment's max layer).
    func isReferencedByNextSegment(_ pts: MediaTime, layer: Int) -> Bool {
        let n = firstSegment(startingAfter: pts)
        guard n < segments.count else { return false }
        let next = segments[n]
        guard layer < next.maxLayer,
              let frames = MediaTime.count(of: SlowMotionInfo.storedFrameRate.frameDuration, from: pts, to: next.range.start, rounding: .down)
        else { return false }
        let top = layerCount - 1
        for i in 1..<max(next.maxLayer, 1) {
            guard frames <= Int64(1 << (top - i)) - Int64(1 << (top - next.maxLayer)) else { return false }
            if layer <= i { return true }
        }
        return false
    }

    /// Where a source time lands on the flattened timeline: real time (the stored time ×
    /// 30/capture rate), each segment before it stretched by its divisor.
    public func outputTime(_ pts: MediaTime) -> MediaTime {
        var t = pts
        let i = firstSegment(startingAfter: pts) - 1
        if i >= 0 {
            let s = segments[i].range
            t = t + stretchBefore[i] + (MediaTime.min(pts, s.end) - s.start) * Int64(s.speedDivisor - 1)
        }
        return Self.scaled(t, Int64(SlowMotionInfo.storedFrameRate.frames) * Int64(captureRate.seconds), Int64(captureRate.frames))
    }

    /// The flattened timeline as stretches of one speed each, from source time 0 (earlier times
    /// follow the first stretch): the time mapping a renderer applies.
    public var spans: [SlowMotionSpan] {
        var spans: [SlowMotionSpan] = []
        func add(_ start: MediaTime, _ end: MediaTime?, divisor: Int) {
            if let end, end <= start { return }
            let g = Self.gcd(Int64(divisor) * Int64(SlowMotionInfo.storedFrameRate.frames) * Int64(captureRate.seconds), Int64(captureRate.frames))
            let num = Int64(divisor) * Int64(SlowMotionInfo.storedFrameRate.frames) * Int64(captureRate.seconds) / g
            spans.append(SlowMotionSpan(sourceStart: start, sourceEnd: end, targetStart: outputTime(start),
                                        scale: (num, Int64(captureRate.frames) / g), speedDivisor: divisor))
        }
        var cursor = MediaTime.zero
        for s in segments where s.range.end > cursor {
            add(cursor, s.range.start, divisor: 1)
            add(max(cursor, s.range.start), s.range.end, divisor: s.range.speedDivisor)
            cursor = s.range.end
        }
        add(cursor, nil, divisor: 1)
        return spans
    }

    /// `t × num/den`, exact when the timescale can take it, else rounded to the nearest tick.
    static func scaled(_ t: MediaTime, _ num: Int64, _ den: Int64) -> MediaTime {
        guard t.isNumeric, num > 0, den > 0 else { return t }
        let g = gcd(num, den)
        let (n, d) = (num / g, den / g)
        if Int64(t.timescale) * d <= Int64(Int32.max), let v = WideArithmetic.checkedMulDiv(t.value, n, 1) {
            return MediaTime(value: v, timescale: Int32(Int64(t.timescale) * d))
        }
        return MediaTime(value: WideArithmetic.mulDiv(t.value, n, d), timescale: t.timescale)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a.magnitude, b.magnitude)
        while y != 0 { (x, y) = (y, x % y) }
        return Int64(clamping: max(x, 1))
    }

    /// k when n = 2^k (n ≥ 1), else nil.
    static func log2(_ n: Int) -> Int? {
        guard n > 0, n & (n - 1) == 0 else { return nil }
        return n.trailingZeroBitCount
    }
}
