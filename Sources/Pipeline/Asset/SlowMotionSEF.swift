import Recipe

/// Samsung's SEF trailer ("Samsung Extension Format"), appended after the MP4 boxes:
///
///     … entry data …  "SEFH" version:u32 count:u32  count × entry reference  tail-length:u32 "SEFT"
///
/// (all numbers little-endian). An entry reference is 12 bytes: 2 reserved, type:u16, the distance
/// from "SEFH" back to the entry's data:u32, its size:u32. An entry's data is 2 reserved bytes,
/// type:u16, name-length:u32, the name, then its payload. Entries are known by name (Samsung's
/// type numbers are not consistent: media3 found the same). `SlowMotion_Data`'s payload is text:
/// segments `start:end:mode` joined by `*`, milliseconds on the file's timeline, the speed divisor
/// being 2^(mode-1).
///
/// Every size is checked against the file before anything is read, and nothing larger than the
/// caps below is read, whatever the trailer says.
enum SlowMotionSEF {
    static let footerLength = 8
    static let headerLength = 12
    static let referenceLength = 12
    /// More entry references than any phone writes (they write 2 to 5).
    static let maxEntries = 4096
    /// Longest entry name read (Samsung's are under 40 characters).
    static let maxNameLength = 256
    /// Largest `SlowMotion_Data` text read (a segment takes some 15 bytes).
    static let maxSegmentText = 64 * 1024
    /// Highest speed mode accepted: ÷128, beyond any phone's 960 fps / 30.
    static let maxSpeedMode = 8
    /// Other entries' names kept for `inspect` (phones write up to 4), and how long each is shown
    /// (escaped): a crafted trailer's 4096 names of 256 bytes would otherwise print megabytes.
    static let maxListedNames = 16
    static let maxListedNameLength = 64

    struct Contents: Equatable {
        var segments: [SlowMotionSegment]
        /// The first `maxListedNames` other entries' names, escaped and cut to `maxListedNameLength`.
        var otherEntries: [String]
        /// How many other entries there are beyond those.
        var otherEntriesLeftOut = 0
    }

    /// The trailer's contents; nil when the file has none (it does not end with "SEFT"). Throws
    /// `.unsupported` naming the file when it has one that cannot be read as it says.
    static func read(_ file: some SlowMotionBytes, path: String) throws(MediaError) -> Contents? {
        func damaged(_ why: String) -> MediaError {
            MediaError(.unsupported, "its Samsung slow-motion trailer (SEF) is damaged: \(why)", file: path)
        }
        let size = file.length
        guard size >= Int64(footerLength), let footer = try file.read(at: size - Int64(footerLength), count: footerLength),
              footer.fourCC(at: 4) == "SEFT", let tailField = footer.uint32LE(at: 0) else { return nil }
        let tailLength = Int64(tailField)
        let tailStart = size - Int64(footerLength) - tailLength
        guard tailLength >= Int64(headerLength), tailStart >= 0 else {
            throw damaged("it says it is \(tailLength + Int64(footerLength)) bytes long, in a file of \(size) bytes")
        }
        let entryCount = (tailLength - Int64(headerLength)) / Int64(referenceLength)
        guard entryCount <= Int64(maxEntries) else { throw damaged("it says it has \(entryCount) entries (at most \(maxEntries) are read)") }
        guard let tail = try file.read(at: tailStart, count: Int(tailLength)) else { throw damaged("it cannot be read") }
        guard tail.fourCC(at: 0) == "SEFH" else { throw damaged("its header does not start with SEFH") }

        var segments: [SlowMotionSegment] = []
        var sawSlowMotion = false
        var others: [String] = []
        var leftOut = 0
        for n in 0..<Int(entryCount) {
            let at = headerLength + n * referenceLength
            guard let distance = tail.uint32LE(at: at + 4), let length = tail.uint32LE(at: at + 8) else { break }
            let place = "entry \(n + 1) of \(entryCount)"
            let start = tailStart - Int64(distance)
            guard start >= 0, Int64(length) >= 8, start + Int64(length) <= tailStart else {
                throw damaged("\(place) (\(length) bytes, \(distance) bytes before the trailer) lies outside the data before the trailer")
            }
            guard let head = try file.read(at: start, count: 8), let nameField = head.uint32LE(at: 4) else { throw damaged("\(place) cannot be read") }
            let nameLength = Int64(nameField)
            guard nameLength <= Int64(length) - 8, nameLength <= Int64(maxNameLength) else {
                throw damaged("\(place) says its name is \(nameLength) bytes long, in an entry of \(length) bytes")
            }
            guard let nameBytes = try file.read(at: start + 8, count: Int(nameLength)) else { throw damaged("\(place) cannot be read") }
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard name == "SlowMotion_Data" else {
                if others.count < maxListedNames { others.append(listed(name)) } else { leftOut += 1 }
                continue
            }
            guard !sawSlowMotion else { throw damaged("it has two SlowMotion_Data entries") }
            sawSlowMotion = true
            let textLength = Int64(length) - 8 - nameLength
            guard textLength <= Int64(maxSegmentText) else {
                throw damaged("its SlowMotion_Data is \(textLength) bytes long (at most \(maxSegmentText) are read)")
            }
            guard let text = try file.read(at: start + 8 + nameLength, count: Int(textLength)) else { throw damaged("\(place) cannot be read") }
            do throws(SegmentTextError) {
                segments = try parseSegments(text)
            } catch {
                throw damaged("its SlowMotion_Data \(error.message)")
            }
        }
        return Contents(segments: segments, otherEntries: others, otherEntriesLeftOut: leftOut)
    }

