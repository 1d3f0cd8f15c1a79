import Foundation
import Pipeline
import Testing

@Suite("FFmpeg's line in our errors")
struct FFmpegLogTests {
    @Test("the line names the demuxer without its address, so the same file gives the same message every run")
    func noAddress() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ffmpeglog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("junk.mkv").path
        // An EBML magic followed by nonsense: the Matroska demuxer is chosen, then fails.
        var ebml = Data([0x1a, 0x45, 0xdf, 0xa3, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0xff, 0xff, 0xff, 0xff])
        ebml.append(Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try ebml.write(to: URL(fileURLWithPath: path))
        var details: [String] = []
        for _ in 0..<2 {
            do {
                _ = try Asset.load(path)
                Issue.record("junk loaded as media")
            } catch {
                details.append(error.detail ?? "")
            }
        }
        #expect(details.count == 2)
        #expect(details[0] == details[1])
        #expect(details[0].contains("[matroska,webm] EBML header parsing failed"), "\(details[0])")
        #expect(!details[0].contains(" @ 0x"), "\(details[0])")
    }
}
