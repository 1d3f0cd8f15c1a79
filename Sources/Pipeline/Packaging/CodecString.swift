/// A sample entry's codec as RFC 6381 names it in HLS `CODECS` and DASH `codecs`, read from the
/// parameter sets the encoder wrote (avcC, hvcC, esds), never from the settings asked for.
enum CodecString {
    /// `entry` is a sample entry box in `b` (stsd's child); nil: a codec this does not name.
    static func of(_ b: [UInt8], entry: ISOBox, handler: String) -> String? {
        // The sample entry's own fields before its child boxes: 78 bytes for video (ISO/IEC
        // 14496-12 §12.1.3), 28 for sound (§12.2.3, version 0).
        let fields = handler == "vide" ? 78 : handler == "soun" ? 28 : 0
        guard fields > 0, entry.payload.lowerBound + fields <= entry.end,
              let inside = ISOBoxes.children(b, (entry.payload.lowerBound + fields)..<entry.end) else { return nil }
        switch entry.type {
        case "avc1", "avc3":
            guard let avcC = inside.first(where: { $0.type == "avcC" }), avcC.payload.count >= 4 else { return nil }
            return avc(entry.type, Array(b[avcC.payload]))
        case "hvc1", "hev1":
            guard let hvcC = inside.first(where: { $0.type == "hvcC" }), hvcC.payload.count >= 13 else { return nil }
            return hevc(entry.type, Array(b[hvcC.payload]))
        case "mp4a":
            guard let esds = inside.first(where: { $0.type == "esds" }) else { return nil }
            return mp4a(Array(b[esds.payload]))
        default:
            return nil
        }
    }

    /// `avc1.PPCCLL`: profile_idc, the constraint flags and level_idc (avcC's bytes 1–3, the SPS's).
    static func avc(_ type: String, _ c: [UInt8]) -> String {
        type + "." + c[1...3].map { hex($0, width: 2) }.joined()
    }

    /// `hvc1.P.C.TL.B…` (ISO/IEC 14496-15 Annex E.3): the profile space and profile, the
    /// compatibility flags bit-reversed, the tier and level, the constraint bytes without trailing zeros.
    static func hevc(_ type: String, _ c: [UInt8]) -> String {
        let space = ["", "A", "B", "C"][Int(c[1] >> 6)]
        let tier = c[1] & 0x20 != 0 ? "H" : "L"
        let profile = c[1] & 0x1F
        let flags = UInt32(c[2]) << 24 | UInt32(c[3]) << 16 | UInt32(c[4]) << 8 | UInt32(c[5])
        var constraints = Array(c[6...11])
        while constraints.last == 0 { constraints.removeLast() }
        let parts = ["\(space)\(profile)", String(flags.bitReversed, radix: 16, uppercase: true), "\(tier)\(c[12])"]
            + constraints.map { String($0, radix: 16, uppercase: true) }
        return type + "." + parts.joined(separator: ".")
    }

    /// `mp4a.OO.A`: the decoder config's object type (0x40: MPEG-4 audio) and the
    /// AudioSpecificConfig's audio object type (2: AAC-LC).
    static func mp4a(_ esds: [UInt8]) -> String? {
        var at = 4  // version and flags
        func descriptor(_ tag: UInt8) -> Range<Int>? {
            guard at < esds.count, esds[at] == tag else { return nil }
            at += 1
            var size = 0
            for _ in 0..<4 {
                guard at < esds.count else { return nil }
                let byte = esds[at]; at += 1
                size = size << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            guard at + size <= esds.count else { return nil }
            return at..<(at + size)
        }
        guard let es = descriptor(0x03) else { return nil }
        let flags = esds[es.lowerBound + 2]
        at = es.lowerBound + 3
        if flags & 0x80 != 0 { at += 2 }
        if flags & 0x40 != 0, at < esds.count { at += 1 + Int(esds[at]) }
        if flags & 0x20 != 0 { at += 2 }
        guard let config = descriptor(0x04), config.count >= 13 else { return nil }
        let objectType = esds[config.lowerBound]
        at = config.lowerBound + 13
        guard objectType == 0x40 else { return "mp4a." + hex(objectType, width: 2) }
        guard let specific = descriptor(0x05), !specific.isEmpty else { return nil }
        var aot = Int(esds[specific.lowerBound] >> 3)
        if aot == 31, specific.count >= 2 {
            aot = 32 + Int((esds[specific.lowerBound] & 0x07) << 3 | esds[specific.lowerBound + 1] >> 5)
        }
        return "mp4a.40.\(aot)"
    }

    private static func hex(_ v: UInt8, width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}

private extension UInt32 {
    var bitReversed: UInt32 {
        var v = self, r: UInt32 = 0
        for _ in 0..<32 { r = r << 1 | (v & 1); v >>= 1 }
        return r
    }
}
