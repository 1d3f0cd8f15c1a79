import CFFmpeg
import Foundation
import Recipe

/// Writes encoded (or passed-through) packets of several inputs into one container file
/// (AVAssetWriter with its inputs). Inputs are negotiated before `start`; lanes then append from
/// their own queues, serialised here behind one lock, and FFmpeg's interleaving muxer orders them.
// SAFETY: inputs are added and the header written (`addInput`, `addPassthroughInput`, `start`)
// by the one thread that sets the session up, before any lane runs (lanes are started on their
// queues afterwards, which orders those writes before the lanes' reads); from then on every use
// of `container`, `inputs` and the flags happens with `lock` held (`append`, `finish`).
final class AssetWriter: @unchecked Sendable {
    struct Input {
        let stream: UnsafeMutablePointer<AVStream>
        /// The time base the lane's packets are stamped in.
        let sourceTimeBase: AVRational
    }

    let path: String
    let format: ContainerFormat
    private let container: OutputContainer
    private var inputs: [Input] = []
    private let lock = NSLock()
    private var started = false
    private var finished = false

    init(path: String, format: ContainerFormat) throws(MediaError) {
        self.path = path
        self.format = format
        container = try OutputContainer(path: path, formatName: format.muxerName)
    }

    /// Encoders must set AV_CODEC_FLAG_GLOBAL_HEADER for this container.
    var needsGlobalHeader: Bool { container.needsGlobalHeader }
    /// Each input's decode times must increase (not merely not decrease).
    var needsStrictlyIncreasingDTS: Bool { container.needsStrictlyIncreasingDTS }

    /// An input fed by `encoder` (opened already: its parameters are final).
    func addInput(encoder: Encoder, rotation: Int, metadata: [String: String]) throws(MediaError) -> Int {
        let st = container.addStream()
        try encoder.copyParameters(to: st.pointee.codecpar)
        st.pointee.time_base = encoder.timeBase
        try finishStream(st, rotation: rotation, metadata: metadata)
        inputs.append(Input(stream: st, sourceTimeBase: encoder.timeBase))
        return inputs.count - 1
    }

    /// An input fed with the source's own packets (no decode, no encode).
    func addPassthroughInput(from source: UnsafeMutablePointer<AVStream>, rotation: Int, metadata: [String: String]) throws(MediaError) -> Int {
        let par = source.pointee.codecpar.pointee
        // MP4 describes VP9 by profile, bit depth and chroma layout (vpcC). Without a known picture
        // format FFmpeg writes the box empty and cannot read the file back.
        if par.codec_id == AV_CODEC_ID_VP9 && par.format < 0 && format != .mkv {
            throw MediaError(.unsupported, "the VP9 track's picture format is unknown (FFmpeg could not read it from the stream), "
                             + "so \(format.rawValue) cannot describe it: reencode it instead")
        }
        let st = container.addStream()
        try FFmpeg.check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "stream parameters")
        // The source container's tag may not be valid in ours (e.g. Matroska → MP4).
        st.pointee.codecpar.pointee.codec_tag = 0
        st.pointee.time_base = source.pointee.time_base
        try finishStream(st, rotation: rotation, metadata: metadata)
        inputs.append(Input(stream: st, sourceTimeBase: source.pointee.time_base))
        return inputs.count - 1
    }

    private func finishStream(_ st: UnsafeMutablePointer<AVStream>, rotation: Int, metadata: [String: String]) throws(MediaError) {
        if rotation != 0 {
            // av_display_rotation_set takes clockwise degrees, as `rotation` is.
            try FFmpeg.check(rx_stream_set_rotation(st, Double(rotation)), "display matrix")
        }
        for (k, v) in metadata { av_dict_set(&st.pointee.metadata, k, v, 0) }
    }

    /// Opens the file and writes the header. `optimizeForNetwork` puts the index (moov) first;
    /// `negativeCompositionOffsets` (MP4/MOV) is for test media made like an iPhone's.
    func start(metadata: [String: String], optimizeForNetwork: Bool, negativeCompositionOffsets: Bool = false) throws(MediaError) {
        for (k, v) in metadata { av_dict_set(&container.context.pointee.metadata, k, v, 0) }
        var options: [(String, String)] = []
        var movflags: [String] = []
        if optimizeForNetwork && format != .mkv { movflags.append("+faststart") }
        if format == .mov { movflags.append("+use_metadata_tags") }
        if negativeCompositionOffsets && format != .mkv { movflags.append("+negative_cts_offsets") }
        if !movflags.isEmpty { options.append(("movflags", movflags.joined())) }
        try container.open(options: options)
        started = true
    }

    /// Appends a packet stamped in the input's source time base. The packet's data is taken.
    func append(_ packet: Packet, to input: Int) throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        precondition(started && !finished, "append outside start…finish")
        let st = inputs[input].stream
        packet.streamIndex = st.pointee.index
        packet.rescale(from: inputs[input].sourceTimeBase, to: st.pointee.time_base)
        try container.write(packet)
    }

    /// Writes the trailer (and with faststart, moves the index to the front) and closes the file.
    func finish() throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        try container.finish()
    }
}

extension ContainerFormat {
    /// FFmpeg's muxer for this format.
    var muxerName: String {
        switch self {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .m4a: return "ipod"
        case .mkv: return "matroska"
        }
    }
}
