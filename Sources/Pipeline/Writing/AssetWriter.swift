import Foundation
import Recipe

/// Writes encoded (or passed-through) packets of several inputs into one container file
/// (AVAssetWriter with its inputs). Inputs are negotiated before `start`; lanes then append from
/// their own queues, serialised here behind one lock, and FFmpeg's interleaving muxer orders them.
// SAFETY: inputs are added and `start` is called on one thread, before any lane runs (or in a
// rehearsal that no lane ever sees); from then on every use of `container` and `inputs`
// (append, finish, and the read-backs) happens with `lock` held.
final class AssetWriter: @unchecked Sendable {
    struct Input {
        let stream: OutputStream
        /// The time base the lane's packets are stamped in.
        let sourceTimeBase: TimeBase
    }

    let path: String
    let format: ContainerFormat
    private let container: OutputContainer
    private var inputs: [Input] = []
    private let lock = NSLock()
    private var started = false
    /// A passed-through stream has a Dolby Vision configuration: the MP4 writer stores it (dvcC)
    /// only when told that unofficial boxes are fine.
    private var carriesDolbyVision = false
    /// A track FFmpeg writes into this container only as an experimental feature
    /// (`AudioFamily.experimentalIn`: FLAC in MP4): the muxer is told that is fine.
    private var holdsExperimental = false
    private var finished = false
    /// Called once, after the write that takes the file past `bytes` (a file-length limit: the
    /// run may end early, since nothing after it can be kept).
    private var passing: (bytes: Int64, action: @Sendable () -> Void)?
    /// A fragmented output's cutter (`start` makes it); nil: one progressive file.
    private var cutter: FragmentCutter?

    /// `rehearsal`: `start` writes the header into memory, not to `path` (what `plan` and
    /// `validate` do to find every refusal before a run).
    /// The file its write errors name: the output it becomes (it is written under a temp name).
    private let names: String?

    init(path: String, format: ContainerFormat, rehearsal: Bool = false, names: String? = nil) throws(MediaError) {
        self.path = path
        self.format = format
        self.names = names
        container = try OutputContainer(path: path, formatName: format.muxerName, rehearsal: rehearsal)
    }

    /// After a failed `start`: the input the muxer refuses on its own, and why.
    func refusedInput() -> (input: Int, error: MediaError)? {
        lock.lock(); defer { lock.unlock() }
        return container.refusedStream().map { ($0.index, $0.error) }
    }

    /// The profile input `i` is written with, as its own headers (avcC/hvcC) state it.
    func statedProfile(ofInput i: Int) -> String? {
        lock.lock(); defer { lock.unlock() }
        guard inputs.indices.contains(i) else { return nil }
        return inputs[i].stream.statedProfile
    }

    /// What input `i` is stored as (its time base is the muxer's choice, once the header is written).
    func streamFormat(ofInput i: Int) -> StreamFormat? {
        lock.lock(); defer { lock.unlock() }
        return inputs.indices.contains(i) ? inputs[i].stream.format : nil
    }

    /// Encoders must set AV_CODEC_FLAG_GLOBAL_HEADER for this container.
    var needsGlobalHeader: Bool { container.needsGlobalHeader }
    /// Each input's decode times must increase (not merely not decrease).
    var needsStrictlyIncreasingDTS: Bool { container.needsStrictlyIncreasingDTS }

    /// An input fed by `encoder` (opened already: its parameters are final).
    func addInput(encoder: Encoder, rotation: Int, metadata: [String: String]) throws(MediaError) -> Int {
        noteExperimental(encoder.codecName)
        return try add(container.addStream(encodedBy: encoder), stampedIn: encoder.timeBase, rotation: rotation, metadata: metadata)
    }

    /// An input fed by a subtitle encoder (opened already), stamped in its time base.
    func addInput(subtitleEncoder encoder: SubtitleEncoder, metadata: [String: String]) throws(MediaError) -> Int {
        try add(container.addStream(encodedBy: encoder), stampedIn: SubtitleEncoder.timeBase, rotation: 0, metadata: metadata)
    }

