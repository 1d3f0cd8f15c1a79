import CFFmpeg
import Recipe

/// Where a sound track starts: where its first sample is heard, not where the samples its
/// decoder drops start. Ogg (Opus's pre-skip) and MP4 (the edit list) already start a track there
/// in FFmpeg's reading. Matroska states the drop as the track's CodecDelay (libopus: 312 samples,
/// 6.5 ms) and FFmpeg's reader puts every block that much earlier, so its start for the track is
/// the first block's: CodecDelay before the sound, which the decoder stamps CodecDelay later. A
/// session that started there would put a copy of the track that much late in a file that counts
/// samples (Ogg's granule positions, MP4's edit list).
extension SourceStream {
    /// The samples the decoder drops before the first it gives (the container's statement: Opus's
    /// pre-skip); 0 where it states none.
    var primingSamples: Int64 { Int64(max(pointer.pointee.codecpar.pointee.initial_padding, 0)) }

    /// Samples per second of a sound stream (0 for any other).
    var sampleRate: Int32 { mediaType == .audio ? pointer.pointee.codecpar.pointee.sample_rate : 0 }

    /// `primingSamples` in ticks of the stream's time base, rounded as FFmpeg's Matroska reader
    /// rounds CodecDelay (to the nearest tick), so the start lands where the decoder stamps the
    /// first sample.
    fileprivate var primingTicks: Int64 {
        guard primingSamples > 0, sampleRate > 0 else { return 0 }
        return av_rescale_q(primingSamples, AVRational(num: 1, den: sampleRate), pointer.pointee.time_base)
    }
}

extension InputContainer {
    /// FFmpeg's Matroska (and WebM) reader.
    var isMatroska: Bool { formatName.hasPrefix("matroska") }

    /// Where `stream`'s media starts (`SourceStream.startTime`), a Matroska sound track's at its
    /// first sample heard (after CodecDelay).
    func startTime(of stream: SourceStream) -> MediaTime {
        let stated = stream.startTime
        guard isMatroska, stream.mediaType == .audio, stream.pointer.pointee.start_time != FFmpeg.noPTS,
              stream.primingTicks > 0 else { return stated }
        return stated + MediaTime(ts: stream.primingTicks, timeBase: stream.timeBase)
    }

    /// How much later the file starts than FFmpeg's start says: where its earliest picture or
    /// sound track starts it is a Matroska sound track's CodecDelay (or less, where another
    /// track starts within it); zero elsewhere.
    var soundStartLead: MediaTime {
        guard isMatroska else { return .zero }
        let timed = (0..<streamCount).map { stream($0) }.filter { $0.isPictureOrSound && $0.pointer.pointee.start_time != FFmpeg.noPTS }
        guard let first = timed.map(\.startTime).min(), let heard = timed.map({ startTime(of: $0) }).min(), heard > first else { return .zero }
        return heard - first
    }
}
