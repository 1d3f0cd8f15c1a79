import CFFmpeg
import Recipe

/// A compressed sample. Owns its AVPacket (freed once, in deinit).
// Not Sendable: a packet crosses threads only inside AssetReader (its buffers, under the reader's
// condition) and into AssetWriter.append (under the writer's lock); those owners make the claim.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(MediaError) {
        guard let p = av_packet_alloc() else { throw ResourceShortage.outOfMemory("a packet") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    var streamIndex: Int32 {
        get { pointer.pointee.stream_index }
        set { pointer.pointee.stream_index = newValue }
    }
    var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }
    var dts: Int64 {
        get { pointer.pointee.dts }
        set { pointer.pointee.dts = newValue }
    }
    var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    var size: Int { Int(pointer.pointee.size) }
    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    var isDisposable: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISPOSABLE != 0 }
    var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }

    var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
    }

    /// A new reference to the same data with its own fields (a reader hands one stream to two
    /// outputs: each may restamp its own).
    func reference() throws(MediaError) -> Packet {
        let p = try Packet()
        try FFmpeg.check(av_packet_ref(p.pointer, pointer), "av_packet_ref")
        return p
    }

    /// A packet holding `data`, with this one's times, flags and stream (a sample rewritten:
    /// units put in another form, parameter sets put before them).
    func withData(_ data: [UInt8]) throws(MediaError) -> Packet {
        let p = try Packet()
        try FFmpeg.check(av_new_packet(p.pointer, Int32(data.count)), "av_new_packet")
        data.withUnsafeBufferPointer { src in
            if let base = src.baseAddress, let dst = p.pointer.pointee.data { dst.update(from: base, count: data.count) }
        }
        try FFmpeg.check(av_packet_copy_props(p.pointer, pointer), "av_packet_copy_props")
        return p
    }

    /// When the sample is shown: its pts, else (AVI, some MPEG streams) its decode time, as a
    /// muxer shows it; invalid where it states neither.
    func shownTime(in timeBase: TimeBase) -> MediaTime {
        let stated = MediaTime(ts: pts, timeBase: timeBase)
        return stated.isNumeric ? stated : MediaTime(ts: dts, timeBase: timeBase)
    }

    /// The samples at its end the decoder drops (skip-samples side data: Matroska's
    /// DiscardPadding, an Ogg track's last granule position); nil where it states none.
    var discardedAtEnd: Int64? {
        var size = 0
        guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return nil }
        // Little-endian: 4 bytes skipped at the start, then 4 discarded at the end.
        let end = UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24
        return Int64(end)
    }

    func rescale(from: TimeBase, to: TimeBase) {
        av_packet_rescale_ts(pointer, from.rational, to.rational)
    }
}
