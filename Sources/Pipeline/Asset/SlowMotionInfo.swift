import Recipe

/// What an Android phone stored about a slow-motion recording: which ranges it meant to be played
/// slowed, the rate it captured at and how many SVC temporal layers the video has. Read from the
/// file by `SlowMotionReader`; `SlowMotionFlattening` works out how the phone plays it.
///
/// A Samsung slow-motion file plays its captured frames at 30 fps (so a player that knows nothing
/// of this shows all of it slowed); the phone's gallery plays it at normal speed except in the
/// segments, which it plays `speedDivisor` times slower than real time.
public struct SlowMotionInfo: Sendable, Equatable {
    /// The capture rate in the `smta` box (Samsung): 240 or 120 fps by recording mode, or the
    /// `srfr` rate for HEVC recordings.
    public var smtaCaptureRate: FrameRate?
    /// `com.android.capture.fps` (QuickTime `mdta` key that Android's recorder writes).
    public var androidCaptureRate: FrameRate?
    /// The number of SVC temporal layers of the video (the `smta` box's `saut` entry); 0 is
    /// stored as nil.
    public var temporalLayerCount: Int?
    /// The `saut` recording mode (12: 240 fps slow motion, 13: 120 fps, 21: HEVC, 7: super slow
    /// motion, …), for people; only 12, 13 and 21 give a capture rate.
    public var recordingMode: Int?
    /// The slowed segments of the SEF trailer's `SlowMotion_Data` entry, in time order, not
    /// overlapping. Empty when the file has no such entry.
    public var segments: [SlowMotionSegment]
    /// Names of the SEF trailer's other entries (`Super_SlowMotion_Data`, `Invalid_Data`, …), in
    /// trailer order: kept for `inspect`, not interpreted.
    /// At most 16, each escaped and cut to 64 characters (`SlowMotionSEF.listed`).
    public var otherSEFEntries: [String]
    /// How many other entries the trailer has beyond those listed.
    public var otherSEFEntriesLeftOut: Int

    public init(smtaCaptureRate: FrameRate? = nil, androidCaptureRate: FrameRate? = nil, temporalLayerCount: Int? = nil,
                recordingMode: Int? = nil, segments: [SlowMotionSegment] = [], otherSEFEntries: [String] = [],
                otherSEFEntriesLeftOut: Int = 0) {
        self.smtaCaptureRate = smtaCaptureRate
        self.androidCaptureRate = androidCaptureRate
        self.temporalLayerCount = temporalLayerCount
        self.recordingMode = recordingMode
        self.segments = segments
        self.otherSEFEntries = otherSEFEntries
        self.otherSEFEntriesLeftOut = otherSEFEntriesLeftOut
    }

    /// The rate the video was captured at: the `smta` box's when it has one (Samsung's own
    /// statement, the one media3 uses), else `com.android.capture.fps`.
    public var captureFrameRate: FrameRate? { smtaCaptureRate ?? androidCaptureRate }

    /// The rate a slow-motion file's timestamps play at (media3's `INPUT_FRAME_RATE`): Samsung
    /// stores every captured frame 1/30 s apart.
    public static let storedFrameRate = FrameRate(frames: 30)

    /// Nothing slow-motion was found.
    var isEmpty: Bool {
        smtaCaptureRate == nil && androidCaptureRate == nil && temporalLayerCount == nil && recordingMode == nil
            && segments.isEmpty && otherSEFEntries.isEmpty
    }
}

/// One range the phone meant to be slowed: `start..<end` on the file's timeline (as stored, where
/// frames are 1/30 s apart), played `speedDivisor` times slower than real time.
public struct SlowMotionSegment: Sendable, Hashable, CustomStringConvertible {
    public var start: MediaTime
    public var end: MediaTime
    /// 2, 4, 8 …: the SEF text stores a speed mode m, the divisor is 2^(m-1).
    public var speedDivisor: Int

    public init(start: MediaTime, end: MediaTime, speedDivisor: Int) {
        self.start = start; self.end = end; self.speedDivisor = speedDivisor
    }

    /// Milliseconds, as the SEF trailer stores them.
    public init(startMilliseconds: Int64, endMilliseconds: Int64, speedDivisor: Int) {
        self.init(start: MediaTime(value: startMilliseconds, timescale: 1000),
                  end: MediaTime(value: endMilliseconds, timescale: 1000), speedDivisor: speedDivisor)
    }

    public func contains(_ t: MediaTime) -> Bool { t >= start && t < end }

    public var description: String { "\(start.secondsDescription)–\(end.secondsDescription) ÷\(speedDivisor)" }
}
