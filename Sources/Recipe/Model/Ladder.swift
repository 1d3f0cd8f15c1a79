/// One rung of the bit rate ladder in Apple's HLS Authoring Specification for Apple Devices
/// (the "recommended variants" table, 16:9): a box the picture is fitted inside, the video's
/// average bit rate in kb/s, and its frame-rate column: at most `maxFrameRate` frames per second
/// (`≤ 30 fps`), or nil: the source's rate (`Same as source`).
public struct LadderRung: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let kbps: Int
    public let maxFrameRate: Int?

    public init(_ width: Int, _ height: Int, _ kbps: Int, maxFrameRate: Int? = nil) {
        self.width = width; self.height = height; self.kbps = kbps; self.maxFrameRate = maxFrameRate
    }

    public var box: String { "\(width)x\(height)" }
}

/// `ladder: auto`: the specification's rungs for the rendition's codec, chosen against the
/// source's displayed size.
public enum HLSLadder {
    /// The H.264/AVC column: 416x234 at 145 kb/s up to 1920x1080 at 7800 kb/s. The
    /// specification gives H.264 no rung above 1080p (and caps it at High profile, level 4.2).
    public static let h264 = [LadderRung(416, 234, 145, maxFrameRate: 30), LadderRung(640, 360, 365, maxFrameRate: 30),
                              LadderRung(768, 432, 730, maxFrameRate: 30), LadderRung(768, 432, 1100, maxFrameRate: 30),
                              LadderRung(960, 540, 2000), LadderRung(1280, 720, 3000), LadderRung(1280, 720, 4500),
                              LadderRung(1920, 1080, 6000), LadderRung(1920, 1080, 7800)]
    /// The HEVC/H.265 column, with its rungs for sources above 1080p (1440p and 2160p).
    /// Its four smallest rungs at 30 fps or less, as the H.264 column's.
    public static let hevc = [LadderRung(416, 234, 145, maxFrameRate: 30), LadderRung(640, 360, 300, maxFrameRate: 30),
                              LadderRung(768, 432, 660, maxFrameRate: 30), LadderRung(768, 432, 990, maxFrameRate: 30),
                              LadderRung(960, 540, 1700), LadderRung(1280, 720, 2400), LadderRung(1280, 720, 3200),
                              LadderRung(1920, 1080, 4500), LadderRung(1920, 1080, 5800), LadderRung(2560, 1440, 8100),
                              LadderRung(3840, 2160, 11600), LadderRung(3840, 2160, 16800)]

    /// The rungs of `codec`'s column (`hevc`; anything else the H.264 one).
    public static func rungs(hevc: Bool) -> [LadderRung] { hevc ? Self.hevc : h264 }

    /// Every rung of the column against a source shown at `width`x`height` (pixel aspect and
    /// rotation applied): a rung whose box, fitted to the source's shape, is smaller than the
    /// source is kept at that size; one the source fills exactly is kept at the source's size;
    /// one larger is dropped (never upscaled). When the source falls between two rungs, a rung
    /// at its own size is added on top, its rate interpolated by pixel count between theirs and
    /// its frame-rate ceiling the larger rung's (it stands in for that rung, reduced to the source).
    public static func choose(width dw: Int, height dh: Int, hevc: Bool) -> [LadderChoice] {
        let column = rungs(hevc: hevc), source = "\(dw)x\(dh)"
        var choices: [LadderChoice] = []
        var firstLarger: (rung: LadderRung, pixels: Int)?
        var top: (pixels: Int, kbps: Int, atSource: Bool)?
        for rung in column {
            let (w, h) = fitted(rung, width: dw, height: dh)
            if w > dw || h > dh {
                if firstLarger == nil { firstLarger = (rung, w * h) }
                choices.append(LadderChoice(rung: rung, width: even(w), height: even(h), kbps: rung.kbps, kept: false,
                                            reason: "larger than the source (\(source) as displayed): never upscaled"))
                continue
            }
            let atSource = w == dw && h == dh
            let reason = atSource ? "the source's size (\(source) as displayed)"
                : "the source (\(source) as displayed) fitted inside \(rung.box), display aspect kept"
            choices.append(LadderChoice(rung: rung, width: even(w), height: even(h), kbps: rung.kbps, kept: true, reason: reason))
            top = (w * h, rung.kbps, atSource)
        }
        // Between two rungs (or below the first): the top rung is the source's own size.
        if let larger = firstLarger, top?.atSource != true {
            let pixels = dw * dh
            let kbps: Int, why: String
            if let low = top {
                kbps = low.kbps + Int((Double(larger.rung.kbps - low.kbps) * Double(pixels - low.pixels) / Double(larger.pixels - low.pixels)).rounded())
                why = "the source's size (\(source) as displayed), between the rungs below and \(larger.rung.box) at \(larger.rung.kbps) kb/s: the top rung, its rate interpolated by pixel count"
            } else {
                kbps = max(1, Int((Double(larger.rung.kbps) * Double(pixels) / Double(larger.pixels)).rounded()))
                why = "the source's size (\(source) as displayed), smaller than the specification's smallest rung (\(larger.rung.box)): its rate scaled by pixel count"
            }
            let at = choices.lastIndex { $0.kept }.map { $0 + 1 } ?? 0
            choices.insert(LadderChoice(rung: LadderRung(dw, dh, kbps, maxFrameRate: larger.rung.maxFrameRate), width: even(dw), height: even(dh), kbps: kbps, kept: true, reason: why, added: true), at: at)
        }
        return choices
    }

    /// The rung's box turned as the source is (a box is orientation-free: a portrait source
    /// fits a landscape box turned upright) and the source's shape scaled to fit inside it, as
    /// the settings assistant fits a picture, but allowed to be larger than the source.
    static func fitted(_ rung: LadderRung, width dw: Int, height dh: Int) -> (Int, Int) {
        var (bw, bh) = (rung.width, rung.height)
        if (dh > dw) != (bh > bw), bw != bh { (bw, bh) = (bh, bw) }
        if Int64(dw) * Int64(bh) >= Int64(dh) * Int64(bw) {
            return (bw, Int((Int64(dh) * Int64(bw) + Int64(dw) / 2) / Int64(dw)))
        }
        return (Int((Int64(dw) * Int64(bh) + Int64(dh) / 2) / Int64(dh)), bh)
    }

    /// 4:2:0 needs even sizes: made even as the settings assistant makes them.
    static func even(_ x: Int) -> Int { max(2, x & ~1) }
}

/// What `ladder: auto` made of one rung against the source: kept at a size and rate, or dropped,
/// and why.
public struct LadderChoice: Sendable, Hashable {
    /// The specification's rung (for an added rung at the source's size, that size and its rate).
    public let rung: LadderRung
    /// The picture's size (the rung's box fitted to the source's shape, made even).
    public let width: Int
    public let height: Int
    public let kbps: Int
    public let kept: Bool
    public let reason: String
    /// A rung at the source's size that is not in the specification's table.
    public var added = false

    /// The rendition's folder name: `720p-3000k` (the short side, as rungs are named).
    public var name: String { "\(min(width, height))p-\(kbps)k" }

    /// `1280x720 at 3000 kb/s`.
    public var summary: String { "\(width)x\(height) at \(kbps) kb/s" }
}
