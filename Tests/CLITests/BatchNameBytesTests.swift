import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// A path given as bytes (not UTF-8 text) to a syscall taking a path.
private func withBytePath<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    (bytes + [0]).withUnsafeBufferPointer { b in b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { body($0) } }
}

/// Issue 23, item 3: names that are not UTF-8, and paths longer than PATH_MAX, are recorded as
/// skipped with the reason (once, escaped losslessly), never dropped in silence; `run` says
/// what such an argument is instead of "no such file".
@Suite("reencode batch: names that are not UTF-8, paths past PATH_MAX", .serialized)
struct BatchNameBytesTests {
    func batch(_ dir: Scratch) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"],
                       timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"])
    }

    @Test("a Latin-1 file and a Latin-1 folder: recorded as skipped under their escaped names, said once; the others convert")
    func latin1() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "tmp/x.mp4", "b.mp4"])
        let base = Array(dir.file("in/").utf8)
        // caf\xE9.mp4 (a Latin-1 é) and the folder d\xE9j\xE0 holding x.mp4.
        #expect(withBytePath(Array(dir.file("in/b.mp4").utf8)) { from in withBytePath(base + Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)) { rename(from, $0) } } == 0)
        #expect(withBytePath(Array(dir.file("in/tmp").utf8)) { from in withBytePath(base + [0x64, 0xE9, 0x6A, 0xE0]) { rename(from, $0) } } == 0)
        let first = try batch(dir)
        #expect(first.status == 0, "\(first.stderr)")
        let o = try #require(F.json(first.stdout), "\(first.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"])
        let fix = "(reencode reaches files by UTF-8 paths: rename it, e.g. convmv -f latin1 -t utf8)"
        let file = "the name is not UTF-8: not converted \(fix)"
        let folder = "a folder whose name is not UTF-8: its files are not converted \(fix)"
        #expect(o["skipped"] as? [[String: String]] == [["path": #"caf\xE9.mp4"#, "reason": file], ["path": #"d\xE9j\xE0"#, "reason": folder]])
        #expect(first.stderr == """
            warning: caf\\xE9.mp4: skipped, \(file) (recorded in the ledger; said once)
            warning: d\\xE9j\\xE0: skipped, \(folder) (recorded in the ledger; said once)

            """)
        let skipped = F.ledger(dir.file("out")).filter { $0.status == .skipped }
        #expect(skipped.map(\.source) == [#"caf\xE9.mp4"#, #"d\xE9j\xE0"#])
        #expect(skipped.map(\.error) == [file, folder])
        // Said once: a rerun adds no line and prints nothing on stderr.
        let lines = F.ledger(dir.file("out")).count
        let second = try batch(dir)
        #expect(second.status == 0)
        #expect(second.stderr == "")
        #expect(F.ledger(dir.file("out")).count == lines)
    }

    @Test("a folder whose path passes PATH_MAX is recorded as skipped with the reason")
    func pathMax() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let root = URL(fileURLWithPath: dir.file("in")).resolvingSymlinksInPath().path
        let name = String(repeating: "d", count: 200)
        // Made one level at a time, relative to an open folder: no single path is too long to create.
        var fd = open(root, O_RDONLY | O_DIRECTORY)
        var path = root
        var tooLong: String?
        var rel: [String] = []
        for _ in 0..<24 {
            #expect(mkdirat(fd, name, 0o755) == 0)
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
            path += "/" + name
            rel.append(name)
            if tooLong == nil && path.utf8.count >= Int(PATH_MAX) { tooLong = rel.joined(separator: "/") }
        }
        let media = openat(fd, "deep.mp4", O_WRONLY | O_CREAT, 0o644)
        close(media)
        close(fd)
        let r = try batch(dir)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(F.json(r.stdout), "\(r.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"])
        let reason = "its path is longer than PATH_MAX (4096 bytes): not converted"
        let expected = try #require(tooLong)
        #expect(o["skipped"] as? [[String: String]] == [["path": expected, "reason": reason]])
        let skipped = F.ledger(dir.file("out")).filter { $0.status == .skipped }
        #expect(skipped.map(\.source) == [expected])
        #expect(skipped.map(\.error) == [reason])
    }

    @Test("run with a Latin-1 file name: refused as not UTF-8 text (64), escaped, not 'no such file'")
    func runLatin1() throws {
        let dir = Scratch()
        try F.clip(dir.file("b.mp4"))
        let bytes = Array(dir.file("caf").utf8) + [0xE9] + Array(".mp4".utf8)
        #expect(withBytePath(Array(dir.file("b.mp4").utf8)) { from in withBytePath(bytes) { rename(from, $0) } } == 0)
        let shell = "set -- run \(F.recipe) -i \"$(printf '\(dir.file("caf"))\\351.mp4')\" -o \(dir.file("out.mp4"))"
        let r = try Binary.run([], timeLimit: 60, shell: shell)
        #expect(r.status == 64)
        #expect(r.stderr == "Error: argument 4 is not UTF-8 text: \(dir.file("caf"))\\xE9.mp4 (reencode takes file names as UTF-8: rename the file, e.g. convmv -f latin1 -t utf8)\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }
}
