import Foundation
import Testing

/// A slow conversion (x264 veryslow) and its recipe in a scratch folder.
private struct SlowConversion {
    let dir = Scratch()
    var recipe: String { dir.file("slow.yaml") }

    init() throws {
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: false)
        try makeShortSource(dir.file("in/long.mp4"), seconds: 3, width: 640, height: 360)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: dir.file("in/long.mp4"))
        try """
            recipe: 1
            output: { path: "{stem}-slow.mp4" }
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            writer:
              inputs:
                - { source: v, settings: { codec: h264, codec-options: { preset: veryslow } } }
                - { source: a }
            """.write(toFile: dir.file("slow.yaml"), atomically: true, encoding: .utf8)
    }

    /// Files and folders under `folder`, relative, sorted.
    func tree(_ folder: String) -> [String] {
        var found: [String] = []
        guard let e = FileManager.default.enumerator(atPath: dir.file(folder)) else { return [] }
        while let rel = e.nextObject() as? String { found.append(rel) }
        return found.sorted()
    }
}

/// Starts reencode with stdout (or stderr) on a full pipe nobody reads, sends SIGTERM once its
/// temp file exists under `folder`; returns the exit status, the seconds from the signal to the
/// exit, and what the other stream said.
private func stopStalled(_ args: [String], stall stream: Int32, tempUnder folder: String) throws -> (status: Int32, seconds: Double, other: String) {
    let stalled = try StalledPipe()
    defer { stalled.close() }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: Binary.path)
    p.arguments = args
    let other = Pipe()
    if stream == STDOUT_FILENO { p.standardOutput = stalled.handle; p.standardError = other } else { p.standardOutput = other; p.standardError = stalled.handle }
    try p.run()
    // The killer of last resort, long after the limit the test checks.
    let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 40, execute: watchdog)
    defer { watchdog.cancel() }
    let said = Drain(other)
    #expect(UnderWay.waitForTempFile(under: folder, process: p), "no temp file under \(folder)")
    // Let the first progress line meet the full pipe.
    Thread.sleep(forTimeInterval: 0.3)
    let sent = Date()
    kill(p.processIdentifier, SIGTERM)
    p.waitUntilExit()
    return (p.terminationStatus, Date().timeIntervalSince(sent), said.text())
}

@Suite("a stop while stdout or stderr is not being read", .serialized)
struct StalledStreamTests {
    @Test("run --progress json into a full pipe nobody reads: SIGTERM still exits 143 at once, nothing left")
    func runStdoutStalled() throws {
        let s = try SlowConversion()
        let r = try stopStalled(["run", s.recipe, "-i", s.dir.file("in/long.mp4"), "-o", s.dir.file("out/o.mp4"), "--progress", "json"],
                                stall: STDOUT_FILENO, tempUnder: s.dir.file("out"))
        #expect(r.status == 143, "\(r.status) \(r.other)")
        #expect(r.seconds < 10, "took \(r.seconds) s")
        #expect(r.other == "cancelled: no output written (SIGTERM)\n")
        #expect(s.tree("out") == [], "left \(s.tree("out"))")
        #expect(s.tree("in") == ["long.mp4"])
    }

    @Test("run --progress bar into a full stderr nobody reads: SIGTERM exits 143 at once, nothing on stdout, nothing left")
    func runStderrStalled() throws {
        let s = try SlowConversion()
        let r = try stopStalled(["run", s.recipe, "-i", s.dir.file("in/long.mp4"), "-o", s.dir.file("out/o.mp4"), "--progress", "bar"],
                                stall: STDERR_FILENO, tempUnder: s.dir.file("out"))
        #expect(r.status == 143, "\(r.status) \(r.other)")
        #expect(r.seconds < 10, "took \(r.seconds) s")
        #expect(r.other == "")
        #expect(s.tree("out") == [], "left \(s.tree("out"))")
    }

    @Test("batch --json with stdout a full pipe nobody reads: SIGTERM exits 143 at once, the message on stderr, nothing left")
    func batchStdoutStalled() throws {
        let s = try SlowConversion()
        let r = try stopStalled(["batch", s.recipe, "--input-dir", s.dir.file("in"), "--output-dir", s.dir.file("out"), "--settle", "0", "--jobs", "1", "--json"],
                                stall: STDOUT_FILENO, tempUnder: s.dir.file("out"))
        #expect(r.status == 143, "\(r.status) \(r.other)")
        #expect(r.seconds < 10, "took \(r.seconds) s")
        #expect(r.other == "cancelled: unfinished files are left for the next run (SIGTERM)\n")
        #expect(s.tree("out").filter { !$0.hasPrefix(".reencode") } == [], "left \(s.tree("out"))")
        #expect(s.tree("in") == ["long.mp4"])
    }
}
