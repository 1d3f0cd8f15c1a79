import Recipe

/// What the video source of a `slow-motion: from-source` piece does with each packet and
/// picture, after media3's SefSlowMotionFlattener: a picture the phone's flattening does not keep
/// is not shown, and a kept one is placed at its time on the phone's timeline. With selective
/// decode, a packet the flattening drops is not decoded when no other picture refers to it
/// (H.264 nal_ref_idc 0; HEVC as `Droppability` says). media3 also skips the dropped layers'
/// reference pictures, which a phone's decoder bridges; Samsung's streams do not allow gaps in
/// frame_num, and FFmpeg's decoder loses later pictures after such a gap, so they are decoded
/// here.
///
/// That time is handed back as a time on the piece's own source line (its segment's mapping,
/// extended beyond its range), so the grid's nearest-frame choice and source timing see the
/// phone's times also for the frames of the pieces around this one.
struct SlowMotionPicker {
    /// Samsung codes its layers in groups of 8 frames: no picture is reordered further.
    static let reorderWindow = SlowMotionInfo.storedFrameRate.frameDuration * 8

    let piece: SlowMotionPiece
    private let segment: TimeSegment
    private let codec: SlowMotionLayer.Codec
    private let framing: SlowMotionLayer.Framing
    private let selective: Bool
    /// HEVC's non-reference pictures (H.264's are read by `SlowMotionLayer`).
    private let hevcDroppability: Droppability?
    private let file: String
    /// Presentation times of the packets read whose pictures are shown.
    private var shown: Set<MediaTime> = []
    private(set) var skipped = 0

    /// Throws `.unsupported` for video other than H.264 and HEVC (the layers are read from their
    /// NAL headers).
    init(piece: SlowMotionPiece, segment: TimeSegment, codecName: String, extradata: [UInt8], selective: Bool,
         file: String) throws(MediaError) {
        guard let syntax = VideoFamily.of(streamCodec: codecName)?.frames else {
            throw MediaError(.unsupported, "its video is \(codecName): a phone's slow motion is read from the temporal layers of H.264 and HEVC only", file: file)
        }
        codec = syntax
        framing = SlowMotionLayer.framing(codec: codec, extradata: extradata)
        self.piece = piece
        self.segment = segment
        self.selective = selective
        hevcDroppability = codec == .hevc ? Droppability(codecName: codecName, extradata: extradata) : nil
        self.file = file
    }

    /// Whether the packet goes to the decoder. A packet without a presentation time is decoded
    /// (it may be a reference) and never shown.
    mutating func decodes(_ bytes: UnsafeBufferPointer<UInt8>, pts: MediaTime, keyframe: Bool, disposable: Bool) throws(MediaError) -> Bool {
        guard pts.isNumeric else { return true }
        guard let layer = SlowMotionLayer.temporalLayer(of: bytes, codec: codec, framing: framing) else {
            throw MediaError(.unsupported, "a frame carries no SVC temporal layer (no prefix NAL unit): its frames cannot be picked by layer", file: file, time: pts)
        }
        let t = pts - piece.origin
        if piece.flattening.keeps(t, layer: layer) {
            shown.insert(pts)
            return true
        }
        guard selective, !keyframe, disposable || isNonReference(bytes),
              !piece.flattening.decodes(t, layer: layer, reorderWindow: Self.reorderWindow) else { return true }
        skipped += 1
        return false
    }

    private func isNonReference(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch codec {
        case .h264: return SlowMotionLayer.isNonReferenceH264(bytes, framing: framing)
        case .hevc: return hevcDroppability?.isDroppable(bytes) ?? false
        }
    }

    /// Where the picture at `pts` is shown, on the piece's source line; nil: it is not shown.
    mutating func placement(ofPictureAt pts: MediaTime) -> MediaTime? {
        guard shown.remove(pts) != nil else { return nil }
        return sourceLine(ofFileTime: pts)
    }

    /// A file time's place on the phone's timeline, on the piece's source line.
    func sourceLine(ofFileTime t: MediaTime) -> MediaTime {
        segment.sourceTime(ofTarget: piece.targetTime(ofFileTime: t))
    }
}
