import Foundation
import Pipeline
import Recipe
import Testing

/// `reencode inspect` on files carrying a phone's slow-motion data: our own MP4 with a Samsung
/// `smta` box put in its `moov/udta` and a SEF trailer appended as Samsung does (in a `sefd` box).
@Suite("reencode inspect shows slow-motion data")
struct SlowMotionInspectTests {
    static func be32(_ v: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xff) } }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xff) } }
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + Array(type.utf8) + body }

    /// A `sefd` box holding one `SlowMotion_Data` entry with `text` and Samsung's trailer.
    static func sefd(_ text: String, lie: ((inout [UInt8], Int) -> Void)? = nil) -> [UInt8] {
        let name = Array("SlowMotion_Data".utf8)
        let entry: [UInt8] = [0, 0, 0x90, 0x08] + le32(name.count) + name + Array(text.utf8)
        var body = entry
        let tailStart = body.count
        body += Array("SEFH".utf8) + le32(106) + le32(1)
        let reference = body.count
        body += [0, 0, 0x90, 0x08] + le32(tailStart) + le32(entry.count)
        body += le32(body.count - tailStart) + Array("SEFT".utf8)
        lie?(&body, reference)
        return box("sefd", body)
    }

    /// A 10-frame MP4 of ours, with `smta` (mode 12: 240 fps, 4 layers) added to its `moov/udta`
    /// when asked, and `trailer` appended.
    static func make(_ path: String, smta: Bool, trailer: [UInt8]) throws {
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil, kept: KeptItems(metadata: ["com.android.capture.fps": "240.000000"], quickTimeKeys: true))
        for i in 0..<10 { try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        if smta {
            let smtaBox = box("smta", [0, 0, 0, 0] + box("saut", [0, 0, 0, 0, 0, 12, 1, 4]))
            try #require(Self.appendToUdta(&bytes, smtaBox))
        }
        bytes += trailer
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Appends `child` to the `udta` box closing `moov` (or a new `udta` closing it), and moves
    /// the chunk offsets of the media data that follows by as much.
    static func appendToUdta(_ bytes: inout [UInt8], _ child: [UInt8]) -> Bool {
        func size(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        func type(_ at: Int) -> String { String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) }
        func setSize(_ at: Int, _ v: Int) { bytes.replaceSubrange(at..<at + 4, with: be32(v)) }
        var moov = 0
        while moov + 8 <= bytes.count, type(moov) != "moov" { moov += max(size(moov), 8) }
        guard moov + 8 <= bytes.count else { return false }
        let moovEnd = moov + size(moov)
        var cursor = moov + 8, lastUdta: Int?
        while cursor < moovEnd {
            if type(cursor) == "udta" && cursor + size(cursor) == moovEnd { lastUdta = cursor }
            cursor += max(size(cursor), 8)
        }
        let added = lastUdta == nil ? child.count + 8 : child.count
        // Chunk offsets (stco: 32-bit) of data after moov move with it.
        var at = moov
        while at + 16 <= moovEnd {
            if type(at) == "stco" {
                let count = size(at + 12)
                for e in 0..<count {
                    let field = at + 16 + 4 * e
                    let offset = size(field)
                    if offset >= moovEnd { setSize(field, offset + added) }
                }
                at += size(at)
            } else {
                at += 1
            }
        }
        if let udta = lastUdta {
            setSize(udta, size(udta) + child.count)
            bytes.insert(contentsOf: child, at: moovEnd)
        } else {
            bytes.insert(contentsOf: box("udta", child), at: moovEnd)
        }
        setSize(moov, size(moov) + added)
        return true
    }

    @Test("text: capture rate, layers, mode and each slowed segment with its divisor")
    func text() throws {
        let dir = Scratch()
        let file = dir.file("samsung.mp4")
        try Self.make(file, smta: true, trailer: Self.sefd("1255:1970:4*88:879:2"))
        let r = try Binary.run(["inspect", file])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("  slow motion:") })
        #expect(Array(lines[at..<at + 3]) == ["  slow motion: captured at 240 fps, 4 temporal layers, Samsung mode 12",
                                               "    slowed 0.088s–0.879s ÷2",
                                               "    slowed 1.255s–1.970s ÷8"])
        #expect(lines.contains("  com.android.capture.fps: 240.000000"))
    }

    @Test("a trailer flooding names (4000 entries of 200 bytes): inspect lists 16, each cut to 64 characters, and counts the rest; --json alike")
    func floodedNames() throws {
        let dir = Scratch()
        let file = dir.file("samsung.mp4")
        let name = Array(String(repeating: "N", count: 200).utf8)
        var body: [UInt8] = []
        var references: [(start: Int, size: Int)] = []
        for _ in 0..<4000 {
            references.append((body.count, 8 + name.count))
            body += [0, 0, 0x01, 0x0a] + Self.le32(name.count) + name
        }
        let tailStart = body.count
        body += Array("SEFH".utf8) + Self.le32(106) + Self.le32(references.count)
        for r in references { body += [0, 0, 0x01, 0x0a] + Self.le32(tailStart - r.start) + Self.le32(r.size) }
        body += Self.le32(body.count - tailStart) + Array("SEFT".utf8)
        try Self.make(file, smta: true, trailer: Self.box("sefd", body))
        let r = try Binary.run(["inspect", file])
        #expect(r.status == 0)
        let listed = Array(repeating: String(repeating: "N", count: 63) + "…", count: 16).joined(separator: ", ")
        #expect(r.stdout.contains("\n    other SEF entries (not read): \(listed) (and 3984 more)\n"))
        #expect(r.stdout.utf8.count < 4000, "\(r.stdout.utf8.count) bytes")
        let json = try Binary.run(["inspect", "--json", file])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let s = try #require(o["slowMotion"] as? [String: Any])
        #expect((s["otherSEFEntries"] as? [String])?.count == 16)
        #expect(s["otherSEFEntriesLeftOut"] as? Int == 3984)
    }

    @Test("--json: the slowMotion object")
    func json() throws {
        let dir = Scratch()
        let file = dir.file("samsung.mp4")
        try Self.make(file, smta: true, trailer: Self.sefd("88:879:2*1255:1970:4"))
        let r = try Binary.run(["inspect", "--json", file])
        #expect(r.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let s = try #require(o["slowMotion"] as? [String: Any])
        #expect(s["captureFrameRate"] as? String == "240")
        #expect(s["smtaCaptureFrameRate"] as? String == "240")
        #expect(s["androidCaptureFrameRate"] as? String == "240")
        #expect(s["temporalLayers"] as? Int == 4)
        #expect(s["recordingMode"] as? Int == 12)
        #expect(s["otherSEFEntries"] == nil)
        let segments = try #require(s["segments"] as? [[String: Any]])
        #expect(segments.count == 2)
        #expect(segments.map { $0["start"] as? Double } == [0.088, 1.255])
        #expect(segments.map { $0["end"] as? Double } == [0.879, 1.97])
        #expect(segments.map { $0["speedDivisor"] as? Int } == [2, 8])
    }

    @Test("only com.android.capture.fps: the capture rate alone")
    func androidOnly() throws {
        let dir = Scratch()
        let file = dir.file("pixel.mp4")
        try Self.make(file, smta: false, trailer: [])
        let r = try Binary.run(["inspect", file])
        #expect(r.stdout.split(separator: "\n").filter { $0.contains("slow motion") } == ["  slow motion: captured at 240 fps"])
        let j = try Binary.run(["inspect", "--json", file])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let s = try #require(o["slowMotion"] as? [String: Any])
        #expect(s["captureFrameRate"] as? String == "240")
        #expect(s["smtaCaptureFrameRate"] == nil)
        #expect((s["segments"] as? [Any])?.isEmpty == true)
    }

    @Test("a damaged trailer is shown as unreadable, the rest of the file still inspected, exit 0")
    func damaged() throws {
        let dir = Scratch()
        let file = dir.file("damaged.mp4")
        let trailer = Self.sefd("88:879:2") { body, reference in
            body.replaceSubrange(reference + 4..<reference + 8, with: Self.le32(4_000_000_000))
        }
        try Self.make(file, smta: true, trailer: trailer)
        let r = try Binary.run(["inspect", file])
        #expect(r.status == 0)
        #expect(r.stdout.contains("\n  #0 video  h264"))
        #expect(r.stdout.split(separator: "\n").filter { $0.contains("slow motion") }
                == ["  slow motion: unreadable: its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 (31 bytes, 4000000000 bytes before the trailer) lies outside the data before the trailer"])
        let j = try Binary.run(["inspect", "--json", file])
        #expect(j.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(o["slowMotion"] as? [String: String] == ["error": "its Samsung slow-motion trailer (SEF) is damaged: entry 1 of 1 (31 bytes, 4000000000 bytes before the trailer) lies outside the data before the trailer"])
    }

    @Test("a file with none of it shows nothing about slow motion")
    func none() throws {
        let dir = Scratch()
        let file = dir.file("plain.mp4")
        let rate = FrameRate(frames: 30)
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: rate)
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: file, video: v, audio: nil)
        for i in 0..<3 { try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let r = try Binary.run(["inspect", file])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("slow motion"))
        let j = try Binary.run(["inspect", "--json", file])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(o["slowMotion"] == nil)
    }
}
