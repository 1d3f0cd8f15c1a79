@testable import Pipeline
import Recipe
import Testing

/// Samsung SEF trailers and `smta` boxes made byte by byte: what a good one gives, and what each
/// kind of damage or lie gives (docs/slow-motion.md lists the same).
@Suite("Slow-motion metadata: SEF trailer and smta box")
struct SlowMotionSEFTests {
    struct Entry { var type: UInt16; var name: String; var payload: [UInt8] }

    /// `prefix`, the entries' data, then the trailer, laid out as Samsung phones write it.
    /// Returns the bytes and the offsets of each entry reference's fields (for tests to corrupt).
    static func sef(prefix: [UInt8] = Array(repeating: 0xAB, count: 64), _ entries: [Entry]) -> (bytes: [UInt8], references: [Int]) {
        var bytes = prefix
        var starts: [Int] = []
        for e in entries {
            starts.append(bytes.count)
            bytes += [0, 0] + le16(e.type) + le32(UInt32(e.name.utf8.count)) + Array(e.name.utf8) + e.payload
        }
        let tailStart = bytes.count
        bytes += Array("SEFH".utf8) + le32(106) + le32(UInt32(entries.count))
        var references: [Int] = []
        for (e, start) in zip(entries, starts) {
            references.append(bytes.count)
            let size = 8 + e.name.utf8.count + e.payload.count
            bytes += [0, 0] + le16(e.type) + le32(UInt32(tailStart - start)) + le32(UInt32(size))
        }
        bytes += le32(UInt32(bytes.count - tailStart)) + Array("SEFT".utf8)
        return (bytes, references)
    }