    /// An input fed with the source's own packets (no decode, no encode), stamped in
    /// `stampedIn` (nil: the source stream's time base).
    func addPassthroughInput(from source: SourceStream, stampedIn: TimeBase? = nil, rotation: Int, metadata: [String: String]) throws(MediaError) -> Int {
        // MP4 describes VP9 by profile, bit depth and chroma layout (vpcC). Without a known picture
        // format FFmpeg writes the box empty and cannot read the file back.
        if source.lacksVP9PictureFormat && format.isISOMedia {
            throw MediaError(.unsupported, "the VP9 track's picture format is unknown (FFmpeg could not read it from the stream), "
                             + "so \(format.rawValue) cannot describe it: reencode it instead")
        }
        let st = try container.addStream(copying: source)
        if source.carriesDolbyVision { carriesDolbyVision = true }
        noteExperimental(source.codecName)
        return try add(st, stampedIn: stampedIn ?? source.timeBase, rotation: rotation, metadata: metadata)
    }

    /// A copied input's HDR10 static metadata where its source's container stated none (a
    /// smart-rendered track: `OutputStream.state`).
    func stateHDR(input: Int, masteringDisplay: MasteringDisplay?, contentLightLevel: ContentLightLevel?) throws(MediaError) {
        try inputs[input].stream.state(masteringDisplay: masteringDisplay, contentLightLevel: contentLightLevel)
    }

    private func noteExperimental(_ codec: String) {
        if AudioFamily.of(encoder: codec)?.experimentalIn.contains(format) == true { holdsExperimental = true }
    }

    private func add(_ st: OutputStream, stampedIn timeBase: TimeBase, rotation: Int, metadata: [String: String]) throws(MediaError) -> Int {
        try st.finish(rotation: rotation, metadata: Keeping.streamMetadata(metadata, format: format))
        inputs.append(Input(stream: st, sourceTimeBase: timeBase))
        return inputs.count - 1
    }

    /// Opens the file and writes the header. `optimizeForNetwork` puts the index (moov) first.
    /// `negativeCompositionOffsets` (MP4/MOV) is for test media made like an iPhone's.
    func start(metadata: [String: String], optimizeForNetwork: Bool, negativeCompositionOffsets: Bool = false) throws(MediaError) {
        try start(kept: KeptItems(metadata: metadata, quickTimeKeys: format == .mov), optimizeForNetwork: optimizeForNetwork,
                  negativeCompositionOffsets: negativeCompositionOffsets)
    }

