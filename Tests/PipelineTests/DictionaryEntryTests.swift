import CFFmpeg
import Foundation
@testable import Pipeline
import Testing

/// Every entry put in a dictionary FFmpeg takes (encoder and muxer options, metadata) is
/// checked: a refusal is an error with FFmpeg's number beside its message, never ignored.
@Suite("FFmpeg dictionary entries are checked")
struct DictionaryEntryTests {
    @Test("a refused entry is an error naming the key, the dictionary and FFmpeg's error number")
    func refusal() {
        let e = FFmpeg.entryError(-22, key: "movflags", in: "the muxer options")
        #expect(e.kind == .processing)
        #expect(e.message == "cannot set 'movflags' in the muxer options (FFmpeg error -22): Invalid argument")
    }

    @Test("entries FFmpeg takes are stored, each once")
    func stored() throws {
        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        try FFmpeg.set(&dict, "title", "a", in: "the file's metadata")
        try FFmpeg.set(&dict, "title", "b", in: "the file's metadata")
        try FFmpeg.set(&dict, "comment", "c", in: "the file's metadata")
        #expect(av_dict_count(dict) == 2)
        #expect(av_dict_get(dict, "title", nil, 0).map { String(cString: $0.pointee.value) } == "b")
    }

    @Test("no call sets a dictionary entry without the check (Sources/ holds one av_dict_set: the checked one)")
    func everyCallChecked() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        var calls: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains("av_dict_set(") {
                calls.append("\(file):\(n + 1)")
            }
        }
        #expect(calls.count == 1 && calls.first?.hasPrefix("Pipeline/FFmpeg/FFmpeg.swift:") == true, "\(calls)")
    }
}
