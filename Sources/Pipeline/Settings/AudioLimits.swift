import Recipe

/// The sound is never given more than its source has unless the recipe asks: a higher sample
/// rate or bit rate adds nothing a re-encode can hear, only bytes (a 24 kb/s 16 kHz mono track
/// made 128 kb/s 48 kHz more than doubled a file). A value the recipe writes is taken as asked,
/// and `plan` says when it is above the source's; a built-in preset's bit rate and the default
/// one are ceilings.
extension SettingsAssistant {
    /// Above this the output is lowered: nothing audible lies above 24 kHz, and players expect
    /// AAC (and the codecs after it) at 48 kHz at most.
    static let highestKeptSampleRate = 48000

    func sampleRate(source: FormatDescription, settings s: AudioSettings, family: AudioFamily, encoder: String,
                    decide: (String, String, String, String) -> Void) throws(MediaError) -> Int {
        let listed = capabilities(encoder)?.sampleRates ?? []
        // Empty: the encoder takes any rate (FLAC, ALAC, PCM).
        let rates = listed.isEmpty ? family.sampleRates : listed
        let src = source.sampleRate
        if let r = s.sampleRate {
            if !rates.isEmpty && !rates.contains(r) {
                throw MediaError(.invalidSettings, "sample rate \(r) is not supported by the \(encoder) encoder (it takes \(rates.map(String.init).joined(separator: ", ")))",
                                 setting: "sample-rate")
            }
            decide("sample-rate", "\(r)", Origin.settings, "as asked" + (src > 0 && r > src ? " (above the source's \(src) Hz: resampled up, nothing gained)" : ""))
            return r
        }
        if let (fixed, why) = family.fixedRate {
            decide("sample-rate", "\(fixed)", "sample-rate.\(family.codec.rawValue)",
                   src == fixed ? "the source's rate; \(why)" : "the source's \(src > 0 ? "\(src) Hz" : "unknown rate") is resampled to \(fixed) Hz: \(why)")
            return fixed
        }
        guard src > 0 else {
            decide("sample-rate", "48000", "sample-rate.unknown-source", "the source's rate is unknown")
            return 48000
        }
        // A lossless codec keeps what it is given: a 96 kHz master stays 96 kHz.
        if src > Self.highestKeptSampleRate && !family.lossless {
            // 88.2 and 176.4 kHz halve cleanly to 44.1.
            let lowered = src % 44100 == 0 && rates.contains(44100) ? 44100 : Self.highestKeptSampleRate
            decide("sample-rate", "\(lowered)", "sample-rate.lowered",
                   "the source's \(src) Hz is lowered to \(lowered) Hz: nothing audible lies above \(lowered / 2000) kHz, and players expect \(family.displayName) at 48 kHz at most")
            return lowered
        }
        if rates.isEmpty || rates.contains(src) {
            decide("sample-rate", "\(src)", "sample-rate.kept", "the source's rate (never raised)")
            return src
        }
        if let below = rates.filter({ $0 < src }).max() {
            decide("sample-rate", "\(below)", "sample-rate.nearest-below",
                   "the \(encoder) encoder does not take the source's \(src) Hz: the nearest rate it takes below it (never raised)")
            return below
        }
        let lowest = rates.min() ?? 8000
        decide("sample-rate", "\(lowest)", "sample-rate.encoder-lowest", "the \(encoder) encoder's lowest rate, above the source's \(src) Hz: it takes none lower")
        return lowest
    }

    /// A lossless codec's bits per sample: the source's integer depth (16 or 24), at most the
    /// codec's; a float source (a lossy codec's decoded sound) in 16 bits.
    func bitDepth(source: FormatDescription, family: AudioFamily, decide: (String, String, String, String) -> Void) -> Int {
        guard let src = source.bitDepth else {
            decide("bit-depth", "16", "bit-depth.float-source",
                   "the source's \(source.codec) decodes to float samples, with no depth of its own to keep: 16 bits, as a CD")
            return 16
        }
        let depth = src <= 16 ? 16 : min(24, family.maxBitDepth)
        let reason = src <= 16 ? "the source's \(src)-bit samples" + (src < 16 ? ", in 16 bits" : "")
            : src <= depth ? "the source's \(src)-bit samples, kept" : "the source's \(src)-bit samples, rounded to \(family.displayName)'s \(depth) bits"
        decide("bit-depth", "\(depth)", "bit-depth.source", reason)
        return depth
    }

    /// The samples `encoder` takes for `bitDepth` (nil: a lossy codec's float), as this FFmpeg's
    /// encoder lists them (an encoder that lists none: the first wanted).
    func sampleFormat(encoder: String, bitDepth: Int?) -> String {
        let wanted = switch bitDepth {
        case nil: ["fltp", "flt", "s16p", "s16"]
        case 16?: ["s16", "s16p", "s32", "s32p"]
        default: ["s32", "s32p"]
        }
        let listed = capabilities(encoder)?.sampleFormats ?? []
        return wanted.first { listed.isEmpty || listed.contains($0) } ?? wanted[0]
    }

    func audioBitrate(source: FormatDescription, settings s: AudioSettings, channels: Int,
                      decide: (String, String, String, String) -> Void) -> Int {
        let src = source.bitRate.flatMap { $0 > 0 ? $0 : nil }
        if let b = s.bitrate, !s.bitrateIsCeiling {
            decide("bitrate", "\(b)", Origin.settings, "as asked" + (src.map { b > $0 ? " (above the source's \(kbps($0)))" : "" } ?? ""))
            return b
        }
        let wanted = s.bitrate ?? min(320_000, 64_000 * channels)
        let what = s.bitrate != nil ? "the preset's \(kbps(wanted))" : "64 kb/s per channel"
        guard let src else {
            decide("bitrate", "\(wanted)", s.bitrate != nil ? "audio-bitrate.preset" : "audio-bitrate.per-channel",
                   what + " (the source states no bit rate to stay under)")
            return wanted
        }
        guard src < wanted else {
            decide("bitrate", "\(wanted)", s.bitrate != nil ? "audio-bitrate.preset" : "audio-bitrate.per-channel",
                   what + ", at most the source's \(kbps(src))")
            return wanted
        }
        decide("bitrate", "\(src)", "audio-bitrate.source",
               "the source's \(kbps(src)): \(what) would be more than it has, and a re-encode adds nothing (never raised unless the recipe asks)")
        return src
    }
}

/// A bit rate as people read it, to the nearest kb/s: `24 kb/s`, `128 kb/s`.
public func kbps(_ bitsPerSecond: Int) -> String { "\((bitsPerSecond + 500) / 1000) kb/s" }
