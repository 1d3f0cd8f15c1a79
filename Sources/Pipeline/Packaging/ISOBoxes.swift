import Foundation
import Recipe

/// One ISO base media box (ISO/IEC 14496-12 §4.2): where it is and what it holds.
struct ISOBox {
    let type: String
    /// Where the box starts, its header included, and its whole size.
    let offset: Int
    let size: Int
    let headerSize: Int
    var end: Int { offset + size }
    var payload: Range<Int> { (offset + headerSize)..<end }
}

/// Reads boxes: the top level of a file through its descriptor (an mdat may be gigabytes: only
/// headers are read), and the children of a box already in memory (moov, moof).
enum ISOBoxes {
    /// The top-level boxes of the file open on `fd`, in order.
    static func topLevel(_ fd: Int32, length: Int, file: String) throws(MediaError) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var at = 0
        var header = [UInt8](repeating: 0, count: 16)
        while at < length {
            let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(at)) }
            guard got >= 8 else { throw malformed("a box header at byte \(at) is cut short", file) }
            guard let box = box(header[0..<got], at: at, base: 0, limit: length - at) else {
                throw malformed("the box at byte \(at) has a size that does not fit the file", file)
            }
            boxes.append(box)
            at = box.end
        }
        return boxes
    }

    /// The boxes in `bytes[range]`, in order (offsets into `bytes`); nil when one does not fit.
    static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [ISOBox]? {
        var boxes: [ISOBox] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            guard let box = box(bytes[at..<min(at + 16, range.upperBound)], at: at, base: at, limit: range.upperBound - at) else { return nil }
            boxes.append(box)
            at = box.end
        }
        return at == range.upperBound ? boxes : nil
    }

    /// The first child of type `type` in `bytes[range]`.
    static func child(_ type: String, _ bytes: [UInt8], _ range: Range<Int>) -> ISOBox? {
        children(bytes, range)?.first { $0.type == type }
    }

    /// The box whose header starts `header` (at file offset `at`), at most `limit` bytes long.
    private static func box(_ header: ArraySlice<UInt8>, at: Int, base: Int, limit: Int) -> ISOBox? {
        let h = Array(header)
        guard h.count >= 8 else { return nil }
        let type = String(decoding: h[4..<8], as: UTF8.self)
        var size = Int(be32(h, 0)), headerSize = 8
        if size == 1 {
            guard h.count >= 16 else { return nil }
            size = Int(clamping: be64(h, 8)); headerSize = 16
        } else if size == 0 {
            size = limit  // to the end
        }
        guard size >= headerSize, size <= limit else { return nil }
        return ISOBox(type: type, offset: at, size: size, headerSize: headerSize)
    }

    static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
    static func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }

    /// `length` bytes of the file at `offset`.
    static func read(_ fd: Int32, offset: Int, length: Int, file: String) throws(MediaError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, length - done, off_t(offset + done)) }
            if got < 0 {
                let err = errno
                throw MediaError(.io, "cannot read the written rendition: \(String(cString: strerror(err)))", file: file, code: .errno(err))
            }
            guard got > 0 else { throw malformed("it ends inside a box", file) }
            done += got
        }
        return bytes
    }

    static func malformed(_ why: String, _ file: String) -> MediaError {
        MediaError(.processing, "the fragmented MP4 written for the package cannot be split: \(why)", file: file)
    }
}
