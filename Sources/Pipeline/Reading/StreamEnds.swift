import Foundation

/// How Ogg and MPEG program streams, which state no length, show that they end where they were
/// meant to (issue 23 item 17): a whole Ogg stream ends each logical stream with an end-of-stream
/// page; an MPEG program stream cut off between two packs ends inside a picture — its slices stop
/// before the picture's last row — unless it carries the program end code (0x000001B9: mplex and
/// DVD authoring write it, ffmpeg does not).
enum StreamEnds {
    /// The last bytes of the file read for its end (an Ogg page is at most 65,307 bytes).
    static let window = 256 << 10

    static func tail(_ path: String, _ count: Int = window) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let n = Int(min(Int64(count), Int64(st.st_size)))
        var bytes = [UInt8](repeating: 0, count: n)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, n, off_t(Int64(st.st_size) - Int64(n))) }
        return got == n ? bytes : nil
    }
}

/// Ogg pages: "OggS", version 0, header type (0x04: end of stream), granule position, serial,
/// sequence number, CRC, then a segment table giving the body's length.
enum OggPages {
    /// The logical streams (serial numbers) whose last whole page in the file's last bytes does
    /// not end their stream; empty: each ends; nil: no whole page there to judge by. Junk
    /// between pages (and after the last, such as a tag) is passed over: a page counts only
    /// where its checksum holds, so a page cut short does not.
    static func unfinished(_ path: String) -> [UInt32]? {
        guard let b = StreamEnds.tail(path) else { return nil }
        var lastFlags: [UInt32: UInt8] = [:]
        var i = 0
        while i + 27 <= b.count {
            guard b[i] == 0x4F, b[i + 1] == 0x67, b[i + 2] == 0x67, b[i + 3] == 0x53, b[i + 4] == 0,
                  let length = pageLength(b, at: i), crc(b, at: i, length: length) else {
                i += 1
                continue
            }
            let serial = UInt32(b[i + 14]) | UInt32(b[i + 15]) << 8 | UInt32(b[i + 16]) << 16 | UInt32(b[i + 17]) << 24
            lastFlags[serial] = b[i + 5]
            i += length
        }
        guard !lastFlags.isEmpty else { return nil }
        return lastFlags.filter { $0.value & 0x04 == 0 }.map(\.key).sorted()
    }

    /// The page's whole length, where it lies within `b`.
    private static func pageLength(_ b: [UInt8], at i: Int) -> Int? {
        let segments = Int(b[i + 26])
        guard i + 27 + segments <= b.count else { return nil }
        let body = b[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
        let length = 27 + segments + body
        return i + length <= b.count ? length : nil
    }

    /// Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected, from 0) over the page, its own field
    /// (bytes 22–25) taken as zero, against that field.
    private static func crc(_ b: [UInt8], at i: Int, length: Int) -> Bool {
        var c: UInt32 = 0
        for k in 0..<length {
            let byte = (22..<26).contains(k) ? 0 : b[i + k]
            c = (c << 8) ^ table[Int((c >> 24) ^ UInt32(byte))]
        }
        let stored = UInt32(b[i + 22]) | UInt32(b[i + 23]) << 8 | UInt32(b[i + 24]) << 16 | UInt32(b[i + 25]) << 24
        return c == stored
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var r = UInt32(n) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }
}

/// An MPEG-1/2 video picture's slices: each starts with a code naming its macroblock row
/// (0x01…0xAF), so a picture cut short lacks its last rows' slices.
enum MPEGPicture {
    /// (the lowest row a slice of the last picture in `bytes` starts, the rows such a picture
    /// has at least) for a picture `height` lines tall; nil where it cannot tell (no picture
    /// start, or a height whose rows need the slice code's extension).
    static func rows(_ bytes: UnsafeBufferPointer<UInt8>, height: Int) -> (last: Int, rows: Int)? {
        guard height > 0, height <= 2800 else { return nil }
        var last: Int?
        var fieldPicture = false
        var i = 0
        while i + 3 < bytes.count {
            guard bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 else { i += 1; continue }
            let code = Int(bytes[i + 3])
            switch code {
            case 0x00: last = 0; fieldPicture = false  // a picture starts
            case 0x01...0xAF where last != nil: last = max(last!, code)
            // Picture coding extension: its picture_structure (3: frame; 1, 2: one field).
            case 0xB5 where i + 6 < bytes.count && bytes[i + 4] >> 4 == 8: fieldPicture = bytes[i + 6] & 3 != 3
            default: break
            }
            i += 4
        }
        guard let last else { return nil }
        // A frame picture of an interlaced sequence may have one row more (its height rounded
        // to 32 lines): the fewer is required, so a whole one is never taken for a cut.
        return (last, fieldPicture ? (height + 31) / 32 : (height + 15) / 16)
    }

    /// Whether the program end code (0x000001B9) is among the file's last bytes.
    static func hasEndCode(_ path: String) -> Bool {
        guard let b = StreamEnds.tail(path, 64 << 10), b.count >= 4 else { return false }
        return (0...(b.count - 4)).contains { b[$0] == 0 && b[$0 + 1] == 0 && b[$0 + 2] == 1 && b[$0 + 3] == 0xB9 }
    }
}