    static func slowMotion(_ text: String) -> Entry { Entry(type: 0x0890, name: "SlowMotion_Data", payload: Array(text.utf8)) }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xff) } }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xff) } }
    static func put(_ v: UInt32, at i: Int, in bytes: inout [UInt8]) { bytes.replaceSubrange(i..<i + 4, with: le32(v)) }

    static func read(_ bytes: [UInt8]) throws(MediaError) -> SlowMotionSEF.Contents? {
        try SlowMotionSEF.read(SlowMotionMemory(bytes: bytes), path: "clip.mp4")
    }

    static func damage(_ bytes: [UInt8]) -> String? {
        do { _ = try read(bytes); return nil } catch { return error.description }
    }

    static func ms(_ a: Int64, _ b: Int64, _ d: Int) -> SlowMotionSegment { SlowMotionSegment(startMilliseconds: a, endMilliseconds: b, speedDivisor: d) }

    @Test("a trailer like the phone's gives its segments (speed mode m is ÷2^(m-1)) and names its other entries")
    func good() throws {
        let (bytes, _) = Self.sef([Entry(type: 0x7ffe, name: "Invalid_Data", payload: Array(repeating: 0, count: 21)),
                                   Self.slowMotion("88:879:2*1255:1970:4")])
        let c = try #require(try Self.read(bytes))
        #expect(c.segments == [Self.ms(88, 879, 2), Self.ms(1255, 1970, 8)])
        #expect(c.otherEntries == ["Invalid_Data"])
    }

    @Test("entries are known by name, not by their (inconsistent) type number; trailing NULs end the text")
    func byName() throws {
        let (bytes, _) = Self.sef([Entry(type: 0x0890, name: "Super_SlowMotion_Data", payload: Array("997:13530:1197:1!1".utf8)),
                                   Entry(type: 0x1234, name: "SlowMotion_Data", payload: Array("0:1000:3".utf8) + [0, 0, 0])])
        let c = try #require(try Self.read(bytes))
        #expect(c.segments == [Self.ms(0, 1000, 4)])
        #expect(c.otherEntries == ["Super_SlowMotion_Data"])
    }

    @Test("a file without SEFT at its end has no trailer; a file cut inside its trailer looks the same")
    func none() throws {
        #expect(try Self.read(Array(repeating: 7, count: 100)) == nil)
        #expect(try Self.read([]) == nil)
        let (bytes, _) = Self.sef([Self.slowMotion("88:879:2")])
        #expect(try Self.read(Array(bytes.dropLast(3))) == nil)
    }

    @Test("segments written out of order are sorted")
    func unsorted() throws {
        let (bytes, _) = Self.sef([Self.slowMotion("1255:1970:4*88:879:2")])
        #expect(try Self.read(bytes)?.segments == [Self.ms(88, 879, 2), Self.ms(1255, 1970, 8)])
    }

    @Test("an empty SlowMotion_Data has no segments")
    func emptyText() throws {
        let (bytes, _) = Self.sef([Self.slowMotion("")])
        #expect(try Self.read(bytes)?.segments == [])
    }

    @Test("a trailer longer than the file, or too short for its header, is damaged")
    func truncatedTrailer() {
        let (bytes, _) = Self.sef([Self.slowMotion("88:879:2")])
        let tail = Array(bytes.suffix(20))
        #expect(Self.damage(tail) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: it says it is 32 bytes long, in a file of 20 bytes")
        var short = bytes
        Self.put(4, at: bytes.count - 8, in: &short)
        #expect(Self.damage(short) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: it says it is 12 bytes long, in a file of \(bytes.count) bytes")
        var huge = bytes
        Self.put(UInt32.max, at: bytes.count - 8, in: &huge)
        #expect(Self.damage(huge) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: it says it is 4294967303 bytes long, in a file of \(bytes.count) bytes")
    }

    @Test("a header that is not SEFH is damage")
    func badHeader() {
        var (bytes, refs) = Self.sef([Self.slowMotion("88:879:2")])
        bytes[refs[0] - 12] = UInt8(ascii: "X")
        #expect(Self.damage(bytes) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: its header does not start with SEFH")
    }

    @Test("an entry that points before the file, into the trailer, or past it is damaged, and nothing is read from there")
    func entryOutside() {
        let (good, refs) = Self.sef([Self.slowMotion("88:879:2")])
        var before = good
        Self.put(4_000_000_000, at: refs[0] + 4, in: &before)
        #expect(Self.damage(before) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 (31 bytes, 4000000000 bytes before the trailer) lies outside the data before the trailer")
        var into = good
        Self.put(1000, at: refs[0] + 8, in: &into)
        #expect(Self.damage(into) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 (1000 bytes, 31 bytes before the trailer) lies outside the data before the trailer")
        var tiny = good
        Self.put(4, at: refs[0] + 8, in: &tiny)
        #expect(Self.damage(tiny) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 (4 bytes, 31 bytes before the trailer) lies outside the data before the trailer")
        var name = good
        Self.put(200, at: good.count - 8 - 12 - 12 - 31 + 4, in: &name)  // the entry's name length
        #expect(Self.damage(name) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 says its name is 200 bytes long, in an entry of 31 bytes")
    }

    @Test("a trailer claiming more entries than any phone writes is refused before its table is read")
    func tooManyEntries() {
        var bytes = Array(repeating: UInt8(0), count: 12 * 5000 + 100)
        let tailLength = 12 + 12 * 5000
        bytes.replaceSubrange(bytes.count - 8..<bytes.count, with: Self.le32(UInt32(tailLength)) + Array("SEFT".utf8))
        #expect(Self.damage(bytes) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: it says it has 5000 entries (at most 4096 are read)")
    }

    @Test("slow-motion text over 64 KiB is refused, not read")
    func hugeText() throws {
        let (bytes, _) = Self.sef([Self.slowMotion(String(repeating: "1", count: 70_000))])
        let counter = CountingBytes(bytes: bytes)
        #expect(throws: MediaError(.unsupported, "its Samsung slow-motion trailer (SEF) is damaged: its SlowMotion_Data is 70000 bytes long (at most 65536 are read)", file: "clip.mp4")) {
            try SlowMotionSEF.read(counter, path: "clip.mp4")
        }
        #expect(counter.total < 200)
    }

    @Test("reading the corpus-like trailer reads only the trailer and the entries' heads")
    func boundedReads() throws {
        let (bytes, _) = Self.sef(prefix: Array(repeating: 0, count: 1_000_000), [Entry(type: 0x7ffe, name: "Invalid_Data", payload: Array(repeating: 0, count: 21)),
                                                                                    Self.slowMotion("88:879:2*1255:1970:4")])
        let counter = CountingBytes(bytes: bytes)
        _ = try SlowMotionSEF.read(counter, path: "clip.mp4")
        #expect(counter.total == 8 + 36 + 8 + 12 + 8 + 15 + 20)
    }

    @Test("segment text that lies gives a clear error", arguments: [
        ("88:879:0", "segment 1 '88:879:0' has speed mode 0; Samsung writes 1 to 8 (÷1 to ÷128)"),
        ("88:879:9", "segment 1 '88:879:9' has speed mode 9; Samsung writes 1 to 8 (÷1 to ÷128)"),
        ("879:88:2", "segment 1 '879:88:2' does not end after it starts"),
        ("500:500:2", "segment 1 '500:500:2' does not end after it starts"),
        ("100:500:2*400:900:4", "segments 0.100s–0.500s ÷2 and 0.400s–0.900s ÷8 overlap"),
        ("88:879", "segment 1 '88:879' is not start:end:speed"),
        ("88:879:2*", "segment 2 '' is not start:end:speed"),
        ("88:8a9:2", "segment 1 '88:8a9:2' holds something that is not a whole number of milliseconds"),
        ("-5:879:2", "segment 1 '-5:879:2' holds something that is not a whole number of milliseconds"),
        ("1:99999999999999999999:2", "segment 1 '1:99999999999999999999:2' holds something that is not a whole number of milliseconds"),
    ])
    func lyingText(text: String, why: String) {
        let (bytes, _) = Self.sef([Self.slowMotion(text)])
        #expect(Self.damage(bytes) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: its SlowMotion_Data \(why)")
    }

    @Test("two SlowMotion_Data entries contradict each other")
    func twoEntries() {
        let (bytes, _) = Self.sef([Self.slowMotion("88:879:2"), Self.slowMotion("1000:2000:3")])
        #expect(Self.damage(bytes) == "clip.mp4: its Samsung slow-motion trailer (SEF) is damaged: it has two SlowMotion_Data entries")
    }

    @Test("3000 mutations of a Samsung-like file: each reads or is refused naming the file, never traps")
    func mutations() throws {
        let (trailer, _) = Self.sef(prefix: Self.mp4(smta: Self.smta(Self.saut([0, 12, 1, 4]))),
                                    [Entry(type: 0x7ffe, name: "Invalid_Data", payload: [0, 0, 0]), Self.slowMotion("88:879:2*1255:1970:4")])
        var random = SeededRandom(seed: 12)
        var read = 0, refused = 0
        for _ in 0..<3000 {
            var bytes = trailer
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let i = Int.random(in: 0..<bytes.count, using: &random)
                bytes[i] = Int.random(in: 0..<3, using: &random) == 0 ? 0xff : UInt8.random(in: 0...255, using: &random)
            }
            if Int.random(in: 0..<8, using: &random) == 0 { bytes.removeLast(Int.random(in: 1...40, using: &random)) }
            do {
                _ = try SlowMotionReader.read(SlowMotionMemory(bytes: bytes), path: "clip.mp4", metadata: [:])
                read += 1
            } catch {
                #expect(error.kind == .unsupported && error.file == "clip.mp4")
                refused += 1
            }
        }
        #expect(read > 0 && refused > 0)
    }

    // MARK: smta

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(UInt32(8 + body.count)) + Array(type.utf8) + body }

    static func mp4(smta: [UInt8]) -> [UInt8] {
        box("ftyp", Array("mp42".utf8) + [0, 0, 0, 0]) + box("moov", box("mvhd", Array(repeating: 0, count: 100)) + box("udta", box("SDLN", [0, 0, 0, 0]) + smta)) + box("mdat", [1, 2, 3])
    }

    static func smta(_ children: [UInt8]) -> [UInt8] { box("smta", [0, 0, 0, 0] + children) }
    static func saut(_ pairs: [UInt8]) -> [UInt8] { box("saut", [0, 0, 0, 0] + pairs) }

    static func readSmta(_ bytes: [UInt8]) throws(MediaError) -> SlowMotionSmta.Contents? {
        try SlowMotionSmta.read(SlowMotionMemory(bytes: bytes), path: "clip.mp4")
    }

    @Test("smta: mode 12 is 240 fps, 13 is 120 fps, 21 takes srfr's rate; the layer count is key 1, in either order")
    func smtaModes() throws {
        #expect(try Self.readSmta(Self.mp4(smta: Self.smta(Self.saut([0, 12, 1, 4])))) == .init(recordingMode: 12, temporalLayerCount: 4, captureRate: FrameRate(frames: 240)))
        #expect(try Self.readSmta(Self.mp4(smta: Self.smta(Self.saut([1, 3, 0, 13])))) == .init(recordingMode: 13, temporalLayerCount: 3, captureRate: FrameRate(frames: 120)))
        let hevc = Self.smta(Self.saut([0, 21, 1, 4]) + Self.box("srfr", [0x01, 0xe0, 0x80, 0x00]))  // 480.5 in Q16.16
        #expect(try Self.readSmta(Self.mp4(smta: hevc)) == .init(recordingMode: 21, temporalLayerCount: 4, captureRate: FrameRate(frames: 480)))
        // The super slow motion sample: mode 7 says no capture rate, whatever srfr says.
        let superSlow = Self.smta(Self.saut([0, 7, 1, 6]) + Self.box("srfr", [0x00, 0x1e, 0, 0]))
        #expect(try Self.readSmta(Self.mp4(smta: superSlow)) == .init(recordingMode: 7, temporalLayerCount: 6, captureRate: nil))
        #expect(try Self.readSmta(Self.mp4(smta: Self.smta(Self.saut([0, 12, 1, 0])))) == .init(recordingMode: 12, temporalLayerCount: nil, captureRate: FrameRate(frames: 240)))
    }

    @Test("no moov, udta or smta: no smta contents; box sizes that point outside end the walk quietly")
    func smtaAbsent() throws {
        #expect(try Self.readSmta(Self.box("ftyp", [0, 0, 0, 0]) + Self.box("mdat", [1])) == nil)
        #expect(try Self.readSmta(Self.box("ftyp", [0, 0, 0, 0]) + Self.box("moov", Self.box("mvhd", [0]))) == nil)
        var lying = Self.mp4(smta: Self.smta(Self.saut([0, 12, 1, 4])))
        lying.replaceSubrange(0..<4, with: Self.be32(1_000_000))  // ftyp claims to run past the file
        #expect(try Self.readSmta(lying) == nil)
        #expect(try Self.readSmta([]) == nil)
    }

    @Test("an smta box that contradicts itself is damage", arguments: [
        (SlowMotionSEFTests.smta(SlowMotionSEFTests.box("saut", [0, 0, 0, 0, 0, 12])), "its 'saut' box is 14 bytes long (16 needed)"),
        (SlowMotionSEFTests.box("smta", [0, 0, 0, 0] + SlowMotionSEFTests.be32(400) + Array("saut".utf8) + [0, 0, 0, 0, 0, 12, 1, 4]), "its 'saut' box is 400 bytes long, with 16 bytes left"),
        (SlowMotionSEFTests.smta(SlowMotionSEFTests.saut([0, 21, 1, 4]) + SlowMotionSEFTests.box("srfr", [0])), "its 'srfr' box is 9 bytes long (12 needed)"),
        (SlowMotionSEFTests.smta(Array(repeating: 0, count: 5000)), "it is 5012 bytes long (at most 4096 are read)"),
    ])
    func smtaDamaged(smta: [UInt8], why: String) {
        #expect(throws: MediaError(.unsupported, "its Samsung slow-motion box (smta) is damaged: \(why)", file: "clip.mp4")) {
            try Self.readSmta(Self.mp4(smta: smta))
        }
    }

    @Test("a moov with a 64-bit size is walked from after its 16-byte header")
    func largeSize() throws {
        let inner = Self.box("udta", Self.smta(Self.saut([0, 12, 1, 4])))
        let moov = Self.be32(1) + Array("moov".utf8) + [0, 0, 0, 0] + Self.be32(UInt32(16 + inner.count)) + inner
        #expect(try Self.readSmta(Self.box("ftyp", [0, 0, 0, 0]) + moov)?.captureRate == FrameRate(frames: 240))
    }

    // MARK: com.android.capture.fps

    @Test("com.android.capture.fps is read as an exact rate", arguments: [
        ("240.000000", FrameRate(frames: 240)), ("120", FrameRate(frames: 120)), ("119.88", FrameRate(frames: 2997, seconds: 25)),
        ("0.000000", nil), ("-240", nil), ("abc", nil), ("240.0000001", nil), ("", nil), ("1e3", nil), ("999999999", nil),
    ] as [(String, FrameRate?)])
    func captureFPS(text: String, rate: FrameRate?) {
        #expect(SlowMotionReader.captureRate(text) == rate)
    }

    @Test("the reader puts the three together; nil when none is there")
    func together() throws {
        let (trailer, _) = Self.sef(prefix: Self.mp4(smta: Self.smta(Self.saut([0, 12, 1, 4]))), [Self.slowMotion("88:879:2")])
        let info = try SlowMotionReader.read(SlowMotionMemory(bytes: trailer), path: "clip.mp4", metadata: ["com.android.capture.fps": "120.000000"])
        #expect(info == SlowMotionInfo(smtaCaptureRate: FrameRate(frames: 240), androidCaptureRate: FrameRate(frames: 120), temporalLayerCount: 4,
                                       recordingMode: 12, segments: [Self.ms(88, 879, 2)]))
        #expect(info?.captureFrameRate == FrameRate(frames: 240))
        #expect(try SlowMotionReader.read(SlowMotionMemory(bytes: Self.mp4(smta: [])), path: "clip.mp4", metadata: ["title": "x"]) == nil)
        let androidOnly = try SlowMotionReader.read(path: "not-opened.mkv", metadata: ["com.android.capture.fps": "240.000000"], isMP4: false)
        #expect(androidOnly == SlowMotionInfo(androidCaptureRate: FrameRate(frames: 240)))
        #expect(androidOnly?.captureFrameRate == FrameRate(frames: 240))
    }
}

/// Bytes in memory that count what is read from them.
final class CountingBytes: SlowMotionBytes {
    let memory: SlowMotionMemory
    private(set) var total = 0
    init(bytes: [UInt8]) { memory = SlowMotionMemory(bytes: bytes) }
    var length: Int64 { memory.length }
    func read(at offset: Int64, count: Int) throws(MediaError) -> [UInt8]? {
        total += count
        return try memory.read(at: offset, count: count)
    }
}
