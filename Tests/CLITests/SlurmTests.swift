import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Starts a private single-node Slurm (scripts/slurm-single-node.sh) and stops it afterwards.
private final class SlurmCluster {
    let dir: String
    let conf: String
    private static let script = F.repo.appendingPathComponent("scripts/slurm-single-node.sh").path

    /// The script's reason where Slurm cannot be installed or run here (exit 77); any other
    /// failure (a daemon that will not start, a node never idle) is thrown: a real failure.
    static func start(in dir: String) throws -> Result<SlurmCluster, SlurmUnavailable> {
        let r = try shell([script, "start", dir])
        if r.status == 77 { return .failure(SlurmUnavailable(reason: r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))) }
        guard r.status == 0 else { throw SlurmUnavailable(reason: "slurm-single-node.sh failed (\(r.status)): \(r.stdout) \(r.stderr)") }
        return .success(SlurmCluster(dir: dir))
    }

    /// The started cluster, or nil (having printed why) only where Slurm cannot be installed or
    /// run here (not root, no apt).
    static func startOrSkip(in dir: String) throws -> SlurmCluster? {
        switch try start(in: dir) {
        case .success(let c): return c
        case .failure(let why):
            print("SlurmTests skipped: \(why.reason)")
            return nil
        }
    }

    private init(dir: String) {
        self.dir = dir
        conf = dir + "/slurm.conf"
    }

    func stop() { _ = try? Self.shell([Self.script, "stop", dir]) }

    /// `sbatch` with this cluster's configuration, given at most `limit` seconds: a job that
    /// never starts (`--wait` waits for ever, `--time` counts only once it runs) fails the test
    /// instead of hanging it (timeout exits 124).
    func sbatch(_ args: [String], limit: Int = 600) throws -> Binary.Result {
        try Self.shell(["timeout", "\(limit)", "sbatch"] + args, environment: ["SLURM_CONF": conf])
    }

    /// The queue and the end of the daemons' logs: what to look at when a job did not run.
    func diagnosis() -> String {
        let queue = (try? Self.shell(["squeue", "-a"], environment: ["SLURM_CONF": conf]))?.stdout ?? ""
        let logs = ["slurmctld.log", "slurmd.log"].map { name in
            let text = (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? ""
            return "--- last lines of \(name):\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n")
        }
        return "squeue:\n\(queue)\n" + logs.joined(separator: "\n")
    }

    static func shell(_ args: [String], environment: [String: String] = [:]) throws -> Binary.Result {
        try F.daemonShell(args, environment: environment)
    }
}

struct SlurmUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

@Suite("reencode batch under a real Slurm", .serialized)
struct SlurmTests {
    @Test("a 4-task job array converts a folder exactly once, every slice; a second array converts nothing")
    func jobArray() throws {
        let dir = Scratch()
        guard let cluster = try SlurmCluster.startOrSkip(in: dir.file("slurm")) else { return }
        defer { cluster.stop() }
        let names = (0..<12).map { i in i % 4 == 3 ? "day\(i % 2)/clip\(i).mp4" : "clip\(i).mp4" }.sorted()
        try F.folder(dir.file("in"), names)
        // Each task runs reencode with no --shard: it must take its slice from SLURM_ARRAY_TASK_ID/COUNT.
        let job = dir.file("job.sh")
        try """
            #!/bin/bash
            exec "\(Binary.path)" batch "\(F.recipe)" --input-dir "\(dir.file("in"))" --output-dir "\(dir.file("out"))" --jobs 1 --json
            """.write(toFile: job, atomically: true, encoding: .utf8)
        chmod(job, 0o755)

        func array(_ round: Int) throws -> [[String: Any]] {
            let r = try cluster.sbatch(["--array=0-3", "--wait", "--time=10", "--cpus-per-task=1", "--chdir=\(dir.path)",
                                        "--output=\(dir.path)/round\(round)-%a.out", "--error=\(dir.path)/round\(round)-%a.err", job])
            try #require(r.status == 0, "sbatch (124: not finished within its time limit): \(r.stdout) \(r.stderr)\n\(cluster.diagnosis())")
            return try (0..<4).map { t in
                let out = (try? String(contentsOfFile: dir.file("round\(round)-\(t).out"), encoding: .utf8)) ?? ""
                let err = (try? String(contentsOfFile: dir.file("round\(round)-\(t).err"), encoding: .utf8)) ?? ""
                return try #require(F.json(out), "task \(t): stdout '\(out)' stderr '\(err)'")
            }
        }

        let first = try array(1)
        #expect(first.map { $0["slice"] as? String } == ["0/4", "1/4", "2/4", "3/4"])
        #expect(first.allSatisfy { $0["status"] as? String == "ok" })
        let converted = first.flatMap { $0["converted"] as? [String] ?? [] }.sorted()
        #expect(converted == names)
        // Every slice did its own share: a task saw the other slices' files as other shards.
        for o in first {
            #expect((o["otherShard"] as? Int ?? 0) + (o["converted"] as? [String] ?? []).count == names.count)
        }
        let done = F.ledger(dir.file("out")).filter { $0.status == .done }
        #expect(done.map(\.source).sorted() == names, "each file exactly one done entry")
        for name in names {
            let output = dir.file("out/" + (name as NSString).deletingPathExtension + "-proxy.mp4")
            #expect(try F.frames(output) == (0..<30).map { Optional($0) }, "\(name)'s output is the whole clip")
        }

        let lines = F.ledger(dir.file("out")).count
        let second = try array(2)
        #expect(second.allSatisfy { ($0["converted"] as? [String])?.isEmpty == true })
        #expect(second.map { $0["alreadyDone"] as? Int ?? 0 }.reduce(0, +) == names.count)
        #expect(F.ledger(dir.file("out")).count == lines, "the second array wrote no ledger line")
    }

