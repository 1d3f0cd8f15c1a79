import Foundation
import Testing

/// FFmpeg behind one wall: only Sources/Pipeline/FFmpeg speaks to FFmpeg's C libraries (its
/// wrappers own what they allocate and turn return codes into errors); everything else uses
/// them by our own names. The signal-processing kernels (Sources/Pipeline/Kernels) are plain
/// arithmetic on sample and pixel buffers: no FFmpeg, no frames.
@Suite("FFmpeg stays behind its wall")
struct FFmpegWallTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    static let wall = "Pipeline/FFmpeg/"
    /// `import CFFmpeg`, with or without attributes or a kind (`@preconcurrency import`,
    /// `import struct CFFmpeg.AVFrame`).
    static let importLine = #"^\s*(@\w+\s+)*import\s+(\w+\s+)?CFFmpeg(\.|\s|$)"#
    /// A wrapper's FFmpeg value reached into: its pointer, a pixel format's `av`.
    static let rawValue = #"\.(pointer|av)\b"#
    /// An FFmpeg wrapper type a kernel would need to touch frames, packets or codecs.
    static let wrapperType = #"\b(Frame|Packet|Encoder|Decoder|Scaler|Resampler|AudioFIFO|InputContainer|OutputContainer)\b"#

    /// `path:line: text` of each code line (not a comment) in the Swift files under `folder`
    /// (relative to Sources/, "" for all) matching `pattern`, leaving out the wall's own files.
    static func lines(matching pattern: String, under folder: String = "", in files: [String: String]? = nil) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        for (path, text) in try files ?? sourceFiles() where path.hasPrefix(folder) && !path.hasPrefix(wall) {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line)
                if code.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                if regex.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil { found.append("\(path):\(n + 1): \(code)") }
            }
        }
        return found.sorted()
    }

    static func sourceFiles() throws -> [String: String] {
        let paths = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var files: [String: String] = [:]
        for p in paths { files[p] = try String(contentsOfFile: sources.appendingPathComponent(p).path, encoding: .utf8) }
        return files
    }

    @Test("no Swift file outside Sources/Pipeline/FFmpeg imports CFFmpeg (Kernels/ included)")
    func importsOnlyInsideTheWall() throws {
        let files = try Self.sourceFiles()
        #expect(files.count > 100 && files.keys.contains { $0.hasPrefix(Self.wall) } && files.keys.contains { $0.hasPrefix("Pipeline/Kernels/") })
        #expect(try Self.lines(matching: Self.importLine, in: files) == [])
    }

    @Test("no file outside the wall reaches into a wrapper for its FFmpeg value (.pointer, .av)")
    func noRawValuesOutside() throws {
        #expect(try Self.lines(matching: Self.rawValue) == [])
    }

    @Test("the kernels are arithmetic on buffers: no FFmpeg wrapper type in Sources/Pipeline/Kernels")
    func kernelsArePure() throws {
        #expect(try Self.lines(matching: Self.wrapperType, under: "Pipeline/Kernels/") == [])
    }

    @Test("the checks find what they look for, in code only and outside the wall only")
    func checksBite() throws {
        let files = ["Pipeline/Stages/A.swift": "import Recipe\nimport CFFmpeg\n// import CFFmpeg\n@preconcurrency import CFFmpeg\nimport struct CFFmpeg.AVFrame\nimport CFFmpegExtra\nlet p = frame.pointer.pointee\nlet f = format.av",
                     "Pipeline/FFmpeg/B.swift": "import CFFmpeg\nlet p = frame.pointer",
                     "Pipeline/Kernels/C.swift": "func f(_ x: Frame) {}\n/// A Frame in a comment"]
        #expect(try Self.lines(matching: Self.importLine, in: files) == [
            "Pipeline/Stages/A.swift:2: import CFFmpeg", "Pipeline/Stages/A.swift:4: @preconcurrency import CFFmpeg",
            "Pipeline/Stages/A.swift:5: import struct CFFmpeg.AVFrame"])
        #expect(try Self.lines(matching: Self.rawValue, in: files) == [
            "Pipeline/Stages/A.swift:7: let p = frame.pointer.pointee", "Pipeline/Stages/A.swift:8: let f = format.av"])
        #expect(try Self.lines(matching: Self.wrapperType, under: "Pipeline/Kernels/", in: files) == ["Pipeline/Kernels/C.swift:1: func f(_ x: Frame) {}"])
    }
}
