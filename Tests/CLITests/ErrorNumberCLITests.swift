import Foundation
import Testing

/// `run --progress json`: a failure that came from a failed call gives that call's own number in
/// its `failed` line beside the message — `ffmpegError` (FFmpeg's return code) or `errno`.
@Suite("--progress json: the failed line keeps FFmpeg's and errno's numbers")
struct ErrorNumberCLITests {
    @Test("a missing source gives errno 2, a text file FFmpeg's AVERROR_INVALIDDATA; a recipe error gives neither")
    func numbers() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/hfr-to-30fps.yaml").path
        try Data("not media at all\n".utf8).write(to: URL(fileURLWithPath: dir.file("notes.mp4")))
        try "recipe: 1\nreader: { outputs: { v: { track: video } } }\nwriter: { inputs: [ { source: w } ] }\n"
            .write(toFile: dir.file("bad.yaml"), atomically: true, encoding: .utf8)
        let cases: [(args: [String], status: Int32, number: [String: Int])] = [
            (["run", recipe, "-i", dir.file("absent.mp4"), "-o", dir.file("o.mp4")], 66, ["errno": Int(ENOENT)]),
            (["run", recipe, "-i", dir.file("notes.mp4"), "-o", dir.file("o.mp4")], 66, ["ffmpegError": -1094995529]),
            (["run", dir.file("bad.yaml"), "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4")], 65, [:]),
        ]
        for c in cases {
            let r = try Binary.run(c.args + ["--progress", "json"], timeLimit: 60)
            #expect(r.status == c.status, "\(c.args): \(r.stderr)")
            let line = try #require(r.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            #expect(line["type"] as? String == "failed", "\(line)")
            let numbers = line.filter { ["errno", "ffmpegError"].contains($0.key) }.compactMapValues { $0 as? Int }
            #expect(numbers == c.number, "\(c.args): \(line)")
        }
    }
}
