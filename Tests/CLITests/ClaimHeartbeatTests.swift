import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Issue 23, item 9: staleness is judged without comparing clocks — a claim is taken over only
/// once this host has seen its heartbeat unchanged for --claim-timeout on its own clock — and a
/// host whose claim was taken over records nothing.
@Suite("reencode batch: heartbeats judged without clocks", .serialized)
struct ClaimHeartbeatTests {
    func batch(_ dir: Scratch, host: String, _ extra: [String] = []) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1",
                        "--claim-timeout", "1", "--json"] + extra, timeLimit: 120, environment: ["REENCODE_HOSTNAME": host])
    }

    @Test("a live claim stamped an hour in the past (its host's clock runs behind) is not taken over while it beats; once it stops, it is")
    func clockBehind() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let claims = dir.file("out/.reencode/claims")
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let claim = claims + "/" + FNV1a.hex("a-proxy.mp4") + ".claim"
        try #"{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"a.mp4"}"#.write(toFile: claim, atomically: true, encoding: .utf8)
        func beat(_ ago: Double) throws {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-ago)], ofItemAtPath: claim)
        }
        try beat(3600)
        let first = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(first["claimedElsewhere"] as? [String] == ["a.mp4"])
        // It beats (an hour behind, as its host's clock is), and more than the timeout passes.
        try beat(3599)
        usleep(1_500_000)
        let second = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(second["claimedElsewhere"] as? [String] == ["a.mp4"], "a live claim was taken over: \(second)")
        #expect(FileManager.default.fileExists(atPath: claim))
        // It stopped beating: unchanged for the timeout since the last run saw it.
        usleep(1_500_000)
        let third = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(third["converted"] as? [String] == ["a.mp4"], "\(third)")
        #expect(third["removedClaims"] as? Int == 1)
    }

    @Test("a claim first seen by this host is not taken over at once, however old its mtime; a claim of a dead process of this host is")
    func firstSighting() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "b.mp4"])
        let claims = dir.file("out/.reencode/claims")
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let other = claims + "/" + FNV1a.hex("a-proxy.mp4") + ".claim"
        let ours = claims + "/" + FNV1a.hex("b-proxy.mp4") + ".claim"
        try #"{"host":"elsewhere","pid":1,"token":"t","started":"x","source":"a.mp4"}"#.write(toFile: other, atomically: true, encoding: .utf8)
        // A pid of this host that no longer exists: a process that ran and ended.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        try #"{"host":"b","pid":\#(gone.processIdentifier),"token":"u","started":"x","source":"b.mp4"}"#.write(toFile: ours, atomically: true, encoding: .utf8)
        for c in [other, ours] { try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-86400)], ofItemAtPath: c) }
        let o = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(o["converted"] as? [String] == ["b.mp4"])
        #expect(o["claimedElsewhere"] as? [String] == ["a.mp4"])
        let seen = try #require(F.json((try? String(contentsOfFile: claims + "/.seen-b", encoding: .utf8)) ?? ""))
        #expect((seen["seen"] as? [String: Any])?.keys.contains(FNV1a.hex("a-proxy.mp4") + ".claim") == true, "\(seen)")
    }

    @Test("a host whose claim was taken over while it stalled records nothing, not a failure; the new owner's output stands")
    func lostClaimRecordsNothing() throws {
        let dir = Scratch()
        try F.clip(dir.file("in/long.mp4"), seconds: 3, width: 640, height: 360)
        F.settle(dir.file("in"))
        let (p, out, err) = try Binary.start(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "1",
                                              "--claim-timeout", "1", "--json"], environment: ["REENCODE_HOSTNAME": "a"])
        let deadline = Date().addingTimeInterval(60)
        while !((try? FileManager.default.contentsOfDirectory(atPath: dir.file("out"))) ?? []).contains(where: { $0.contains(".reencode-tmp-") }),
              Date() < deadline { usleep(5_000) }
        kill(p.processIdentifier, SIGSTOP)
        // b sees a's claim and temp stop changing, and takes over once they stayed so for the timeout.
        let first = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(first["claimedElsewhere"] as? [String] == ["long.mp4"])
        usleep(1_500_000)
        let second = try #require(F.json(try batch(dir, host: "b").stdout))
        #expect(second["converted"] as? [String] == ["long.mp4"], "\(second)")
        #expect(second["removedTempFiles"] as? Int == 1)
        kill(p.processIdentifier, SIGCONT)
        let stalled = Binary.finish(p, out, err)
        #expect(stalled.status == 0, "\(stalled.stdout) \(stalled.stderr)")
        let o = try #require(F.json(stalled.stdout), "\(stalled.stdout)")
        #expect(o["claimedElsewhere"] as? [String] == ["long.mp4"])
        #expect((o["failed"] as? [Any])?.isEmpty == true, "\(stalled.stdout)")
        let entries = F.ledger(dir.file("out"))
        #expect(entries.map(\.status) == [.started, .started, .done], "\(entries.map { "\($0.host) \($0.status)" })")
        #expect(entries.last?.host == "b")
        #expect(try F.frames(dir.file("out/long-proxy.mp4")) == (0..<90).map { Optional($0) })
    }
}
