import Foundation
import Pipeline
import Recipe
import Testing

/// Helpers for the batch reliability tests (BatchReliabilityTests, SlurmTests).
enum BatchFixture {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let recipe = repo.appendingPathComponent("recipes/proxy-540p.yaml").path

    /// A frame-stamped clip of `seconds` at 30 fps with audio (the container from the extension).
    static func clip(_ path: String, seconds: Int = 1, width: Int = 160, height: Int = 120) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: GeneratedAudioFormat())
        for f in 0..<(30 * seconds) {
            try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(f)) { TestPattern.draw(index: f, into: $0) }
        }
        try s.appendAudio(count: 48000 * seconds) { _, n in Float(sin(Double(n) * 0.05)) * 0.2 }
        try s.finish()
    }

    /// Clips at the given relative paths, settled in the past.
    static func folder(_ dir: String, _ names: [String], seconds: Int = 1) throws {
        for n in names { try clip(dir + "/" + n, seconds: seconds) }
        settle(dir)
    }

    /// Every file (not folders, not links' targets) under `dir` older than any settle time used here.
    static func settle(_ dir: String) {
        let old = Date().addingTimeInterval(-600)
        let e = FileManager.default.enumerator(atPath: dir)!
        while let rel = e.nextObject() as? String {
            var st = stat()
            guard lstat(dir + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            try? FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + rel)
        }
    }

    static func ledger(_ out: String) -> [LedgerEntry] { Ledger(folder: out + "/.reencode").entries() }

    /// Moves every entry's `stored` time (the storage's clock) `seconds` into the past: as if
    /// the ledger had been written that long ago, without waiting.
    /// The journal `host` appends to.
    static func journal(_ out: String, host: String) -> String { Ledger(folder: out + "/.reencode").journalPath(host: host) }

    /// Every journal of the ledger (one per host, and `ledger.jsonl` of older versions).
    static func journals(_ out: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: out + "/.reencode")) ?? []
        return names.filter { $0.hasPrefix("ledger") && $0.hasSuffix(".jsonl") }.sorted().map { out + "/.reencode/" + $0 }
    }

    static func ageLedger(_ out: String, by seconds: Double) throws {
        for path in journals(out) { try age(path, by: seconds) }
    }

    private static func age(_ path: String, by seconds: Double) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard var o = json(String(line)), let stored = o["stored"] as? Double else { return String(line) }
            o["stored"] = stored - seconds
            let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? String(line)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func json(_ text: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// Frame stamps of an output's video (nil frames unreadable).
    static func frames(_ output: String) throws -> [Int?] { try SampleReaderStamps.read(output) }

    /// Everything under `dir` with size and mtime: to compare a folder before and after.
    static func snapshot(_ dir: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var out: [String] = []
        while let rel = e.nextObject() as? String {
            var st = stat()
            lstat(dir + "/" + rel, &st)
            out.append("\(rel) \(st.st_mode) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        }
        return out.sorted()
    }
}
