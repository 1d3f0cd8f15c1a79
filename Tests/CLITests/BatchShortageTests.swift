import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// A shortage of the system's (EMFILE here, landed by strace on one path) while a batch scans
/// its folder or reads a source to know it is done: the run says so (75, try again later) and
/// records nothing, never "an unreadable folder" (its files then left out for good) nor "a
/// changed file" (a done output converted again).
@Suite("batch: a shortage while scanning or reading a source (issue 23)", .serialized)
struct BatchShortageTests {
    let suite = "BatchShortageTests"

    func batch(_ dir: Scratch, shell: String? = nil) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"],
                       timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"], shell: shell)
    }

    func lineCount(_ out: String) -> Int {
        F.journals(out).map { ((try? String(contentsOfFile: $0, encoding: .utf8)) ?? "").split(separator: "\n").count }.reduce(0, +)
    }

    @Test("a folder that cannot be opened for want of descriptors: 75 naming it, nothing recorded, converted on the next run")
    func folderWhileShort() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        let folder = dir.file("in/sub")
        guard let shell = Strace.failingOpens(of: folder, with: "EMFILE", suite: suite) else { return }
        let short = try batch(dir, shell: shell)
        #expect(short.status == 75, "\(short.stderr)")
        #expect(short.stderr.hasPrefix("\(folder): cannot open the folder: the system is short of open files (EMFILE: Too many open files; "), "\(short.stderr)")
        #expect(F.ledger(dir.file("out")).isEmpty, "\(F.ledger(dir.file("out")).map { "\($0.source) \($0.status)" })")
        let next = try batch(dir)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(F.json(next.stdout)?["converted"] as? [String] == ["a.mp4", "sub/b.mp4"], "\(next.stdout)")
        #expect((F.json(next.stdout)?["skipped"] as? [Any])?.isEmpty == true, "\(next.stdout)")
    }

    @Test("a done source that cannot be read again for want of descriptors: postponed (75), not converted again, done on the next run")
    func doneSourceWhileShort() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let first = try batch(dir)
        #expect(F.json(first.stdout)?["converted"] as? [String] == ["a.mp4"], "\(first.stdout)")
        let output = dir.file("out/a-proxy.mp4")
        var before = stat()
        #expect(stat(output, &before) == 0)
        // A chmod changes the source's ctime only: its fingerprint must be read again to know it.
        let source = dir.file("in/a.mp4")
        #expect(chmod(source, 0o640) == 0)
        let lines = lineCount(dir.file("out"))
        guard let shell = Strace.failingOpens(of: source, with: "EMFILE", suite: suite) else { return }
        let short = try batch(dir, shell: shell)
        #expect(short.status == 75, "\(short.stderr)")
        let o = F.json(short.stdout)
        #expect(o?["converted"] as? [String] == [], "\(short.stdout)")
        let postponed = o?["postponed"] as? [[String: Any]] ?? []
        #expect(postponed.map { $0["source"] as? String } == ["a.mp4"], "\(short.stdout)")
        #expect((postponed.first?["error"] as? String)?.hasPrefix("\(source): cannot read the source: the system is short of open files (EMFILE: ") == true,
                "\(short.stdout)")
        #expect(lineCount(dir.file("out")) == lines, "the ledger changed while the system was short")
        // The output in place is the one the first run made, and the next run knows it is done.
        let next = try batch(dir)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(F.json(next.stdout)?["converted"] as? [String] == [], "\(next.stdout)")
        #expect(F.json(next.stdout)?["alreadyDone"] as? Int == 1, "\(next.stdout)")
        var after = stat()
        #expect(stat(output, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    }
}
