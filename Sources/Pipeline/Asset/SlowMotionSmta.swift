import Recipe

/// Samsung's `smta` box, in `moov/udta` (where media3 reads it):
///
///     smta (full box) { saut { author:4  key:1 value:1  key:1 value:1 }  [srfr { rate:Q16.16 }] }
///
/// key 0 is the recording mode, key 1 the SVC temporal layer count (in either order). Modes 12 and
/// 13 mean 240 and 120 fps capture; mode 21 (HEVC) keeps its capture rate in the `srfr` box that
/// follows. Other modes (7: super slow motion, …) say no capture rate.
enum SlowMotionSmta {
    struct Contents: Equatable {
        var recordingMode: Int?
        var temporalLayerCount: Int?
        var captureRate: FrameRate?
    }

    /// Largest `smta` box read (Samsung's are 40 bytes).
    static let maxBoxLength = 4096
    /// Boxes looked at on one level before giving up (a fragmented file has one per fragment;
    /// `moov` comes before them).
    static let maxBoxesPerLevel = 10_000

    /// The `smta` box's contents; nil when the file has none. Throws `.unsupported` naming the
    /// file when it has one that contradicts itself.
    static func read(_ file: some SlowMotionBytes, path: String) throws(MediaError) -> Contents? {
        guard let moov = try child("moov", of: 0..<file.length, in: file),
              let udta = try child("udta", of: moov.content, in: file),
              let smta = try child("smta", of: udta.content, in: file) else { return nil }
        func damaged(_ why: String) -> MediaError {
            MediaError(.unsupported, "its Samsung slow-motion box (smta) is damaged: \(why)", file: path)
        }
        let length = smta.box.upperBound - smta.box.lowerBound
        guard length <= Int64(maxBoxLength) else { throw damaged("it is \(length) bytes long (at most \(maxBoxLength) are read)") }
        guard let box = try file.read(at: smta.box.lowerBound, count: Int(length)) else { throw damaged("it cannot be read") }
        return try parse(box, headerLength: Int(smta.content.lowerBound - smta.box.lowerBound), damaged: damaged)
    }

    /// `box`: the whole `smta` box, its header (8 bytes, or 16 with a 64-bit size) included.
    static func parse(_ box: [UInt8], headerLength: Int = 8, damaged: (String) -> MediaError) throws(MediaError) -> Contents {
        var contents = Contents()
        var at = headerLength + 4  // box header + version and flags (4)
        var sawSaut = false
        while at + 8 <= box.count {
            guard let sizeField = box.uint32BE(at: at), let type = box.fourCC(at: at + 4) else { break }
            let size = Int(sizeField)
            guard size >= 8, size <= box.count - at else { throw damaged("its '\(type)' box is \(size) bytes long, with \(box.count - at) bytes left") }
            switch type {
            case "saut":
                guard size >= 16 else { throw damaged("its 'saut' box is \(size) bytes long (16 needed)") }
                sawSaut = true
                for pair in 0..<2 {
                    let key = box[at + 12 + 2 * pair], value = Int(box[at + 13 + 2 * pair])
                    if key == 0 { contents.recordingMode = value }
                    if key == 1 { contents.temporalLayerCount = value == 0 ? nil : value }
                }
            case "srfr" where sawSaut && contents.recordingMode == 21:
                guard size >= 12, let q16 = box.uint32BE(at: at + 8) else { throw damaged("its 'srfr' box is \(size) bytes long (12 needed)") }
                // Q16.16; media3 keeps the integer part: the rate is a whole number of fps.
                let fps = Int32(clamping: q16 >> 16)
                if fps > 0 { contents.captureRate = FrameRate(frames: fps) }
            default:
                break
            }
            at += size
        }
        switch contents.recordingMode {
        case 12: contents.captureRate = FrameRate(frames: 240)
        case 13: contents.captureRate = FrameRate(frames: 120)
        default: break
        }
        return contents
    }

    /// The byte ranges (whole box, and after its header) of the first `type` box directly inside
    /// `parent` (a range of the file), or nil. A box header that points outside its parent ends
    /// the walk: FFmpeg has read the file, so this is damage beyond what it uses, not a
    /// slow-motion question.
    static func child(_ type: String, of parent: Range<Int64>, in file: some SlowMotionBytes) throws(MediaError) -> (box: Range<Int64>, content: Range<Int64>)? {
        var at = parent.lowerBound
        var seen = 0
        while at + 8 <= parent.upperBound, seen < maxBoxesPerLevel {
            seen += 1
            guard let head = try file.read(at: at, count: 8), let size32 = head.uint32BE(at: 0), let name = head.fourCC(at: 4) else { return nil }
            var size = Int64(size32)
            var header: Int64 = 8
            if size32 == 1 {
                header = 16
                guard let large = try file.read(at: at + 8, count: 8), let wide = large.uint64BE(at: 0), wide <= UInt64(Int64.max) else { return nil }
                size = Int64(wide)
            } else if size32 == 0 {
                size = parent.upperBound - at  // to the end of the parent
            }
            guard size >= header, size <= parent.upperBound - at else { return nil }
            if name == type { return (at..<at + size, at + header..<at + size) }
            at += size
        }
        return nil
    }
}
