import Recipe

/// What one stage hands the next, agreed at plan time (`Negotiation`): the run builds each stage
/// for the formats of its edges and never asks another stage for them.
public enum EdgeFormat: Sendable, Hashable, CustomStringConvertible {
    /// Decoded pictures stamped on the output's timeline.
    case pictures(PictureFormat)
    /// Decoded sound stamped on the output's timeline (in samples of `timeBase`).
    case sound(SoundFormat)
    /// Compressed samples: a copied track's, or what an encoder hands the writer.
    case stream(StreamFormat)

    public var description: String {
        switch self {
        case .pictures(let p): return p.description
        case .sound(let s): return s.description
        case .stream(let s): return s.description
        }
    }

    var pictures: PictureFormat? { if case .pictures(let p) = self { return p } else { return nil } }
}

/// Pictures: their size and pixel format, the time base they are stamped in and the rate the
/// encoder is told (the source's average when the output keeps source timing).
public struct PictureFormat: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var pixelFormat: String
    public var timeBase: Ratio
    /// nil: the source states none (its average rate is unknown).
    public var frameRate: FrameRate?

    public var description: String {
        "pictures \(width)x\(height) \(pixelFormat), time base \(timeBase.num)/\(timeBase.den), "
            + (frameRate.map { "\($0.frames)/\($0.seconds) fps" } ?? "no stated rate")
    }

    /// The same timing (what a sink is opened for: its encoder's time base and rate).
    func sameTiming(as other: PictureFormat) -> Bool { timeBase == other.timeBase && frameRate == other.frameRate }
}

/// Sound: as decoded (rate, sample format, layout), stamped in samples of the output's rate.
public struct SoundFormat: Sendable, Hashable, CustomStringConvertible {
    public var sampleRate: Int
    public var sampleFormat: String
    public var channelLayout: String
    public var timeBase: Ratio

    public var description: String {
        "sound \(sampleRate) Hz \(sampleFormat) \(channelLayout), time base \(timeBase.num)/\(timeBase.den)"
    }
}

/// A compressed stream as the writer stores it.
public struct StreamFormat: Sendable, Hashable, CustomStringConvertible {
    public var codec: String
    public var profile: String?
    public var timeBase: Ratio
    /// Video: the coded size and pixel format (0 and nil otherwise).
    public var width = 0
    public var height = 0
    public var pixelFormat: String?
    /// Audio: the rate and layout (0 and nil otherwise).
    public var sampleRate = 0
    public var channelLayout: String?

    public var description: String {
        var parts = ["stream \(codec)" + (profile.map { " (\($0))" } ?? "")]
        if width > 0 { parts.append("\(width)x\(height)" + (pixelFormat.map { " \($0)" } ?? "")) }
        if sampleRate > 0 { parts.append("\(sampleRate) Hz" + (channelLayout.map { " \($0)" } ?? "")) }
        parts.append("time base \(timeBase.num)/\(timeBase.den)")
        return parts.joined(separator: ", ")
    }
}

/// Time bases as the plan states them (`Ratio`, public) and as the engine counts in (`TimeBase`).
extension Ratio {
    init(_ tb: TimeBase) { self.init(Int(tb.num), Int(tb.den)) }
}

extension TimeBase {
    init(_ r: Ratio) { self.init(num: Int32(clamping: r.num), den: Int32(clamping: r.den)) }
}
