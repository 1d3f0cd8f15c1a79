import CFFmpeg
import Recipe

/// One stream of a file, read in decode order from wherever it was positioned, each packet with
/// its times on the file's timeline: what still images are resolved against (times only, no
/// decode) and decoded from. Opened for packet times alone (`FrameStartScan.open`: no stream
/// information where the header names the streams); the other streams are not read.
// Not Sendable: owned by one image generator, on one thread.
final class StreamPackets {
    /// A packet's times as the file states them (`dts` invalid where it states none; `pts` the
    /// decode time where only that is stated, as in AVI, whose pictures are not reordered).
    struct Timing: Equatable {
        let pts: MediaTime
        let dts: MediaTime
        let isSync: Bool
    }

    private let input: InputContainer
    let stream: Int
    private let timeBase: TimeBase
    /// The packet `next` read last.
    let packet: Packet

    init(path: String, stream: Int) throws(MediaError) {
        input = try FrameStartScan.open(path)
        guard stream >= 0, stream < input.streamCount else {
            throw MediaError(.notMedia, "stream \(stream) is not in the file (it has \(input.streamCount)): the file has changed since it was planned", file: path)
        }
        self.stream = stream
        for i in 0..<input.streamCount where i != stream { input.stream(i).isSkipped = true }
        timeBase = input.stream(stream).timeBase
        packet = try Packet()
    }

    /// Positions the stream at a sync sample at or before `time` where the file's index allows
    /// (a seek is a guess where it has none: the caller checks what it reads). `rounding`: how
    /// `time` becomes FFmpeg's microseconds — up, to land on a sync sample at exactly `time`.
    func seek(to time: MediaTime, rounding: MediaTime.Rounding = .down) throws(MediaError) {
        // The planner keeps every instant within the file, so this fits; an overflow is said, not hidden.
        let ts = try time.ts(in: .microseconds, rounding: rounding)
        try input.seek(to: ts, stream: -1)
    }

    /// The next packet of the stream (in `packet`), or nil at its end.
    func next() throws(MediaError) -> Timing? {
        while try input.read(into: packet) {
            guard Int(packet.streamIndex) == stream else { continue }
            let dts = MediaTime(ts: packet.dts, timeBase: timeBase)
            return Timing(pts: packet.pts == FFmpeg.noPTS ? dts : MediaTime(ts: packet.pts, timeBase: timeBase), dts: dts, isSync: packet.isKeyframe)
        }
        return nil
    }

    /// Whether nothing references the packet read last, so that it need not be decoded when it
    /// is not itself wanted (`Droppability`: H.264 and HEVC; other codecs: never).
    func isDroppable(_ judge: Droppability?) -> Bool {
        !packet.isKeyframe && (packet.isDisposable || judge?.isDroppable(packet.bytes) == true)
    }

    /// The judge of droppable pictures for this stream's codec, where it has one.
    var droppability: Droppability? {
        let st = input.stream(stream)
        return Droppability(codecName: String(cString: avcodec_get_name(st.pointer.pointee.codecpar.pointee.codec_id)),
                            extradata: StreamParameters(st).extradata)
    }

    /// A decoder for the stream.
    func decoder() throws(MediaError) -> Decoder { try Decoder(stream: input.stream(stream)) }

    /// The presentation time of a picture the decoder gave (its best guess where the file states none).
    func time(of frame: Frame) -> MediaTime {
        MediaTime(ts: frame.decodedTimestamp, timeBase: timeBase)
    }
}

extension Decoder {
    /// Forgets every picture it holds and leaves draining, so that it decodes from a new sync
    /// sample (after a seek) as if just opened.
    func flush() { avcodec_flush_buffers(context) }
}
