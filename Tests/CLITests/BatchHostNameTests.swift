import Foundation
@testable import Pipeline
import Testing

private typealias F = BatchFixture

/// A host name reaches file names (temp outputs, claims, clock probes, locks, sightings, ledger
/// journals) one way, `HostIdentity.fileTag`: any name works, and no two names share a tag.
@Suite("batch: host names in file names (issue 23)")
struct BatchHostNameTests {
    @Test("tags: plain names kept, every other byte as %XX, distinct names distinct tags, long names cut with a hash")
    func tags() {
        #expect(HostIdentity.fileTag("node-1.example_a") == "node-1.example_a")
        #expect(HostIdentity.fileTag("rack/node 1") == "rack%2Fnode%201")
        #expect(HostIdentity.fileTag("café") == "caf%C3%A9")
        #expect(HostIdentity.fileTag("") == "%")
        // Once '-' and '_' (or '/' and '_') made one tag: one host would judge the other's pids.
        #expect(HostIdentity.fileTag("node-1") != HostIdentity.fileTag("node_1"))
        #expect(HostIdentity.fileTag("a/b") != HostIdentity.fileTag("a_b"))
        let long = String(repeating: "x", count: 100)
        let tag = HostIdentity.fileTag(long)
        #expect(tag.utf8.count == 57 && tag.hasPrefix(String(repeating: "x", count: 40) + "~"))
        #expect(tag != HostIdentity.fileTag(long + "y"))
    }

    @Test("a temp name's owner is read back whole, dashes in the host name included")
    func tempOwner() {
        let owner = TempFile.owner(HostIdentity.fileTag("node-1") + "-4242-abc")
        #expect(owner?.host == "node-1" && owner?.pid == 4242)
        #expect(TempFile.owner("4242-abc") == nil)
    }

    @Test("REENCODE_HOSTNAME with '/' and spaces: a batch converts, claims, locks and records under that name; an idle rerun appends nothing")
    func slashInName() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "sub/b.mp4"])
        let host = "rack 7/node-1"
        let run = { try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json"],
                                   timeLimit: 120, environment: ["REENCODE_HOSTNAME": host]) }
        let first = try run()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(F.json(first.stdout)?["converted"] as? [String] == ["a.mp4", "sub/b.mp4"], "\(first.stdout)")
        #expect(F.journals(dir.file("out")).map { URL(fileURLWithPath: $0).lastPathComponent } == ["ledger-rack%207%2Fnode-1.jsonl"])
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.host) == [host, host])
        let again = try run()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(F.json(again.stdout)?["alreadyDone"] as? Int == 2, "\(again.stdout)")
        #expect(F.ledger(dir.file("out")).count == 4)
        // Nothing of the run left in the claims folder but this host's sightings.
        let claims = try FileManager.default.contentsOfDirectory(atPath: dir.file("out/.reencode/claims")).sorted()
        #expect(claims == [".seen-rack%207%2Fnode-1"], "\(claims)")
    }

    @Test("a sightings file left half-replaced by kill -9 (.seen-HOST.new-PID) is swept once it stops changing")
    func seenLeftover() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let run = { try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--json",
                                    "--claim-timeout", "1"], timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"]) }
        _ = try run()
        let leftover = dir.file("out/.reencode/claims/.seen-host-a.new-999999")
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data("{}".utf8)))
        _ = try run()   // first sighting
        #expect(FileManager.default.fileExists(atPath: leftover))
        Thread.sleep(forTimeInterval: 1.2)
        _ = try run()   // unchanged for the timeout: swept
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }
}
