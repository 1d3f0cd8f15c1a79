import Recipe

/// The SVC temporal layer of one compressed video sample, read from its NAL unit headers without
/// decoding (what lets a slow-motion conform skip frames it will not show).
///
/// H.264: Samsung puts a prefix NAL unit (type 14) with the SVC extension before each picture;
/// `temporal_id` is the top 3 bits of the extension's third byte. HEVC: `nuh_temporal_id_plus1`
/// of the picture's first slice, minus one.
public enum SlowMotionLayer {
    /// The family's frame syntax (`VideoFamily.frames`).
    public typealias Codec = FrameSyntax

    /// How the sample's NAL units are delimited: by big-endian lengths of 1 to 4 bytes (MP4; the
    /// size is in avcC/hvcC — ISO 14496-15 leaves out 3, but FFmpeg's decoders read it, so the
    /// layers are read as the decoder reads the frames) or by start codes (Annex B).
    public enum Framing: Sendable, Equatable { case lengthPrefixed(Int), annexB }

    /// nil when the sample has no NAL unit that says (no SVC prefix in H.264, no slice in HEVC)
    /// or is cut short. Looks at no more than 64 NAL units.
    public static func temporalLayer(of sample: UnsafeBufferPointer<UInt8>, codec: Codec, framing: Framing) -> Int? {
        for nal in nalUnits(sample, framing: framing).prefix(64) {
            guard nal.count >= 2 else { continue }
            switch codec {
            case .h264:
                let type = sample[nal.lowerBound] & 0x1f
                guard type == 14 || type == 20, nal.count >= 4, sample[nal.lowerBound + 1] & 0x80 != 0 else { continue }
                return Int(sample[nal.lowerBound + 3] >> 5)
            case .hevc:
                let type = (sample[nal.lowerBound] >> 1) & 0x3f
                guard type < 32 else { continue }  // VCL units only: parameter sets are always layer 0
                let plus1 = Int(sample[nal.lowerBound + 1] & 0x07)
                return plus1 > 0 ? plus1 - 1 : nil
            }
        }
        return nil
    }

    /// Whether no other picture refers to an H.264 sample: every slice has nal_ref_idc 0. Samsung
    /// stores the SVC prefix and the slice as one length-prefixed unit with an Annex B start code
    /// between them (FFmpeg reads on after the start code, and so does this). Anything else than
    /// slices, SVC prefixes, SEI, delimiters and filler counts as referenced.
    public static func isNonReferenceH264(_ sample: UnsafeBufferPointer<UInt8>, framing: Framing) -> Bool {
        var headers: [UInt8] = []
        for nal in nalUnits(sample, framing: framing).prefix(64) {
            headers.append(sample[nal.lowerBound])
            guard sample[nal.lowerBound] & 0x1f == 14, case .lengthPrefixed = framing else { continue }
            let inner = UnsafeBufferPointer(rebasing: sample[nal])
            for unit in nalUnits(inner, framing: .annexB).prefix(64) { headers.append(inner[unit.lowerBound]) }
        }
        var slices = 0
        for header in headers {
            switch header & 0x1f {
            case 1, 5:
                guard header & 0x60 == 0 else { return false }
                slices += 1
            case 6, 9, 12, 14: break
            default: return false
            }
        }
        return slices > 0
    }

    /// The byte ranges of the NAL units (headers included), in order; stops at the first one
    /// that does not fit.
    static func nalUnits(_ s: UnsafeBufferPointer<UInt8>, framing: Framing) -> [Range<Int>] {
        var units: [Range<Int>] = []
        switch framing {
        case .lengthPrefixed(let width):
            guard (1...4).contains(width) else { return [] }
            var at = 0
            while at + width <= s.count, units.count < 64 {
                var length = 0
                for i in 0..<width { length = length << 8 | Int(s[at + i]) }
                at += width
                guard length > 0, length <= s.count - at else { break }
                units.append(at..<at + length)
                at += length
            }
        case .annexB:
            var starts: [Int] = []
            var i = 0
            while i + 3 <= s.count, starts.count < 65 {
                if s[i] == 0, s[i + 1] == 0, s[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
            }
            for (n, start) in starts.enumerated() {
                var end = n + 1 < starts.count ? starts[n + 1] - 3 : s.count
                while end > start, s[end - 1] == 0 { end -= 1 }  // trailing zero of a 4-byte start code
                if end > start { units.append(start..<end) }
            }
        }
        return units
    }
}
