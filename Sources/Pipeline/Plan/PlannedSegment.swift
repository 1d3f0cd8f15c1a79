import Recipe

/// One segment of a composed plan as `plan` shows it: the source range it reads (on the file's
/// timeline) and where, how long, it plays on the output's.
public struct PlannedSegment: Sendable, Hashable {
    public let sourceRange: TimeRange
    public let targetStart: MediaTime
    public let targetDuration: MediaTime
    /// The speed it plays at (`1/8`), as the recipe writes speeds.
    public let speed: String
    /// The file it reads.
    public let file: String
    /// The stream index of the file's track it reads when that is not the file's first of its
    /// kind (a segment's `track:`); nil: the first.
    public let track: Int?
    /// The output frames (on the output's frame grid) and samples (at its sample rate) it
    /// contributes: counted from absolute positions, so they add up to the output's; nil where
    /// the output has no such track or no constant frame rate.
    public let frames: Int64?
    public let samples: Int64?
    /// A piece of a `slow-motion: from-source` segment: the divisor the phone stored for it (1
    /// between its slowed segments, where it plays in real time); nil for any other segment.
    public let slowMotionDivisor: Int?
    /// A scaled segment with sound: the `audio-stretch:` method its sound takes (nil: unscaled,
    /// or no sound).
    public let audioStretch: AudioStretch?
    /// A segment of the composition's `mix:` input j (1…); nil for the video and audio lists'.
    public let mixInput: Int?
    /// A segment of the composition's `layers:` j (1…); nil for the other lists'.
    public let layer: Int?
    /// When the pictures are drawn as layers, the plan's video layer it is drawn in
    /// (`ConversionPlan.videoLayers`); nil otherwise and for sound.
    public let videoLayer: Int?
}

extension ConversionPlan {
    /// A composition's segments, in order; nil for a plain conversion (its range is `timeRange`).
    public var composedSegments: [PlannedSegment]? {
        guard isComposed else { return nil }
        let frameDuration = lanes.lazy.compactMap { lane -> MediaTime? in
            if case .video(let v) = lane.kind { return v.frameRate?.frameDuration } else { return nil }
        }.first
        let sampleRate = lanes.lazy.compactMap { lane -> Int32? in
            if case .audio(let a) = lane.kind { return Int32(a.sampleRate) } else { return nil }
        }.first
        // A mix input's segments are the audio lane's only: no frames of their own (and one
        // from a file without sound is still its mix input's: silence there); a layer's are
        // the video lane's only, drawn over the video track's: no frames or samples of their own.
        return timeline.segments.enumerated().map { i, s in
            let layer = self.layer(of: i)
            let video = segmentLists.indices.contains(i) ? segmentLists[i] == .video : true
            return PlannedSegment(sourceRange: s.sourceRange, targetStart: s.targetStart, targetDuration: s.targetDuration,
                                  speed: s.scale.inverse.description, file: sources[s.source].path, track: namedTracks[i],
                                  frames: layer > 0 ? nil : frameDuration.flatMap { timeline.slots(ofSegment: i, frameDuration: $0) },
                                  samples: layer > 0 && video ? nil : sampleRate.flatMap { TimeMapping.sampleCount(in: s.targetRange, rate: $0) },
                                  slowMotionDivisor: s.slowMotion?.speedDivisor, audioStretch: audioStretches[i],
                                  mixInput: layer > 0 && !video ? layer : nil, layer: layer > 0 && video ? layer : nil,
                                  videoLayer: video && !videoLayers.isEmpty ? videoLayer(of: i) : nil)
        }
    }
}
