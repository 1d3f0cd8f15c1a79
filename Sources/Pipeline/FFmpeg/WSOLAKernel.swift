import CFFmpeg
import Recipe

/// `time-domain` on frames: the WSOLA kernel (Kernels/WSOLA.swift) fed planar float frames,
/// its output handed back as frames in the input's layout. Owns its channel layout
/// (uninitialised once, in deinit).
// Not Sendable: owned by one TimeStretcher.
final class WSOLAKernel: StretchKernel {
    private let sampleRate: Int32
    private var layout = AVChannelLayout()
    private let wsola: WSOLA
    private var output: [Frame] = []

    init(scale: TimeStretchScale, sampleRate: Int32, layout: UnsafePointer<AVChannelLayout>) throws(MediaError) {
        self.sampleRate = sampleRate
        wsola = WSOLA(scale: scale, sampleRate: sampleRate, channels: Int(layout.pointee.nb_channels))
        try FFmpeg.check(av_channel_layout_copy(&self.layout, layout), "channel layout")
    }

    deinit { av_channel_layout_uninit(&layout) }

    /// Ends the input: makes output up to kernel output sample `outputEnd` (the range's end, a
    /// caller's fixed length included), every sample of it from the source.
    func finish(outputEnd: Int64) throws(MediaError) {
        guard !wsola.hasEnded else { return }
        try emit(wsola.end(outputEnd: outputEnd))
    }

    func push(_ frame: Frame?) throws(MediaError) {
        guard !wsola.hasEnded else { return }
        guard let frame else { return try emit(wsola.end(outputEnd: nil)) }
        let n = Int(frame.samples)
        guard n > 0 else { return }
        var planes: [UnsafeBufferPointer<Float>] = []
        for c in 0..<wsola.channels {
            guard let p = frame.floatSamples(channel: c) else {
                throw MediaError(.processing, "time stretch: channel \(c) of the input has no samples")
            }
            planes.append(UnsafeBufferPointer(start: p, count: n))
        }
        try emit(wsola.feed(planes))
    }

    func pull() throws(MediaError) -> Frame? {
        output.isEmpty ? nil : output.removeFirst()
    }

    /// Queues what the kernel made (per channel) as one frame.
    private func emit(_ made: [[Float]]) throws(MediaError) {
        guard let n = made.first?.count, n > 0 else { return }
        let f = try Frame.audio(samples: Int32(n), format: AV_SAMPLE_FMT_FLTP, layout: &layout, sampleRate: sampleRate)
        for c in 0..<wsola.channels {
            guard let p = f.floatSamples(channel: c) else { continue }
            made[c].withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: n) }
        }
        output.append(f)
    }
}
