import CFFmpeg
import Foundation
import Recipe

/// The output format a mix sums in: planar float at the output's rate and layout. Owns its
/// channel layout (uninitialised once, in deinit).
// Not Sendable: belongs to one mixer, on its lane.
final class MixFormat {
    let rate: Int32
    let layoutName: String
    private var layout = AVChannelLayout()

    init(rate: Int32, layout name: String) throws(MediaError) {
        self.rate = rate
        layoutName = name
        guard av_channel_layout_from_string(&layout, name) >= 0 else {
            throw MediaError(.invalidSettings, "unknown channel layout '\(name)'", setting: "channel-layout")
        }
    }

    deinit { av_channel_layout_uninit(&layout) }

    var channels: Int32 { layout.nb_channels }

    /// A silent frame of `count` samples to sum into.
    func silence(count: Int32) throws(MediaError) -> Frame {
        let f = try Frame.audio(samples: count, format: AV_SAMPLE_FMT_FLTP, layout: &layout, sampleRate: rate)
        try FFmpeg.check(av_samples_set_silence(f.pointer.pointee.extended_data, 0, count, f.channels, AV_SAMPLE_FMT_FLTP), "cannot make silence")
        return f
    }

    /// A queue of samples in this format.
    func queue() throws(MediaError) -> AudioFIFO { try AudioFIFO(format: AV_SAMPLE_FMT_FLTP, channels: channels) }

    /// A resampler from `frame`'s format to this one.
    func resampler(from frame: Frame) throws(MediaError) -> Resampler {
        try frame.makeResampler(toRate: rate, format: AV_SAMPLE_FMT_FLTP, layout: layoutName)
    }
}

/// The mix's arithmetic (Kernels/MixKernel.swift) on planar float frames of one rate and layout.
extension MixKernel {
    /// `sum[c][i] += gains[i] · input[c][i]` for i below the input's samples, the sum's and the
    /// gains' counts (both planar float, same layout).
    static func accumulate(_ input: Frame, gains: [Float], into sum: Frame) {
        let n = Int(min(input.samples, sum.samples, Int32(gains.count)))
        for c in 0..<Int(min(input.channels, sum.channels)) {
            guard let src = input.floatSamples(channel: c), let dst = sum.floatSamples(channel: c) else { continue }
            accumulate(src, gains: gains, into: dst, count: n)
        }
    }

    /// `sum[c][i] *= gains[i]`.
    static func scale(_ sum: Frame, by gains: [Float]) {
        let n = Int(min(sum.samples, Int32(gains.count)))
        for c in 0..<Int(sum.channels) {
            guard let d = sum.floatSamples(channel: c) else { continue }
            scale(d, by: gains, count: n)
        }
    }

    /// Applies `rule` to every sample of `sum`.
    static func limit(_ sum: Frame, _ rule: MixLimit) {
        for c in 0..<Int(sum.channels) {
            guard let d = sum.floatSamples(channel: c) else { continue }
            limit(d, count: Int(sum.samples), rule)
        }
    }
}
