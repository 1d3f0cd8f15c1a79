import CFFmpeg
import Recipe

/// Makes interlaced pictures progressive with libavfilter's `bwdif` (motion-adaptive, from both
/// fields and their neighbours), a per-picture kernel: one picture per frame, or one per field.
/// libavfilter is loaded on first use (`FilterLibrary`). The graph decides no time: each picture
/// goes in stamped with its number n, and the number an output carries (2n, and for a second
/// field 2n + 1: bwdif halves the time base) says which picture — and which of its fields — it is; its time is then the
/// picture's own, or half a frame later for the second field. Owns its AVFilterGraph, which owns
/// every filter in it (freed once, in deinit or when the pictures' format changes).
// Not Sendable: owned by one VideoSource.
final class Deinterlacer {
    private let lib: FilterLibrary
    private let rate: DeinterlaceRate
    private let topFieldFirst: Bool
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    /// The width, height and pixel format the graph was made for.
    private var shape: (Int32, Int32, Int32)?
    /// Each picture in the graph by its number: its time and how long it lasts (until the next
    /// picture; the last one so far, as `PictureSpacing` guesses).
    private var times: [Int64: (pts: MediaTime, duration: MediaTime)] = [:]
    private var count: Int64 = 0
    /// The last pictures' times and stated lengths, for the length of the last one.
    private var spacing = PictureSpacing()

    init(rate: DeinterlaceRate, topFieldFirst: Bool) throws(MediaError) {
        lib = try FilterLibrary.shared.get()
        self.rate = rate
        self.topFieldFirst = topFieldFirst
    }

    deinit { lib.graphFree(&graph) }

    /// Takes one decoded picture shown at `pts`, its sample stating `duration`; returns the
    /// progressive pictures ready, with their times (the graph holds a picture back until it has
    /// the next). A picture lasts until the next one, whatever it states (a MOV at 1/600 may state
    /// 1 tick): its second field is half that later.
    func push(_ frame: Frame, at pts: MediaTime, duration: MediaTime) throws(MediaError) -> [(Frame, MediaTime, MediaTime)] {
        var out: [(Frame, MediaTime, MediaTime)] = []
        let now = (frame.width, frame.height, frame.pointer.pointee.format)
        if let shape, shape != now { out = try finish() }
        if graph == nil { try build(for: frame) }
        let input = try frame.reference()
        input.pts = count
        if let previous = times[count - 1], pts.isNumeric, previous.pts.isNumeric, pts > previous.pts {
            times[count - 1]?.duration = pts - previous.pts
        }
        spacing.saw(pts, stated: duration)
        let guessed = spacing.lastLength(average: nil)
        times[count] = (pts, guessed.isNumeric ? guessed : duration)
        count += 1
        try FFmpeg.check(lib.addFrame(source, input.pointer, 0), "deinterlace input")
        return out + (try drain())
    }

    /// The pictures the graph still holds, at the end of the stream.
    func finish() throws(MediaError) -> [(Frame, MediaTime, MediaTime)] {
        guard graph != nil else { return [] }
        try FFmpeg.check(lib.addFrame(source, nil, 0), "deinterlace end")
        let rest = try drain()
        lib.graphFree(&graph)
        (source, sink, shape) = (nil, nil, nil)
        times.removeAll()
        return rest
    }

    private func drain() throws(MediaError) -> [(Frame, MediaTime, MediaTime)] {
        var out: [(Frame, MediaTime, MediaTime)] = []
        while true {
            let f = try Frame()
            let rc = lib.getFrame(sink, f.pointer)
            if rc == FFmpeg.eagain || rc == FFmpeg.eof { return out }
            try FFmpeg.check(rc, "deinterlace output")
            let number = f.pts >> 1
            guard let t = times[number] else {
                throw MediaError(.processing, "the deinterlacer gave a picture numbered \(f.pts), which it was never given")
            }
            // Pictures before the one before this are done with (a progressive picture in field
            // mode comes out once, so its entry is not removed by its second field).
            times = times.filter { $0.key >= number - 1 }
            if rate == .field {
                let half = Self.half(t.duration)
                out.append((f, f.pts & 1 == 1 && half.isNumeric ? t.pts + half : t.pts, half))
            } else {
                out.append((f, t.pts, t.duration))
            }
        }
    }

    /// Half a duration, exactly where the time scale allows.
    static func half(_ d: MediaTime) -> MediaTime {
        guard d.isNumeric else { return d }
        if d.value % 2 == 0 { return MediaTime(value: d.value / 2, timescale: d.timescale) }
        if d.timescale <= Int32.max / 2 { return MediaTime(value: d.value, timescale: d.timescale * 2) }
        return MediaTime(value: d.value / 2, timescale: d.timescale)
    }

    private func build(for frame: Frame) throws(MediaError) {
        var g: UnsafeMutablePointer<AVFilterGraph>? = lib.graphAlloc()
        guard let built = g else { throw MediaError(.processing, "deinterlace graph: out of memory") }
        var ok = false
        defer { if !ok { lib.graphFree(&g) } }
        // One thread: the lane that owns the source is already one of the run's threads.
        built.pointee.nb_threads = 1
        let sar = frame.pointer.pointee.sample_aspect_ratio
        let chain: [(name: String, args: String)] = [
            ("buffer", "video_size=\(frame.width)x\(frame.height):pix_fmt=\(frame.pointer.pointee.format):time_base=1/1"
                + ":pixel_aspect=\(max(sar.num, 0))/\(max(sar.den, 1))"),
            // Every picture: the source's field order is the track's, whatever a picture says.
            ("bwdif", "mode=\(rate == .field ? "send_field" : "send_frame"):parity=\(topFieldFirst ? "tff" : "bff"):deint=all"),
            ("buffersink", ""),
        ]
        let contexts = try lib.chain(chain, in: built, what: "video filter", purpose: "deinterlacing")
        source = contexts.first
        sink = contexts.last
        shape = (frame.width, frame.height, frame.pointer.pointee.format)
        graph = built
        ok = true
    }
}
