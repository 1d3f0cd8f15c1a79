import CFFmpeg

/// Time bases across the wall: FFmpeg's `AVRational` ↔ ours.
extension TimeBase {
    init(_ r: AVRational) { self.init(num: r.num, den: r.den) }
    var rational: AVRational { AVRational(num: num, den: den) }
}
