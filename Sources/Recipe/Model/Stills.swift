import Foundation

/// Which instants: listed ones, one every so often from the start, or a number spread evenly.
public enum StillTimes: Sendable, Equatable {
    case at([StillTime])
    /// Instants 0, D, 2D … before the end.
    case every(MediaTime)
    /// N instants, each in the middle of one of N equal parts of the source: none on its first
    /// picture (often black) or at its very end.
    case count(Int)
}

/// One instant as written: a time from the source's start (`1.5s`, `00:01:02.5`, `1001/30000`),
/// or a share of its duration (`25%`).
public enum StillTime: Sendable, Equatable, CustomStringConvertible {
    case time(MediaTime)
    case percent(MediaTime)

    /// nil for text that is neither (what `TimeParsing.time` takes, or a number and `%`).
    public init?(_ text: String) {
        let s = text.trimmingCharacters(in: .whitespaces)
        if s.hasSuffix("%") {
            guard let p = TimeParsing.time(String(s.dropLast())), !s.dropLast().hasSuffix("s") else { return nil }
            self = .percent(p)
        } else {
            guard let t = TimeParsing.time(s) else { return nil }
            self = .time(t)
        }
    }

    /// The instant from the source's start, for a source lasting `duration`; nil where it does
    /// not fit in 64 bits.
    public func offset(in duration: MediaTime) -> MediaTime? {
        switch self {
        case .time(let t): return t
        case .percent(let p):
            // duration · p / 100, in the duration's own units.
            guard duration.isNumeric, p.isNumeric,
                  let v = WideArithmetic.checkedMulDiv(duration.value, p.value, Int64(p.timescale) * 100, rounding: .nearest) else { return nil }
            return MediaTime(value: v, timescale: duration.timescale)
        }
    }

    public var description: String {
        switch self {
        case .time(let t): return t.secondsDescription
        case .percent(let p): return (p.value % Int64(p.timescale) == 0 ? String(p.value / Int64(p.timescale)) : String(p.seconds)) + "%"
        }
    }
}

/// How far from the instant asked for the frame shown may be (AVAssetImageGenerator's
/// `requestedTimeToleranceBefore/After`). A sync sample within the window is shown (nothing is
/// decoded past it); without one, the frame on display at the instant.
public enum StillTolerance: Sendable, Equatable {
    /// The frame on display at the instant (decoded from the sync sample before it).
    case exact
    /// The nearest sync sample, however far.
    case keyframe
    /// A sync sample at most `before` earlier or `after` later, else the exact frame.
    case window(before: MediaTime, after: MediaTime)

    public var before: MediaTime {
        switch self {
        case .exact: return .zero
        case .keyframe: return .positiveInfinity
        case .window(let b, _): return b
        }
    }

    public var after: MediaTime {
        switch self {
        case .exact: return .zero
        case .keyframe: return .positiveInfinity
        case .window(_, let a): return a
        }
    }

    /// `exact`, `keyframe`, `D` (both sides) or `BEFORE,AFTER` (`0.5s,2s`); nil otherwise.
    public init?(_ text: String) {
        switch text {
        case "exact": self = .exact
        case "keyframe": self = .keyframe
        default:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { TimeParsing.time(String($0)) }
            guard parts.count == 1 || parts.count == 2, let b = parts[0], let a = parts.last!, b >= .zero, a >= .zero else { return nil }
            self = b == .zero && a == .zero ? .exact : .window(before: b, after: a)
        }
    }
}

/// The image file formats a still is written in, told by the name's extension.
public enum StillFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp

    public init?(pathExtension ext: String) {
        switch ext.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }

    /// Whether `quality` means anything to it.
    public var isLossy: Bool { self != .png }
}

/// An image output of a recipe's `outputs:` (its `images:`): still pictures of one reader
/// output's video, at instants counted from the start of what the recipe reads.
public struct ImageOutputSpec: Sendable {
    /// The reader output whose pictures the stills are of.
    public let source: Located<String>
    public let times: StillTimes
    /// Where the instants are written: a time outside what is read is refused there.
    public let timesMark: Mark
    public var tolerance: StillTolerance = .exact
    /// Where `tolerance` is written (nil: not written): a composition refuses all but `exact` there.
    public var toleranceMark: Mark? = nil
    /// The box each still fits inside; nil: the display size.
    public var box: (width: Int, height: Int)?
    public var quality: Int?
    /// One picture of all the stills (a contact sheet), rows nil: as many as the stills fill;
    /// nil: a file per still.
    public var tiles: (columns: Int, rows: Int?)?
    /// With `tiles`: a WebVTT file beside the sheet pointing at its tiles.
    public var storyboard = false
    public let mark: Mark
}
