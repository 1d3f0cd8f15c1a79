import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Issue 23, item 7: two recipes into one output folder on one host, --move-done that failed,
/// and names that would split a summary line.
@Suite("reencode batch: two recipes, --move-done retried, names in summary lines", .serialized)
struct BatchItem7Tests {
    @Test("two recipes into one output folder on one host run side by side: the second does not step aside as if it were the same slice")
    func twoRecipes() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let other = dir.file("small.yaml")
        let text = try String(contentsOfFile: F.recipe, encoding: .utf8).replacingOccurrences(of: "{stem}-proxy.mp4", with: "{stem}-small.mp4")
        try text.write(toFile: other, atomically: true, encoding: .utf8)
        let base = ["--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1", "--json"]
        // The first holds its claim (the test hook) while the second runs.
        let (p, out, err) = try Binary.start(["batch", F.recipe] + base, environment: ["REENCODE_HOSTNAME": "node", "REENCODE_TEST_CLAIM_PAUSE": "60"])
        let claims = dir.file("out/.reencode/claims")
        let deadline = Date().addingTimeInterval(60)
        while !((try? FileManager.default.contentsOfDirectory(atPath: claims)) ?? []).contains(where: { $0.contains(".claim.new-") }),
              Date() < deadline { usleep(10_000) }
        let second = try Binary.run(["batch", other] + base, timeLimit: 120, environment: ["REENCODE_HOSTNAME": "node"])
        kill(p.processIdentifier, SIGKILL)
        _ = Binary.finish(p, out, err)
        #expect(second.status == 0, "\(second.stderr)")
        let o = try #require(F.json(second.stdout), "\(second.stdout)")
        #expect(o["status"] as? String == "ok", "the second recipe stepped aside: \(second.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"])
        #expect(try F.frames(dir.file("out/a-small.mp4")) == (0..<30).map { Optional($0) })
    }

    @Test("--move-done that failed is retried by later runs, with a clear message until it works")
    func moveDoneRetried() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["day1/a.mp4"])
        // A file where the destination's folder must go: the move cannot make it.
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("done")))
        let args = ["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--move-done", dir.file("done")]
        let first = try Binary.run(args, timeLimit: 120, environment: ["REENCODE_HOSTNAME": "h"])
        #expect(first.status == 0)
        let warning = "warning: day1/a.mp4: converted, but not moved to \(dir.file("done")): cannot create the folder \(dir.file("done/day1")): Not a directory (tried again on the next run)\n"
        #expect(first.stderr == warning)
        #expect(FileManager.default.fileExists(atPath: dir.file("in/day1/a.mp4")))
        let again = try Binary.run(args, timeLimit: 120, environment: ["REENCODE_HOSTNAME": "h"])
        #expect(again.stderr == warning, "said again while it still fails")
        try FileManager.default.removeItem(atPath: dir.file("done"))
        let third = try Binary.run(args + ["--json"], timeLimit: 120, environment: ["REENCODE_HOSTNAME": "h"])
        #expect(third.status == 0)
        #expect(third.stderr == "")
        #expect(F.json(third.stdout)?["alreadyDone"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.file("in/day1/a.mp4")))
        #expect(try F.frames(dir.file("done/day1/a.mp4")) == (0..<30).map { Optional($0) })
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.count == 1, "converted once")
    }

    @Test("names with a newline, a tab, a backslash and an escape character stay on their own summary line, escaped")
    func namesInSummaryLines() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        let forged = "x\n  failed: forged.mp4 (exit 0): nothing\nconverted 9, failed 0 z.mp4"
        let names = [forged, "tab\there.mp4", "back\\slash\u{1B}[31m.mp4"]
        for n in names { try Data("not a movie, no moov here".utf8).write(to: URL(fileURLWithPath: dir.file("in/" + n))) }
        F.settle(dir.file("in"))
        let r = try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1"],
                               timeLimit: 120, environment: ["REENCODE_HOSTNAME": "h"])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 4, "\(lines)")
        let failed = lines.dropFirst().sorted()
        let shown = [#"back\\slash\x1B[31m.mp4"#, #"tab\there.mp4"#, #"x\n  failed: forged.mp4 (exit 0): nothing\nconverted 9, failed 0 z.mp4"#]
        for (line, name) in zip(failed, shown) {
            #expect(line.hasPrefix("  failed: \(name) (exit 66): \(dir.file("in/"))\(name): not a media file"), "\(line)")
        }
        #expect(lines[0].hasPrefix("converted 0, failed 3,"))
        // The ledger keeps the names as they are (JSON escapes what it must).
        #expect(Set(F.ledger(dir.file("out")).map(\.source)) == Set(names))
    }
}
