import CFFmpeg

/// The sound of one scaled segment: its decoded frames in, its stretched frames out, in the
/// decoded frames' own format, rate and layout (the sink made its resampler from the first frame
/// of the track, which may be another segment's). The stretcher works on planar float: other
/// formats are converted there and back (a format change at the same rate, sample for sample).
// Not Sendable: owned by the one audio source stage that feeds it.
final class StretchedSound {
    let stretcher: TimeStretcher
    /// Decoded format → planar float, and back; nil when the decoded sound is planar float.
    private let toFloat: Resampler?
    private let back: Resampler?
    private var primed = false

    /// - Parameters:
    ///   - format: a decoded frame of the segment (its format, rate and layout are the sound's).
    ///   - targetSamples: the segment's exact length at the frame's rate (nil: round(fed × scale)).
    init(format frame: Frame, method: TimeStretcher.Method, scale: TimeStretchScale, targetSamples: Int64?) throws(MediaError) {
        let layout = try frame.channelLayoutName()
        stretcher = try TimeStretcher(sampleRate: frame.sampleRate, channelLayout: layout, method: method, scale: scale,
                                      targetSamples: targetSamples)
        if frame.sampleFormat == AV_SAMPLE_FMT_FLTP {
            toFloat = nil
            back = nil
        } else {
            toFloat = try frame.makeResampler(toRate: frame.sampleRate, format: AV_SAMPLE_FMT_FLTP, layout: layout)
            var l = AVChannelLayout()
            defer { av_channel_layout_uninit(&l) }
            guard av_channel_layout_from_string(&l, layout) >= 0 else {
                throw MediaError(.processing, "time stretch: unknown channel layout '\(layout)'")
            }
            back = try Resampler(inRate: frame.sampleRate, inFormat: AV_SAMPLE_FMT_FLTP, inLayout: &l,
                                 outRate: frame.sampleRate, outFormat: frame.sampleFormat, outLayout: layout)
        }
    }

    /// How much audio before the segment the stretcher leads in with (source samples).
    var primingSamples: Int64 { stretcher.primingSamples }

    /// Leads in with the audio just before the segment (decoded frames, oldest first).
    func prime(_ preRange: [Frame]) throws(MediaError) {
        primed = true
        var floats: [Frame] = []
        for f in preRange { if let c = try float(f) { floats.append(c) } }
        try stretcher.prime(floats)
    }

    /// Takes the segment's next samples; returns what is ready, stamped by count from the
    /// segment's start (`pts`, at the sound's rate).
    func feed(_ frame: Frame) throws(MediaError) -> [Frame] {
        if !primed { try prime([]) }
        if let f = try float(frame) { try stretcher.feed(f) }
        return try drained()
    }

    /// The segment's end: the rest, up to its exact length.
    func finish() throws(MediaError) -> [Frame] {
        if let toFloat, let tail = try toFloat.convert(nil) { try stretcher.feed(tail) }
        try stretcher.finish()
        return try drained()
    }

    private func float(_ frame: Frame) throws(MediaError) -> Frame? {
        guard let toFloat else { return frame }
        return try toFloat.convert(frame)
    }

    private func drained() throws(MediaError) -> [Frame] {
        var out: [Frame] = []
        while let f = try stretcher.drain() {
            guard let back else { out.append(f); continue }
            // A format change at the same rate keeps every sample and holds none back.
            guard let converted = try back.convert(f), converted.samples == f.samples else {
                throw MediaError(.processing, "time stretch: the conversion back to the decoded format lost samples")
            }
            converted.pts = f.pts
            out.append(converted)
        }
        return out
    }
}

extension Frame {
    /// This audio's channel layout as FFmpeg names it (`stereo`, `5.1`); an unlabelled one is
    /// taken as the default order for its channel count.
    func channelLayoutName() throws(MediaError) -> String {
        var l = AVChannelLayout()
        defer { av_channel_layout_uninit(&l) }
        if pointer.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&l, channels)
        } else {
            try FFmpeg.check(av_channel_layout_copy(&l, &pointer.pointee.ch_layout), "channel layout")
        }
        var buf = [CChar](repeating: 0, count: 128)
        guard rx_channel_layout_describe(&l, &buf, Int32(buf.count)) >= 0 else {
            throw MediaError(.processing, "cannot name the audio's channel layout")
        }
        return String(cChars: buf)
    }
}
