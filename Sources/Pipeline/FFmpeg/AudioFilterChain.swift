import CFFmpeg

/// A straight chain of libavfilter audio filters (abuffer → filters → aformat → abuffersink) used
/// as a stretch kernel: `rubberband` for `spectral`. libavfilter is loaded on first use
/// (`FilterLibrary`): most runs never filter.
/// The graph's timestamps are not used: input is stamped by sample count and the output's stamps
/// are ignored (the stretcher counts). Owns its AVFilterGraph, which owns every filter in it
/// (freed once, in deinit).
// Not Sendable: owned by one TimeStretcher.
final class AudioFilterChain: StretchKernel {
    private let lib: FilterLibrary
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private var nextPTS: Int64 = 0
    private var ended = false
    private let sampleRate: Int32
    /// The graph's layout, stamped on every input: abuffer refuses a frame whose rate or layout
    /// differs from its own, while the stretcher accepts an unstamped rate (0) and any layout of
    /// its channel count, as the other kernels do.
    private var layout = AVChannelLayout()

    init(sampleRate: Int32, layout: UnsafePointer<AVChannelLayout>,
         filters: [(name: String, args: String)]) throws(MediaError) {
        let lib = try FilterLibrary.shared.get()
        var g: UnsafeMutablePointer<AVFilterGraph>? = lib.graphAlloc()
        guard let built = g else { throw ResourceShortage.outOfMemory("an audio filter graph") }
        var ok = false
        defer { if !ok { lib.graphFree(&g) } }
        // One thread: the lane that owns the stretcher is already one of the run's threads.
        built.pointee.nb_threads = 1
        var buf = [CChar](repeating: 0, count: 128)
        guard rx_channel_layout_describe(layout, &buf, Int32(buf.count)) >= 0 else {
            throw MediaError(.processing, "audio filter graph: cannot name the channel layout")
        }
        let layoutName = String(cChars: buf)
        let chain = [("abuffer", "time_base=1/\(sampleRate):sample_rate=\(sampleRate):sample_fmt=fltp:channel_layout=\(layoutName)")]
            + filters
            + [("aformat", "sample_fmts=fltp:sample_rates=\(sampleRate):channel_layouts=\(layoutName)"), ("abuffersink", "")]
        let contexts = try lib.chain(chain, in: built, what: "audio filter", purpose: "the time stretch")
        guard let first = contexts.first, let last = contexts.last,
              lib.sinkFormat(last) == AV_SAMPLE_FMT_FLTP.rawValue,
              lib.sinkSampleRate(last) == sampleRate else {
            throw MediaError(.processing, "audio filter graph: the output is not planar float at \(sampleRate) Hz")
        }
        try FFmpeg.check(av_channel_layout_copy(&self.layout, layout), "channel layout")
        self.sampleRate = sampleRate
        self.lib = lib
        source = first
        sink = last
        graph = built
        ok = true
    }

    deinit {
        lib.graphFree(&graph)
        av_channel_layout_uninit(&layout)
    }

    func push(_ frame: Frame?) throws(MediaError) {
        guard !ended else { return }
        guard let frame else {
            ended = true
            try FFmpeg.check(lib.addFrame(source, nil, 0), "audio filter end")
            return
        }
        // Our own reference, stamped by count and with the graph's rate and layout; the source takes
        // its buffers over.
        let input = try frame.reference()
        input.pts = nextPTS
        input.pointer.pointee.sample_rate = sampleRate
        av_channel_layout_uninit(&input.pointer.pointee.ch_layout)
        try FFmpeg.check(av_channel_layout_copy(&input.pointer.pointee.ch_layout, &layout), "channel layout")
        nextPTS += Int64(frame.samples)
        try FFmpeg.check(lib.addFrame(source, input.pointer, 0), "audio filter input")
    }

    func pull() throws(MediaError) -> Frame? {
        let out = try Frame()
        let rc = lib.getFrame(sink, out.pointer)
        if rc == FFmpeg.eagain || rc == FFmpeg.eof { return nil }
        try FFmpeg.check(rc, "audio filter output")
        return out
    }
}
