import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Several hosts on sshfs mounts of one folder over loopback (scripts/sshfs-hosts.sh: Debian's
/// openssh-server and sshfs, started and stopped here), one of them with its clock 300 s ahead
/// (faketime under its sshfs, which stamps the times it sets; REENCODE_TEST_CLOCK_OFFSET for its
/// reencode), with kill -9: issue 23, "Many machines on one shared folder".
private final class SSHFSHosts {
    let dir: String
    private static let script = F.repo.appendingPathComponent("scripts/sshfs-hosts.sh").path

    /// The script's reason where it cannot run here (exit 77); any other failure is thrown.
    static func start(in dir: String) throws -> Result<SSHFSHosts, Unavailable> {
        let r = try shell([script, "start", dir])
        if r.status == 77 { return .failure(Unavailable(reason: r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))) }
        guard r.status == 0 else { throw Unavailable(reason: "sshfs-hosts.sh start failed (\(r.status)): \(r.stdout) \(r.stderr)") }
        return .success(SSHFSHosts(dir: dir))
    }

    private init(dir: String) { self.dir = dir }

    /// DIR/NAME: the shared folder as this host sees it.
    func mount(_ name: String, skew: String = "", options: String = "") throws -> String {
        let r = try Self.shell([Self.script, "mount", dir, name, skew, options])
        guard r.status == 0 else { throw Unavailable(reason: "mount \(name) failed (\(r.status)): \(r.stderr)") }
        return dir + "/" + name
    }

    func stop() { _ = try? Self.shell([Self.script, "stop", dir]) }

    static func shell(_ args: [String]) throws -> Binary.Result { try F.daemonShell(args) }

    struct Unavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}

@Suite("reencode batch: hosts on sshfs mounts of one folder", .serialized)
struct SSHFSHostsTests {
    static let timeout = 4

    func args(_ mount: String, _ extra: [String] = []) -> [String] {
        ["batch", F.recipe, "--input-dir", mount + "/in", "--output-dir", mount + "/out", "--jobs", "1",
         "--claim-timeout", "\(Self.timeout)", "--retry-after", "0", "--json"] + extra
    }

    func env(_ host: String, ahead: Bool = false) -> [String: String] {
        var e = ["REENCODE_HOSTNAME": host]
        if ahead { e["REENCODE_TEST_CLOCK_OFFSET"] = "300" }
        return e
    }

