/// How an encoder runs two-pass rate control under FFmpeg 5.1's wrapper: how its first pass is
/// told to gather statistics, and its second pass to read them (`passes: 2`, `target-size`).
/// One value per encoder row (`VideoEncoder.twoPass`): the lanes ask it, and branch on nothing else.
public enum TwoPass: Sendable {
    /// FFmpeg's own: the first pass opens with AV_CODEC_FLAG_PASS1 and leaves the statistics of
    /// each packet in the context's `stats_out`, which the lane collects after every packet; the
    /// second opens with AV_CODEC_FLAG_PASS2 and all of them in `stats_in` (libvpx, libaom).
    case codecStatistics
    /// The pass flags, with the library writing and reading its statistics in a file the
    /// wrapper's option `option` names (libx264's `stats`; x264 writes FILE and FILE.mbtree).
    case statisticsFile(option: String)
    /// The pass and the file in the encoder's parameter string, under these keys
    /// (`x265-params pass=1:stats=FILE`): FFmpeg 5.1's libx265 wrapper reads no pass flag.
    case parameters(pass: String, file: String)
    /// No two passes through FFmpeg 5.1's wrapper, and why.
    case unsupported(String)

    /// The encoder counts a pass's length in the duration FFmpeg's wrapper gives each picture —
    /// one tick of its time base (libvpx, libaom: `ticks_per_frame`) — and its second pass
    /// spends the bitrate over that length: it must be opened with one tick per frame.
    public var countsTicksAsFrames: Bool {
        if case .codecStatistics = self { return true }
        return false
    }

    public var isSupported: Bool {
        if case .unsupported = self { return false }
        return true
    }
}
