/// How a video track's pictures were scanned: whole (progressive), or as two fields of alternate
/// lines taken one after the other (interlaced: broadcast 1080i, PAL and NTSC DV, camcorders).
/// FFmpeg's names: `tt` top field coded and shown first, `bb` bottom first, `tb` top coded
/// first but bottom shown first, `bt` the other way.
public enum FieldOrder: String, Sendable, Hashable, CaseIterable {
    case progressive, tt, bb, tb, bt

    public var isInterlaced: Bool { self != .progressive }
    /// The top field is shown first (what a deinterlacer and an interlaced encoder need).
    public var topFieldFirst: Bool { self == .tt || self == .bt }
    /// How `inspect` and `plan` say it: `interlaced, top field first`.
    public var description: String {
        isInterlaced ? "interlaced, \(topFieldFirst ? "top" : "bottom") field first" : "progressive"
    }
}