    /// The file's bytes as `inspect` lists them: escaped, so that they print on one line, inert;
    /// at most `maxListedNameLength` characters, a longer one cut (never inside an escape) and
    /// ended with "…".
    static func listed(_ name: String) -> String {
        let escaped = PlanNotice.printable(name)
        guard escaped.count > maxListedNameLength else { return escaped }
        var cut = ""
        for scalar in name.unicodeScalars {
            let piece = PlanNotice.printable(String(scalar))
            guard cut.count + piece.count < maxListedNameLength else { break }
            cut += piece
        }
        return cut + "…"
    }

    struct SegmentTextError: Error { let message: String }

    /// `88:879:2*1255:1970:4` → 88–879 ms ÷2, 1255–1970 ms ÷8, in time order. Out of order
    /// segments are sorted (media3 sorts them too); overlapping ones, an end not after its start,
    /// a speed mode outside 1…8 or anything not a number are refused: the renderer could not
    /// honour them, and guessing would play the file in a way the phone never meant.
    static func parseSegments(_ bytes: [UInt8]) throws(SegmentTextError) -> [SlowMotionSegment] {
        // Trailing NUL padding is not part of the text.
        let end = bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        let text = String(decoding: bytes[0..<end], as: UTF8.self)
        guard !text.isEmpty else { return [] }
        var segments: [SlowMotionSegment] = []
        for (n, item) in text.split(separator: "*", omittingEmptySubsequences: false).enumerated() {
            let fields = item.split(separator: ":", omittingEmptySubsequences: false)
            let shown = "segment \(n + 1) '\(PlanNotice.printable(String(item.prefix(40))))'"
            guard fields.count == 3 else { throw SegmentTextError(message: "\(shown) is not start:end:speed") }
            func number(_ s: Substring) -> Int64? {
                guard !s.isEmpty, s.count <= 15, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return Int64(s)
            }
            guard let start = number(fields[0]), let stop = number(fields[1]), let mode = number(fields[2]) else {
                throw SegmentTextError(message: "\(shown) holds something that is not a whole number of milliseconds")
            }
            guard start < stop else { throw SegmentTextError(message: "\(shown) does not end after it starts") }
            guard mode >= 1, mode <= Int64(maxSpeedMode) else {
                throw SegmentTextError(message: "\(shown) has speed mode \(mode); Samsung writes 1 to \(maxSpeedMode) (÷1 to ÷\(1 << (maxSpeedMode - 1)))")
            }
            segments.append(SlowMotionSegment(startMilliseconds: start, endMilliseconds: stop, speedDivisor: 1 << Int(mode - 1)))
        }
        segments.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        for (a, b) in zip(segments, segments.dropFirst()) where b.start < a.end {
            throw SegmentTextError(message: "segments \(a) and \(b) overlap")
        }
        return segments
    }
}
