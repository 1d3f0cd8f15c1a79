import Recipe

/// Where a copied video stream can be cut without decoding, read from its packets alone. A copy
/// can begin only at a sync sample; it can end before one only where every picture shown before
/// that sample is decoded before it (a closed group of pictures: an open GOP's leading pictures
/// are decoded after their sync sample and shown before it, and would be lost with it). A sample
/// without a presentation time is taken at its decode time, as a copy shows it.
enum CopyCutScan {
    struct Cut: Sendable, Equatable {
        /// A sync sample is shown exactly at the instant.
        var isSync = false
        /// Some sample decoded after that sync sample is shown before it.
        var isOpen = false
        /// The nearest sync samples before and after the instant (what a message offers).
        var syncBefore: MediaTime?
        var syncAfter: MediaTime?
        /// The sync sample at the instant restarts decoding (an IDR; `Droppability` reads its
        /// NAL units); nil where the codec's are not read (other codecs: every sync sample does).
        var restartsDecoding: Bool?
    }

    /// Reordering never spans more samples than this after a sync sample (H.264/HEVC: 16 frames).
    static let reorderWindow = 32
    /// Past the instant, a sync sample further than this many samples away is not looked for.
    static let searchLimit = 4096

    /// The stream's samples around `t` (on the file's timeline).
    static func cut(at t: MediaTime, path: String, stream: Int) throws(MediaError) -> Cut {
        // Seeked a little before t, the demuxer lands on the sync sample at or before it; a file
        // that cannot seek so (or lands after t) is read from its start.
        if let cut = try scan(path: path, stream: stream, around: t, seek: true), cut.isSync || cut.syncBefore != nil { return cut }
        return try scan(path: path, stream: stream, around: t, seek: false) ?? Cut()
    }

    private static func scan(path: String, stream: Int, around t: MediaTime, seek: Bool) throws(MediaError) -> Cut? {
        let input = try InputContainer(path: path, streamInformation: false)
        guard stream >= 0, stream < input.streamCount else { return nil }
        input.readOnly(stream: stream)
        if seek {
            guard let ts = try? t.ts(in: .microseconds, rounding: .down) else { return nil }
            do throws(MediaError) { try input.seek(to: ts, stream: -1) } catch { return nil }
        }
        let tb = input.stream(stream).timeBase
        let pictures = Droppability(codecName: input.stream(stream).codecName, extradata: input.stream(stream).codecSetup)
        var cut = Cut()
        var afterSync = 0, past = 0
        let packet = try Packet()
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream else { continue }
            let pts = packet.shownTime(in: tb)
            guard pts.isNumeric else { continue }
            if cut.isSync {
                afterSync += 1
                if pts < t { cut.isOpen = true }
            }
            if packet.isKeyframe {
                if pts < t { cut.syncBefore = pts }
                else if pts == t {
                    cut.isSync = true
                    cut.restartsDecoding = pictures.map { $0.restartsDecoding(packet.bytes) }
                }
                else if cut.syncAfter == nil { cut.syncAfter = pts }
            }
            if pts > t { past += 1 }
            let settled = !cut.isSync || afterSync >= reorderWindow
            if settled && (cut.syncAfter != nil || past >= searchLimit) { break }
        }
        return cut
    }

    /// The stream's set-up record (parameter sets) and time base, from its header.
    static func setup(path: String, stream: Int) throws(MediaError) -> (bytes: [UInt8], timeBase: TimeBase) {
        let input = try InputContainer(path: path, streamInformation: false)
        guard stream >= 0, stream < input.streamCount else { throw MediaError(.processing, "\(path) has no track #\(stream)", file: path) }
        let s = input.stream(stream)
        return (s.codecSetup, s.timeBase)
    }
}
