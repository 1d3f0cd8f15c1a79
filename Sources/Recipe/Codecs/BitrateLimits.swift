/// The bit rates an encoder opens at, where they depend on the sound's channels and sample rate:
/// libvorbis codes each band of rates from a template made for a range of bit rates per channel,
/// and refuses to open outside it (FFmpeg: "encoder setup failed"). Part of the codec table's row.
public struct BitrateLimits: Sendable {
    /// One band of sample rates and the bit rates per channel the encoder takes within it, by
    /// how it codes the channels.
    public struct Band: Sendable {
        public let rates: ClosedRange<Int>
        /// Mono, and more than two channels, each channel coded alone.
        public let single: ClosedRange<Int>
        /// Two channels, coded as a coupled pair (less per channel).
        public let stereo: ClosedRange<Int>
        /// Six channels (5.1), where the band has a template of its own; nil: as `single`.
        public var surround: ClosedRange<Int>? = nil
    }

    /// The encoder the limits are of, for messages (`libvorbis`).
    public let encoder: String
    public let bands: [Band]

    /// The bit rates (b/s, the whole track) the encoder takes for `channels` at `sampleRate`; nil
    /// where no band holds the rate (the encoder then says what it refuses).
    public func range(channels: Int, sampleRate: Int) -> ClosedRange<Int>? {
        guard channels > 0, let band = bands.first(where: { $0.rates.contains(sampleRate) }) else { return nil }
        let perChannel = channels == 2 ? band.stereo : channels == 6 ? band.surround ?? band.single : band.single
        return perChannel.lowerBound * channels...perChannel.upperBound * channels
    }

    /// The channels and rate among `channels` × `sampleRates` whose range holds `bitrate`, the
    /// first pair first; where none does, the one nearest it (the lowest floor for a bit rate
    /// below every floor, the highest ceiling above every ceiling). What `validate`, which has no
    /// source, stands in for one: it refuses only a bit rate no source could take.
    public func nearest(_ bitrate: Int, channels: [Int], sampleRates: [Int]) -> (channels: Int, sampleRate: Int)? {
        let pairs = channels.flatMap { c in sampleRates.compactMap { r in range(channels: c, sampleRate: r).map { (c, r, $0) } } }
        if let fits = pairs.first(where: { $0.2.contains(bitrate) }) { return (fits.0, fits.1) }
        let low = pairs.min { $0.2.lowerBound < $1.2.lowerBound }, high = pairs.max { $0.2.upperBound < $1.2.upperBound }
        guard let pick = (low.map { bitrate < $0.2.lowerBound } ?? false) ? low : high else { return nil }
        return (pick.0, pick.1)
    }

    /// libvorbis 1.3's templates (its `setup_8` … `setup_44`, the 5.1 one at 44 kHz), as measured
    /// with FFmpeg 5.1 (`ffmpeg -c:a libvorbis -b:a N`, bisected to the bit per second): the
    /// floor and ceiling per channel of each band.
    public static let libvorbis = BitrateLimits(encoder: "libvorbis", bands: [
        Band(rates: 8000...8999, single: 8000...42000, stereo: 6000...42000),
        Band(rates: 9000...14999, single: 12000...50000, stereo: 8000...50000),
        Band(rates: 15000...18999, single: 16000...100_000, stereo: 12000...100_000),
        Band(rates: 19000...25999, single: 16000...90000, stereo: 15000...90000),
        Band(rates: 26000...39999, single: 30000...190_000, stereo: 18000...190_000),
        Band(rates: 40000...50000, single: 32000...240_000, stereo: 22500...250_000, surround: 14000...240_000),
    ])
}
