import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// A batch killed (-9) while it writes a claim: the next run on that host converts the file at
/// once, instead of taking the half-made claim for another machine's live one until it times out.
@Suite("reencode batch: a claim killed while being written", .serialized)
struct ClaimCrashTests {
    @Test("kill -9 while a claim is written: the next run converts the file now, and nothing of the claim is left")
    func killedWhileClaiming() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let args = ["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1"]
        let (p, out, err) = try Binary.start(args, environment: ["REENCODE_HOSTNAME": "host-a", "REENCODE_TEST_CLAIM_PAUSE": "60"])
        let claims = dir.file("out/.reencode/claims")
        // Wait until the claim is being written (the hook holds it there), then kill.
        let deadline = Date().addingTimeInterval(60)
        var writing: [String] = []
        while Date() < deadline {
            writing = ((try? FileManager.default.contentsOfDirectory(atPath: claims)) ?? []).filter { $0.contains(".claim") }
            if !writing.isEmpty { break }
            usleep(20_000)
        }
        kill(p.processIdentifier, SIGKILL)
        _ = Binary.finish(p, out, err)
        #expect(writing.count == 1, "a claim was being written when killed: \(writing)")

        // Claimed elsewhere would exit 0 and leave the file for a later run: it must convert now.
        let r = try Binary.run(args + ["--json"], timeLimit: 120, environment: ["REENCODE_HOSTNAME": "host-a"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let o = try #require(F.json(r.stdout), "\(r.stdout)")
        #expect(o["converted"] as? [String] == ["a.mp4"])
        #expect((o["claimedElsewhere"] as? [String] ?? []).isEmpty)
        #expect(try F.frames(dir.file("out/a-proxy.mp4")) == (0..<30).map { Optional($0) })
        #expect(F.ledger(dir.file("out")).filter { $0.status == .done }.map(\.source) == ["a.mp4"])
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: claims)) ?? []).filter { $0.contains(".claim") }
        #expect(left.isEmpty, "claim files left: \(left)")
    }
}