    /// Waits until a temp output of `host` exists (its conversion is under way).
    func waitForTemp(of host: String, in out: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            if names.contains(where: { $0.contains(".reencode-tmp-\(host)-") }) { return true }
            usleep(20_000)
        }
        return false
    }

    @Test("three hosts, one 300 s ahead, one killed: every file converted once, no live output deleted, no ledger line lost; a storage without link is refused")
    func hosts() throws {
        let scratch = Scratch()
        let hosts: SSHFSHosts
        switch try SSHFSHosts.start(in: scratch.file("sshfs")) {
        case .success(let h): hosts = h
        case .failure(let why):
            // Only where it cannot be installed or run (not root, no apt, no FUSE), and it says why.
            print("SSHFSHostsTests skipped: \(why.reason)")
            return
        }
        defer { hosts.stop() }
        let shared = hosts.dir + "/shared"
        let names = (0..<9).map { "clip\($0).mp4" }
        for n in names { try F.clip(shared + "/in/" + n, seconds: 2, width: 320, height: 240) }
        F.settle(shared + "/in")
        let a = try hosts.mount("a"), b = try hosts.mount("b"), c = try hosts.mount("c", skew: "+300s")

        // a and b start; once both convert, c (300 s ahead) starts and must leave their claims alone.
        let runA = try Binary.start(args(a), environment: env("a"))
        let runB = try Binary.start(args(b), environment: env("b"))
        #expect(waitForTemp(of: "a", in: shared + "/out") && waitForTemp(of: "b", in: shared + "/out"))
        let runC = try Binary.start(args(c), environment: env("c", ahead: true))
        // a dies mid-file (after its next conversion is under way): its claim and temp stay behind.
        usleep(300_000)
        #expect(waitForTemp(of: "a", in: shared + "/out"))
        kill(runA.0.processIdentifier, SIGKILL)
        _ = Binary.finish(runA.0, runA.1, runA.2)
        var reports = [Binary.finish(runB.0, runB.1, runB.2), Binary.finish(runC.0, runC.1, runC.2)]
        // Whole seconds over SFTP: 299 to 301.
        let skewSaid = ["299", "300", "301"].contains { reports[1].stderr.contains("warning: \(c)/out: a file just created there carries a time \($0) s behind this host's clock: keep the clocks") }
        #expect(skewSaid, "\(reports[1].stderr)")

        // a's claim is taken over by another host only after it saw it unchanged for the timeout.
        reports.append(try Binary.run(args(b), timeLimit: 120, environment: env("b")))
        sleep(UInt32(Self.timeout + 1))
        reports.append(try Binary.run(args(c), timeLimit: 120, environment: env("c", ahead: true)))
        reports.append(try Binary.run(args(b), timeLimit: 120, environment: env("b")))

        let objects = try reports.map { r in try #require(F.json(r.stdout), "\(r.stdout) \(r.stderr)") }
        for (r, o) in zip(reports, objects) {
            #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
            #expect((o["failed"] as? [Any])?.isEmpty == true, "a host recorded a failure (its live output deleted?): \(r.stdout)")
        }
        // Exactly once: every file converted by exactly one run that lived to report it, or by a.
        let reported = objects.flatMap { $0["converted"] as? [String] ?? [] }
        #expect(Set(reported).count == reported.count, "converted twice: \(reported.sorted())")
        #expect(objects.last?["alreadyDone"] as? Int == names.count, "\(objects.last ?? [:])")
        for n in names {
            let output = shared + "/out/" + (n as NSString).deletingPathExtension + "-proxy.mp4"
            #expect(try F.frames(output) == (0..<60).map { Optional($0) }, "\(n)'s output is whole")
        }
        // No lost ledger line: every line parses, every conversion a run reported has its own
        // `done` line, and each file exactly one conversion (`done` with `seconds`).
        let journals = F.journals(shared + "/out")
        #expect(!journals.isEmpty)
        let lines = journals.flatMap { path in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        }
        #expect(lines.allSatisfy { F.json(String($0)) != nil }, "unparsable ledger lines: \(lines.filter { F.json(String($0)) == nil })")
        let entries = F.ledger(shared + "/out")
        let conversions = entries.filter { $0.status == .done && $0.seconds != nil }
        #expect(conversions.map(\.source).sorted() == names, "conversions in the ledger: \(conversions.map { "\($0.host):\($0.source)" })")
        for (o, host) in zip(objects, ["b", "c", "b", "c", "b"]) {
            for s in o["converted"] as? [String] ?? [] {
                #expect(conversions.contains { $0.source == s && $0.host == host }, "\(host) converted \(s): its done line is lost")
            }
        }
        #expect(entries.filter { $0.status == .failed }.isEmpty)
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: shared + "/out")) ?? []).filter { $0.contains(".reencode-tmp-") }
        #expect(left.isEmpty, "temp files left: \(left)")

        // A storage without hard links cannot hold claims: refused with the reason.
        let d = try hosts.mount("d", options: "disable_hardlink")
        let refused = try Binary.run(args(d), timeLimit: 60, environment: env("d"))
        #expect(refused.status == 73)
        let message = "\(d)/out/.reencode/claims: the storage of the output folder cannot hold claims: link failed: Operation not permitted; several machines (or runs) could convert one file (see docs/batch.md, \"What the storage must provide\")"
        #expect(F.json(refused.stdout)?["error"] as? String == message, "\(refused.stdout)")
    }
}
