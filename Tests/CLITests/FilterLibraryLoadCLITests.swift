import Foundation
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// libavfilter (and the 31 libraries it brings: 12 MB resident, ~20 ms of loading) is not linked:
/// reencode loads it when a `spectral` time stretch first needs it, and no other run maps it.
/// Checked with the dynamic loader's own record (`LD_DEBUG=files`), which names every library a
/// process loads, at start or later.
@Suite("libavfilter loaded only for the spectral stretch", .serialized)
struct FilterLibraryLoadCLITests {
    /// The libraries the run loaded, by the loader's record of it.
    static func loaded(_ args: [String], in dir: Scratch) throws -> (status: Int32, stderr: String, libraries: String, filter: Bool) {
        let log = dir.file("ld-\(UInt32.random(in: 0...UInt32.max))")
        let r = try Binary.run(args, timeLimit: 300, cwd: dir.path, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log])
        let logs = dir.contents.filter { $0.hasPrefix(URL(fileURLWithPath: log).lastPathComponent) }
        let text = try logs.map { try String(contentsOfFile: dir.file($0), encoding: .utf8) }.joined()
        return (r.status, r.stderr, text, text.contains("file=libavfilter.so."))
    }

    @Test("a conversion, a time-domain stretch and `plan` leave it unloaded; the spectral stretch loads it, and works")
    func onlyWhenNeeded() throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 240, frames: 720, bursts: [120, 600])

        let plain = try Self.loaded(["run", repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path, "-i", src,
                                     "-o", dir.file("plain.mp4"), "--quiet"], in: dir)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.libraries.contains("file=libavcodec.so."), "the loader's record is not there: \(plain.libraries.prefix(300))")
        #expect(!plain.filter, "a plain conversion loaded libavfilter")

        let recipe = dir.file("slow.yaml")
        try CompositionRunCLITests.slowRecipe("  audio-stretch: time-domain\n", sound: true).write(toFile: recipe, atomically: true, encoding: .utf8)
        let wsola = try Self.loaded(["run", recipe, "-i", src, "--quiet", "-o", dir.file("wsola.mp4")], in: dir)
        #expect(wsola.status == 0, "\(wsola.stderr)")
        #expect(!wsola.filter, "the time-domain stretch loaded libavfilter")

        // Unsaid, the method is spectral (librubberband through libavfilter).
        try CompositionRunCLITests.slowRecipe("", sound: true).write(toFile: recipe, atomically: true, encoding: .utf8)
        let planned = try Self.loaded(["plan", recipe, "-i", src], in: dir)
        #expect(planned.status == 0, "\(planned.stderr)")
        #expect(!planned.filter, "plan loaded libavfilter")
        let out = dir.file("spectral.mp4")
        let spectral = try Self.loaded(["run", recipe, "-i", src, "--quiet", "-o", out], in: dir)
        #expect(spectral.status == 0, "\(spectral.stderr)")
        #expect(spectral.filter, "not loaded by the spectral stretch")
        // It stretched: the burst at 2.5 s of the source plays at 9.5 s, after the slowed second.
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        #expect(onsets.count == 2 && abs((onsets.last ?? 0) - 9.5) <= 1.0 / 30, "\(onsets)")
    }
}
