import CFFmpeg
import Recipe

/// Sound on its way to a `LoudnessMeter`: each frame converted to planar float at the rate and
/// layout measured (`MixFormat`, as the sink's gain stage converts it: what is measured is what
/// is gained), then fed to the meter block by block.
// Not Sendable: belongs to one measuring pass, on its thread.
final class LoudnessFeed {
    private let format: MixFormat
    private var resampler: Resampler?
    private(set) var meter: LoudnessMeter

    init(rate: Int32, layout: String) throws(MediaError) {
        format = try MixFormat(rate: rate, layout: layout)
        meter = LoudnessMeter(sampleRate: Int(rate), channels: try ChannelNames.of(layout: layout))
    }

    /// Measures `frame` (nil: what the converter still holds).
    func add(_ frame: Frame?) throws(MediaError) {
        if let frame {
            if let r = resampler, !r.takes(frame) {
                try measure(try r.convert(nil))
                resampler = nil
            }
            if resampler == nil { resampler = try format.resampler(from: frame) }
        }
        try measure(try resampler?.convert(frame))
    }

    private func measure(_ converted: Frame?) throws(MediaError) {
        guard let f = converted, f.samples > 0 else { return }
        let planes = (0..<Int(f.channels)).compactMap { f.floatSamples(channel: $0).map { UnsafePointer($0) } }
        meter.add(planes, count: Int(f.samples))
    }
}

/// One gain on the way into the sink's encoder: frames converted to planar float at the
/// output's rate and layout (as `LoudnessFeed` measured them), scaled, and handed on. A
/// composition's next file with another format drains the converter first and gets its own.
// Not Sendable: belongs to one sink, on its lane.
final class SoundGain {
    private let format: MixFormat
    private var resampler: Resampler?
    private let factor: Float

    init(decibels: Double, rate: Int32, layout: String) throws(MediaError) {
        format = try MixFormat(rate: rate, layout: layout)
        factor = Float(LoudnessGain.linear(decibels))
    }

    /// `frame` (nil: what the converter holds) gained; nil when nothing came out. Each frame
    /// is one of its own (the encoder's converter reads it once).
    func apply(_ frame: Frame?) throws(MediaError) -> [Frame] {
        var out: [Frame] = []
        if let frame, let r = resampler, !r.takes(frame) {
            if let rest = try r.convert(nil) { out.append(scaled(rest)) }
            resampler = nil
        }
        if let frame, resampler == nil { resampler = try format.resampler(from: frame) }
        if let f = try resampler?.convert(frame) { out.append(scaled(f)) }
        return out
    }

    private func scaled(_ f: Frame) -> Frame {
        for c in 0..<Int(f.channels) {
            guard let p = f.floatSamples(channel: c) else { continue }
            LoudnessGain.scale(p, count: Int(f.samples), by: factor)
        }
        return f
    }
}

/// The channel names of a layout, as BS.1770's weights know them.
enum ChannelNames {
    static func of(layout name: String) throws(MediaError) -> [String] {
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        guard av_channel_layout_from_string(&layout, name) >= 0 else {
            throw MediaError(.invalidSettings, "unknown channel layout '\(name)'", setting: "channel-layout")
        }
        return (0..<layout.nb_channels).map { i in
            let channel = av_channel_layout_channel_from_index(&layout, UInt32(i))
            var buffer = [CChar](repeating: 0, count: 32)
            guard av_channel_name(&buffer, buffer.count, channel) >= 0 else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
