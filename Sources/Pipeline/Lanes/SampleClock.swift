import Recipe

/// A copied sound track's stamps in samples, where its container counts coarser time (Matroska
/// and WebM count milliseconds: an Opus packet of 960 samples at 48 kHz starting at −312 is
/// stated at −7 ms, the next at 14 ms, not 13.5). A file that counts samples (Ogg's granule
/// positions, MP4's sample table) would take the rounding as a shift of the sound. A packet is
/// put where the one before it ends while that lies within the stated time's rounding (half a
/// tick, and a sample for the conversion); elsewhere (the first, a gap, a cut) at its stated time
/// to the nearest sample. The first of a track copied from its start is put where the track's
/// sound starts less the samples its decoder drops (`SourceStream.primingSamples`), which is
/// where the container meant it.
struct SampleClock {
    /// The container's time base, and one tick per sample.
    let stated: TimeBase
    let samples: TimeBase
    /// How far a stated time may lie from the sample it rounds (in samples).
    private let slack: Int64
    /// Where the next packet starts when it follows the one before.
    private var next: Int64?
    /// The output takes a packet's end trim (Matroska's DiscardPadding, which FFmpeg reads as
    /// skip-samples side data) as its duration only: Ogg's last granule position, MP4's sample
    /// table. Matroska writes the side data back itself.
    private let trimsByDuration: Bool

    /// nil where the stream's own time base counts samples or finer, and for a track that states
    /// no priming (Opus states its pre-skip): elsewhere (AAC, Vorbis in Matroska) the stated
    /// times stand, as `ffmpeg -c copy` keeps them (PassthroughCorpusTests).
    /// `first`: where the track's first packet starts on the stream's sample clock, where known.
    init?(stream: SourceStream, first: MediaTime?, trimsByDuration: Bool) {
        let rate = stream.sampleRate, tb = stream.timeBase
        guard rate > 0, tb.num > 0, stream.primingSamples > 0, Int64(tb.num) * Int64(rate) > Int64(tb.den) else { return nil }
        stated = tb
        let clock = TimeBase(num: 1, den: rate)
        samples = clock
        slack = Int64(tb.num) * Int64(rate) / Int64(tb.den) / 2 + 1
        // A start that does not fit 64 bits in samples leaves the first packet at its stated time.
        next = first.flatMap { try? $0.ts(in: clock) }.flatMap { $0 == FFmpeg.noPTS ? nil : $0 }
        self.trimsByDuration = trimsByDuration
    }

    /// Restamps `packet` from the container's time base into samples.
    mutating func place(_ packet: Packet) {
        packet.rescale(from: stated, to: samples)
        guard packet.pts != FFmpeg.noPTS else { next = nil; return }
        if let n = next, abs(n - packet.pts) <= slack {
            if packet.dts != FFmpeg.noPTS { packet.dts += n - packet.pts }
            packet.pts = n
        }
        next = packet.duration > 0 ? packet.pts + packet.duration : nil
        if trimsByDuration, let discarded = packet.discardedAtEnd, discarded > 0, discarded < packet.duration {
            packet.duration -= discarded
        }
    }
}
