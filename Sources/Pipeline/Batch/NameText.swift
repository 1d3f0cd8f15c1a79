/// File names as one line of text, losslessly: a name may hold any byte but NUL and `/` (a
/// newline that would split a summary line and forge the next one, bytes that are not UTF-8 from
/// an old SMB or FTP upload). Backslash is written `\\`; a newline, carriage return and tab
/// `\n`, `\r`, `\t`; any other control character below U+0080, and each byte that is not part of
/// valid UTF-8, `\xNN` (two hex digits); a C1 control or a line or paragraph separator
/// `\u{NNNN}`. Everything else stays as it is, so an ordinary name reads unchanged, and the
/// escaped text maps back to one byte sequence (docs/batch.md, "Names").
public enum NameText {
    /// The name's bytes, escaped.
    public static func escaped<C: Collection>(bytes: C) -> String where C.Element == UInt8 {
        var out = ""
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let length = validSequenceLength(bytes, at: i)
            if length == 0 {
                out += hex(bytes[i])
                i = bytes.index(after: i)
                continue
            }
            let end = bytes.index(i, offsetBy: length)
            for scalar in String(decoding: bytes[i..<end], as: UTF8.self).unicodeScalars { out += escaped(scalar) }
            i = end
        }
        return out
    }

    /// A String's text, escaped (its bytes are UTF-8 by construction).
    public static func escaped(_ text: String) -> String { text.unicodeScalars.map(escaped).joined() }

    static func escaped(_ s: Unicode.Scalar) -> String {
        switch s.value {
        case 0x5C: return "\\\\"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0..<0x20, 0x7F: return hex(UInt8(s.value))
        case 0x80..<0xA0, 0x2028, 0x2029: return "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
        default: return String(s)
        }
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
    }

    /// The bytes are valid UTF-8 text as they are.
    public static func isUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let n = validSequenceLength(bytes, at: i)
            if n == 0 { return false }
            i = bytes.index(i, offsetBy: n)
        }
        return true
    }

    /// The length of the well-formed UTF-8 sequence starting at `i` (RFC 3629: no overlongs,
    /// no surrogates, nothing above U+10FFFF), or 0 when there is none.
    static func validSequenceLength<C: Collection>(_ b: C, at i: C.Index) -> Int where C.Element == UInt8 {
        let lead = b[i]
        func cont(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            guard let j = b.index(i, offsetBy: k, limitedBy: b.endIndex), j != b.endIndex else { return false }
            return range.contains(b[j])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0...0xBF) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80...0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90...0xBF) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80...0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }
}
