import Recipe

/// How an H.264 or HEVC stream's samples hold their NAL units, read from its set-up record
/// (avcC/hvcC): each unit behind a length of `lengthSize` bytes, the parameter sets in the
/// record. A smart render joins copied and newly encoded pictures into one such stream: the
/// encoder's units (Annex B) are put in the same form, and each run after another repeats its
/// own parameter sets in band at its first picture (an IDR, where a decoder takes new ones).
struct NALStream: Sendable, Equatable {
    let family: FrameSyntax
    let lengthSize: Int
    /// The record's parameter sets (HEVC: VPS, SPS, PPS; H.264: SPS, PPS), each without a prefix.
    let parameterSets: [[UInt8]]
    /// The profile and level the record states (H.264: profile_idc, level_idc; HEVC:
    /// general_profile_idc, general_level_idc).
    let profileIDC: Int
    let levelIDC: Int

    /// nil: not a length-prefixed H.264 or HEVC stream (Annex B, or another codec).
    init?(family: FrameSyntax, record r: [UInt8]) {
        self.family = family
        switch family {
        case .h264:
            guard r.count >= 7, r[0] == 1 else { return nil }
            lengthSize = Int(r[4] & 3) + 1
            profileIDC = Int(r[1]); levelIDC = Int(r[3])
            var i = 6
            guard let sps = Self.units(r, at: &i, count: Int(r[5] & 0x1f)), i < r.count else { return nil }
            let n = Int(r[i]); i += 1
            guard let pps = Self.units(r, at: &i, count: n) else { return nil }
            parameterSets = sps + pps
        case .hevc:
            guard r.count >= 23, r[0] == 1 else { return nil }
            lengthSize = Int(r[21] & 3) + 1
            profileIDC = Int(r[1] & 0x1f); levelIDC = Int(r[12])
            var sets: [[UInt8]] = []
            var i = 23
            for _ in 0..<Int(r[22]) {
                guard i + 3 <= r.count else { return nil }
                let n = Int(r[i + 1]) << 8 | Int(r[i + 2])
                i += 3
                guard let units = Self.units(r, at: &i, count: n) else { return nil }
                sets += units
            }
            parameterSets = sets
        }
        guard lengthSize == 4 || lengthSize == 2 || lengthSize == 1 else { return nil }
    }

    /// An H.264 level_idc as x264 and `plan` name it (9: level 1b).
    static func levelName(h264 idc: Int) -> String {
        idc == 9 ? "1b" : "\(idc / 10).\(idc % 10)"
    }

    /// `count` units of a record, each behind a 2-byte length, from `i` on.
    private static func units(_ r: [UInt8], at i: inout Int, count: Int) -> [[UInt8]]? {
        var out: [[UInt8]] = []
        for _ in 0..<count {
            guard i + 2 <= r.count else { return nil }
            let len = Int(r[i]) << 8 | Int(r[i + 1])
            i += 2
            guard i + len <= r.count else { return nil }
            out.append(Array(r[i..<(i + len)]))
            i += len
        }
        return out
    }

    /// H.264: the first PPS codes with CABAC (entropy_coding_mode_flag); nil: not H.264 or unreadable.
    var usesCABAC: Bool? {
        guard family == .h264, let pps = parameterSets.first(where: { ($0.first ?? 0) & 0x1f == 8 }) else { return nil }
        var bits = BitReader(Self.unescaped(Array(pps.dropFirst())))
        guard bits.unsignedGolomb() != nil, bits.unsignedGolomb() != nil, let flag = bits.bit() else { return nil }
        return flag
    }

    /// `units` (without prefixes) as one sample in this stream's form.
    func sample(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + lengthSize })
        for u in units {
            for k in stride(from: lengthSize - 1, through: 0, by: -1) { out.append(UInt8((u.count >> (8 * k)) & 0xff)) }
            out += u
        }
        return out
    }

    /// The record's parameter sets, then the sample's own units: what a run's first picture
    /// carries when a decoder may hold another run's. A sample that brings its own sets before
    /// its first picture unit (a stream with parameter sets in band: `avc3`, `hev1`) is kept
    /// as it is: a decoder takes those, and the source's bytes stay the source's.
    func withParameterSets(_ bytes: [UInt8]) -> [UInt8] {
        carriesSequenceSet(bytes) ? bytes : sample(parameterSets) + bytes
    }

    /// The sample holds a sequence parameter set (H.264 type 7, HEVC 33) before its first
    /// picture unit (H.264 types 1–5, HEVC 0–31).
    func carriesSequenceSet(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i + lengthSize < bytes.count {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(bytes[i + k]) }
            let header = i + lengthSize
            guard length > 0, header + length <= bytes.count else { return false }
            let type = family == .h264 ? Int(bytes[header] & 0x1f) : Int(bytes[header] >> 1 & 0x3f)
            switch family {
            case .h264:
                if type == 7 { return true }
                if (1...5).contains(type) { return false }
            case .hevc:
                if type == 33 { return true }
                if type <= 31 { return false }
            }
            i = header + length
        }
        return false
    }

    /// An HEVC sample whose CRA slices (type 21) are made BLA_N_LP (18), its bytes otherwise as
    /// they are; nil where it has none (or is H.264). A copy that starts at a CRA leaves out its
    /// leading pictures (shown before it: the run before shows them), so no leading picture
    /// follows it; as a BLA it also tells a decoder that what it decoded before is not its
    /// reference pictures, and the picture numbering starts again (H.265 7.4.2.2, 8.1.3).
    /// The type is the first byte's bits 1–6 (the other bits, forbidden_zero_bit and the top of
    /// nuh_layer_id, kept); the new byte is not 0, so no emulation prevention changes.
    func brokenLink(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard family == .hevc else { return nil }
        var out = Array(data), i = 0, found = false
        while i + lengthSize < out.count {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(out[i + k]) }
            let header = i + lengthSize
            guard length > 0, header + length <= out.count else { return nil }
            if (out[header] >> 1) & 0x3f == Self.craType {
                out[header] = (out[header] & 0x81) | (Self.blaWithoutLeadingType << 1)
                found = true
            }
            i = header + length
        }
        return found ? out : nil
    }

    static let craType: UInt8 = 21
    static let blaWithoutLeadingType: UInt8 = 18

    /// An encoder's sample (Annex B: units behind 00 00 01 start codes) in this stream's form.
    func fromAnnexB(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var starts: [(unit: Int, code: Int)] = []
        var i = 0
        while i + 2 < data.count {
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
                starts.append((i + 3, i > 0 && data[i - 1] == 0 ? i - 1 : i))
                i += 3
            } else {
                i += 1
            }
        }
        var units: [[UInt8]] = []
        for (k, s) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].code : data.count
            if end > s.unit { units.append(Array(data[s.unit..<end])) }
        }
        return sample(units)
    }

    /// RBSP bytes: emulation prevention (00 00 03) removed.
    static func unescaped(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for x in b {
            if zeros >= 2 && x == 3 { zeros = 0; continue }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }
}

/// Reads bits of an RBSP, most significant first.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func bit() -> Bool? {
        guard position < bytes.count * 8 else { return nil }
        defer { position += 1 }
        return bytes[position / 8] & (0x80 >> UInt8(position % 8)) != 0
    }

    /// ue(v): exp-Golomb.
    mutating func unsignedGolomb() -> Int? {
        var zeros = 0
        while true {
            guard let b = bit() else { return nil }
            if b { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 0
        for _ in 0..<zeros {
            guard let b = bit() else { return nil }
            value = value << 1 | (b ? 1 : 0)
        }
        return (1 << zeros) - 1 + value
    }
}
