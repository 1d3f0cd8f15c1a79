import Foundation
import Pipeline
import Recipe
import Testing

/// A sample table that claims billions of entries makes FFmpeg's demuxer fail to allocate while
/// reading the header: the file is not media (66), not a processing failure.
@Suite("Impossible sizes in a file's index")
struct ImpossibleIndexTests {
    /// `data` with the 32-bit entry count of the first `box` (a full box: size, type, version and
    /// flags, then the count) set to `count`.
    static func patched(_ data: Data, box: String, count: UInt32) -> Data? {
        guard let at = data.range(of: Data(box.utf8)) else { return nil }
        var d = data
        let offset = at.upperBound + 4
        for i in 0..<4 { d[offset + i] = UInt8(truncatingIfNeeded: count >> (8 * (3 - i))) }
        return d
    }

    @Test("an stts or stco entry count near 2^32 is 'not a media file' (66), naming the file",
          arguments: ["mp4", "mov"], [("stts", UInt32.max), ("stco", UInt32(1) << 30)])
    func hugeEntryCount(ext: String, box: (String, UInt32)) throws {
        let dir = Scratch()
        let src = dir.file("whole.\(ext)")
        try DamageTests.source(src)
        let bad = dir.file("\(box.0)-huge.\(ext)")
        let data = try #require(Self.patched(try Data(contentsOf: URL(fileURLWithPath: src)), box: box.0, count: box.1))
        try data.write(to: URL(fileURLWithPath: bad))
        let error = try #require(DamageTests.loadError(bad))
        #expect(error.kind == .notMedia, "\(error)")
        #expect(error.exitCode == 66)
        #expect(error.file == bad)
        #expect(error.message.hasPrefix("not a media file"), "\(error)")
    }
}
