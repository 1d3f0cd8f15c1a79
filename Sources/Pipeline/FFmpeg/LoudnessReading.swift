import CFFmpeg
import Recipe

/// A file's sound measured whole, track by track (`reencode inspect --loudness`): every audio
/// track decoded at its own rate and in its own layout (an unlabelled one in the standard
/// order for its channel count), and its loudness and true peak taken as BS.1770 says.
public enum LoudnessReading {
    public struct Track: Sendable {
        public let index: Int
        public let sampleRate: Int
        public let layout: String
        public let measurement: LoudnessMeter.Measurement
    }

    public static func measure(path: String) throws(MediaError) -> [Track] {
        let input = try InputContainer(path: path)
        var decoders: [Int: (decoder: Decoder, feed: LoudnessFeed, rate: Int, layout: String)] = [:]
        for i in 0..<input.streamCount {
            let stream = input.stream(i)
            guard stream.mediaType == .audio else { continue }
            let par = stream.pointer.pointee.codecpar.pointee
            let layout = layoutName(par.ch_layout)
            let decoder = try Decoder(stream: stream)
            decoders[i] = (decoder, try LoudnessFeed(rate: par.sample_rate, layout: layout), Int(par.sample_rate), layout)
        }
        let packet = try Packet()
        while try input.read(into: packet) {
            guard let d = decoders[Int(packet.streamIndex)] else { continue }
            while try !d.decoder.send(packet) { try drain(d.decoder, into: d.feed) }
            try drain(d.decoder, into: d.feed)
        }
        var tracks: [Track] = []
        for (i, d) in decoders.sorted(by: { $0.key < $1.key }) {
            _ = try d.decoder.send(nil)
            try drain(d.decoder, into: d.feed)
            try d.feed.add(nil)
            tracks.append(Track(index: i, sampleRate: d.rate, layout: d.layout, measurement: d.feed.meter.measurement))
        }
        return tracks
    }

    private static func drain(_ decoder: Decoder, into feed: LoudnessFeed) throws(MediaError) {
        while let frame = try decoder.receive() {
            if frame.samples > 0 { try feed.add(frame) }
        }
    }

    /// The layout's name as FFmpeg writes it (`stereo`, `5.1(side)`); an unlabelled one's
    /// standard layout for its channel count.
    private static func layoutName(_ stated: AVChannelLayout) -> String {
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        var copy = stated
        if stated.order == AV_CHANNEL_ORDER_UNSPEC || av_channel_layout_copy(&layout, &copy) < 0 {
            av_channel_layout_uninit(&layout)
            av_channel_layout_default(&layout, max(1, stated.nb_channels))
        }
        var buffer = [CChar](repeating: 0, count: 64)
        guard av_channel_layout_describe(&layout, &buffer, buffer.count) >= 0 else { return "stereo" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