    @Test("a 4-task array converts one long file in chunks, each chunk exactly once, joined once; again with two tasks killed mid-chunk and requeued")
    func chunkedFile() throws {
        let dir = Scratch()
        guard let cluster = try SlurmCluster.startOrSkip(in: dir.file("slurm")) else { return }
        defer { cluster.stop() }
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        let src = dir.file("in/long.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 24)
        F.settle(dir.file("in"))
        func job(_ name: String, preset: String, out: String) throws -> String {
            let recipe = dir.file(name + ".yaml")
            try ChunkedEncodeCLITests.recipe(output: "{dir}/{stem}-joined.mp4", parallel: "{ chunks: 12 }")
                .replacingOccurrences(of: "preset: ultrafast", with: "preset: \(preset)").write(toFile: recipe, atomically: true, encoding: .utf8)
            let job = dir.file(name + ".sh")
            try """
                #!/bin/bash
                exec "\(Binary.path)" batch "\(recipe)" --input-dir "\(dir.file("in"))" --output-dir "\(out)" --jobs 1 --json --claim-timeout 10
                """.write(toFile: job, atomically: true, encoding: .utf8)
            chmod(job, 0o755)
            return job
        }
        let env = ["SLURM_CONF": cluster.conf]
        /// Each chunk recorded once, the file done once, nothing left, the frames of one encode.
        func expectJoinedOnce(_ out: String) throws {
            #expect(BatchChunksCLITests.chunkLines(out) == Array(1...12), "chunk lines \(BatchChunksCLITests.chunkLines(out))")
            #expect(F.ledger(out).filter { $0.status == .done }.map(\.source) == ["long.mp4"])
            BatchChunksCLITests.expectClean(out)
            #expect(try CompositionRunCLITests.stamps(out + "/long-joined.mp4").map(\.stamp) == Array(0..<720).map { Optional($0) })
        }

        // Round 1: the array as it is.
        let first = try job("first", preset: "ultrafast", out: dir.file("out1"))
        let r = try cluster.sbatch(["--array=0-3", "--wait", "--time=10", "--cpus-per-task=1", "--chdir=\(dir.path)",
                                    "--output=\(dir.path)/first-%a.out", "--error=\(dir.path)/first-%a.err", first])
        try #require(r.status == 0, "sbatch: \(r.stdout) \(r.stderr)\n\(cluster.diagnosis())")
        let reports = try (0..<4).map { t in
            let out = (try? String(contentsOfFile: dir.file("first-\(t).out"), encoding: .utf8)) ?? ""
            return try #require(F.json(out), "task \(t): \(out) \((try? String(contentsOfFile: dir.file("first-\(t).err"), encoding: .utf8)) ?? "")")
        }
        #expect(reports.allSatisfy { $0["status"] as? String == "ok" })
        let encoded = reports.flatMap { ($0["chunks"] as? [[String: Any]] ?? []).compactMap { $0["chunk"] as? Int } }.sorted()
        #expect(encoded == Array(1...12), "the tasks' chunks between them: \(encoded)")
        #expect(reports.flatMap { $0["converted"] as? [String] ?? [] } == ["long.mp4"])
        try expectJoinedOnce(dir.file("out1"))
        try BatchChunksCLITests.expectSameAsWhole(dir.file("out1/long-joined.mp4"), source: src, dir)

        // Round 2: slower chunks; two running tasks killed mid-chunk, then requeued.
        let out2 = dir.file("out2")
        let second = try job("second", preset: "slower", out: out2)
        let submitted = try cluster.sbatch(["--array=0-3", "--parsable", "--requeue", "--time=10", "--cpus-per-task=1", "--chdir=\(dir.path)",
                                            "--output=\(dir.path)/second-%a.out", "--error=\(dir.path)/second-%a.err", second])
        let jobID = try #require(submitted.stdout.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) },
                                 "sbatch: \(submitted.stderr)")
        func running() throws -> [String] {
            try SlurmCluster.shell(["squeue", "-h", "-j", jobID, "-t", "R", "-o", "%i"], environment: env).stdout
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        var deadline = Date().addingTimeInterval(300)
        var victims: [String] = []
        while Date() < deadline {
            let now = try running()
            let inFlight = ((try? FileManager.default.subpathsOfDirectory(atPath: out2 + "/.reencode/chunks")) ?? []).filter { $0.contains(TempMarker.text) }
            if now.count >= 2, !BatchChunksCLITests.chunkLines(out2).isEmpty, !inFlight.isEmpty { victims = Array(now.prefix(2)); break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(victims.count == 2, "two tasks never ran at once mid-chunk\n\(cluster.diagnosis())")
        for v in victims { _ = try SlurmCluster.shell(["scancel", "--signal=KILL", "--full", v], environment: env) }
        deadline = Date().addingTimeInterval(60)
        while Date() < deadline, try !Set(running()).isDisjoint(with: victims) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(BatchChunksCLITests.chunkLines(out2).count < 12, "the kills came after every chunk was done")
        Thread.sleep(forTimeInterval: 1)
        for v in victims {
            let rq = try SlurmCluster.shell(["scontrol", "requeue", v], environment: env)
            #expect(rq.status == 0, "requeue \(v): \(rq.stdout) \(rq.stderr)")
        }
        deadline = Date().addingTimeInterval(600)
        while Date() < deadline {
            let left = try SlurmCluster.shell(["squeue", "-h", "-j", jobID, "-o", "%i %T"], environment: env).stdout
            if left.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        try #require(Date() < deadline, "the array did not finish\n\(cluster.diagnosis())")
        try expectJoinedOnce(out2)
    }
}