    /// Opens the file and writes the header with the file's metadata, chapters and cover art
    /// (what the plan found the container can hold). `fragments`: a fragmented MP4 (moov first,
    /// with no samples, then a moof and an mdat per fragment) cut at the grid's instants.
    func start(kept: KeptItems, optimizeForNetwork: Bool, fragments: KeyframeGrid? = nil, negativeCompositionOffsets: Bool = false) throws(MediaError) {
        try container.setMetadata(kept.metadata)
        try container.setChapters(kept.chapters)
        var covers: [(AttachedPicture, OutputStream)] = []
        for (i, p) in kept.pictures.enumerated() {
            if format.holdsAttachments, let mime = Keeping.mkvMimeType(p.codec) {
                let ext = mime == "image/jpeg" ? "jpg" : String(mime.dropFirst("image/".count))
                // A Matroska source's own name for it stands (`cover.jpg` by the convention).
                let name = p.fileName ?? (i == 0 ? "cover" : "cover-\(i + 1)") + "." + ext
                try container.addAttachment(p.bytes, codec: p.codec, fileName: name, mimeType: mime)
            } else {
                // Kept by a container that holds no attachments (`Keeping.holdsPicture`): MP4's
                // `covr`, FLAC's picture block, each written from a picture stream.
                covers.append((p, try container.addPictureStream(p)))
            }
        }
        if format.holdsAttachments {
            for a in kept.attachments { try container.addAttachment(a.bytes, codec: nil, fileName: a.fileName, mimeType: a.mimeType) }
        }
        var options: [(String, String)] = []
        var movflags: [String] = []
        if fragments != nil && format.isISOMedia {
            // Cut where `FragmentCutter` says; the index is first already. It is written when the
            // first fragment is cut (delay_moov), when the tracks' start is known: else FFmpeg
            // drops the edit list and moves every track later by the audio encoder's priming.
            movflags.append("+frag_custom+empty_moov+delay_moov+default_base_moof")
            // Fragments are what HLS and DASH stream: HEVC as Apple's players take it.
            container.storeHEVCAsHVC1()
        } else if optimizeForNetwork && format.isISOMedia {
            movflags.append("+faststart")
        }
        if kept.quickTimeKeys && format.isISOMedia { movflags.append("+use_metadata_tags") }
        if negativeCompositionOffsets && format.isISOMedia { movflags.append("+negative_cts_offsets") }
        if !movflags.isEmpty { options.append(("movflags", movflags.joined())) }
        // Experimental is the looser level: it allows the unofficial boxes too.
        if holdsExperimental {
            options.append(("strict", "experimental"))
        } else if carriesDolbyVision && format == .mp4 {
            options.append(("strict", "unofficial"))
        }
        try container.open(options: options)
        // The muxer keeps the picture (MP4 `covr`) and writes it with the index.
        for (p, st) in covers { try container.writePicture(p, to: st) }
        // The muxer chose each stream's time base with the header.
        if let fragments, format.isISOMedia {
            cutter = FragmentCutter(fragments, timeBases: inputs.map(\.stream.timeBase), steady: inputs.map(\.stream.isSteady))
        }
        started = true
    }

    /// Calls `action` once, when the file has passed `bytes` (before `start`).
    func whenPassing(_ bytes: Int64, _ action: @escaping @Sendable () -> Void) {
        passing = (bytes, action)
    }

    /// Appends a packet stamped in the input's source time base. The packet's data is taken.
    func append(_ packet: Packet, to input: Int) throws(MediaError) {
        lock.lock()
        precondition(started && !finished, "append outside start…finish")
        let st = inputs[input].stream
        packet.streamIndex = st.index
        packet.rescale(from: inputs[input].sourceTimeBase, to: st.timeBase)
        do throws(MediaError) {
            if let cutter { try cutter.take(packet, input: input, into: container) } else { try container.write(packet) }
        } catch { lock.unlock(); throw error.at(file: names) }
        var passed: (@Sendable () -> Void)?
        if let p = passing, container.bytesWritten > p.bytes { passed = p.action; passing = nil }
        lock.unlock()
        // Outside the lock: the action reaches the readers, whose lanes may be waiting for it.
        passed?()
    }

    /// Writes the trailer (and with faststart, moves the index to the front) and closes the file.
    func finish() throws(MediaError) {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        // A line logged earlier on this thread is another call's (another output's header, with
        // several outputs): a failed trailer must not carry it as its reason.
        FFmpegLog.forgetThread()
        try cutter?.finish(container)
        try container.finish()
    }
}

extension ContainerFormat {
    /// The muxer wants a codec's headers out of band (an encoder then puts them in its
    /// extradata, not in the stream): known before a file is opened, so a plan may ask.
    var needsGlobalHeader: Bool { OutputContainer.needsGlobalHeader(muxer: muxerName) }

    /// FFmpeg's muxer for this format.
    var muxerName: String {
        switch self {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .m4a: return "ipod"
        case .mkv: return "matroska"
        case .webm: return "webm"
        case .flac: return "flac"
        case .opus: return "opus"
        case .ogg: return "ogg"
        case .wav: return "wav"
        }
    }
}
