import Foundation
import Pipeline
import Testing

private typealias F = BatchFixture

/// Slurm's environment, a crash between output and ledger, folders shared by runs, a re-stat
/// source, and --dry-run's refusals (issue 10's review).
@Suite("reencode batch: edge cases", .serialized)
struct BatchEdgeCaseTests {
    func batch(_ dir: Scratch, _ extra: [String] = [], host: String = "host-a", env: [String: String] = [:]) throws -> Binary.Result {
        try Binary.run(["batch", F.recipe, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--jobs", "2"] + extra,
                       timeLimit: 120, environment: env.merging(["REENCODE_HOSTNAME": host]) { a, _ in a })
    }

    // MARK: Slurm's array variables

    func slurm(_ dir: Scratch, id: String, count: String, min: String = "0", step: String? = nil) throws -> Binary.Result {
        var env = ["SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MIN": min]
        env["SLURM_ARRAY_TASK_STEP"] = step ?? "1"
        return try batch(dir, ["--dry-run", "--json"], env: env)
    }

    @Test("Slurm variables out of Int's range are a usage error (64), never a trap")
    func slurmOverflow() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4"])
        let r = try slurm(dir, id: "1", count: "2", min: "-9223372036854775807")
        #expect(r.status == 64, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_ID 1 minus SLURM_ARRAY_TASK_MIN -9223372036854775807 is out of range\n"), "\(r.stderr)")
        let big = try slurm(dir, id: "9223372036854775807", count: "2", min: "-1")
        #expect(big.status == 64, "\(big.stderr)")
        let word = try slurm(dir, id: "1", count: "two")
        #expect(word.status == 64)
        #expect(word.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_COUNT must be a whole number, not 'two'\n"), "\(word.stderr)")
    }

    @Test("a stepped Slurm array (--array=10-16:2) gives slices 0…3; an ID off the step is a usage error")
    func slurmStep() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), (0..<12).map { "f\($0).mp4" })
        var planned: [String] = []
        for (slice, id) in [10, 12, 14, 16].enumerated() {
            let r = try slurm(dir, id: "\(id)", count: "4", min: "10", step: "2")
            #expect(r.status == 0, "task \(id): \(r.stderr)")
            let o = try #require(F.json(r.stdout), "\(r.stdout)")
            #expect(o["slice"] as? String == "\(slice)/4")
            planned += o["planned"] as? [String] ?? []
        }
        #expect(planned.sorted() == (0..<12).map { "f\($0).mp4" }.sorted(), "each file in exactly one slice")
        let off = try slurm(dir, id: "13", count: "4", min: "10", step: "2")
        #expect(off.status == 64)
        #expect(off.stderr.hasPrefix("Error: SLURM_ARRAY_TASK_ID 13 is not SLURM_ARRAY_TASK_MIN 10 plus a multiple of SLURM_ARRAY_TASK_STEP 2\n"), "\(off.stderr)")
        // Step 1 (Slurm sets it on every array) is the plain case.
        let plain = try slurm(dir, id: "3", count: "4", min: "0", step: "1")
        #expect(F.json(plain.stdout)?["slice"] as? String == "3/4")
    }
}
