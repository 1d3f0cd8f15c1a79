import Foundation
import Testing

/// scripts/test.sh in a copy of its own, with a `swift` and a reliability/ci-quick.sh that only
/// say they ran and exit as told: what the script does with their outcomes, in seconds.
private func testScript(suite: Int32, reliability: Int32) throws -> (Binary.Result, ranReliability: Bool) {
    let dir = Scratch()
    let fm = FileManager.default
    for folder in ["scripts", "reliability", "bin"] { try fm.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: true) }
    try fm.copyItem(atPath: BatchFixture.repo.appendingPathComponent("scripts/test.sh").path, toPath: dir.file("scripts/test.sh"))
    let stubs = [
        // Sourced by test.sh: nothing to install here.
        "scripts/setup.sh": ":\n",
        "reliability/ci-quick.sh": "#!/bin/bash\necho \"ci-quick $*\" > \"\(dir.file("reliability-ran"))\"\nexit \(reliability)\n",
        "bin/swift": "#!/bin/bash\ncase \"$1\" in test) exit \(suite);; *) exit 0;; esac\n",
    ]
    for (path, text) in stubs {
        try text.write(toFile: dir.file(path), atomically: true, encoding: .utf8)
        chmod(dir.file(path), 0o755)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = [dir.file("scripts/test.sh")]
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = dir.file("bin") + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["REENCODE_CORPUS"] = "/nonexistent"
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let r = Binary.finish(p, out, err)
    let ran = (try? String(contentsOfFile: dir.file("reliability-ran"), encoding: .utf8)) == "ci-quick --fuzz\n"
    return (r, ran)
}

@Suite("scripts/test.sh runs the reliability set even when the test suite failed, and reports both")
struct TestScriptTests {
    @Test("each outcome of the suite and of ci-quick.sh --fuzz: both run, both reported, non-zero when either failed",
          arguments: [(Int32(0), Int32(0)), (1, 0), (0, 1), (1, 1)])
    func outcomes(suite: Int32, reliability: Int32) throws {
        let (r, ran) = try testScript(suite: suite, reliability: reliability)
        #expect(ran, "reliability/ci-quick.sh --fuzz did not run (suite \(suite)): \(r.stdout) \(r.stderr)")
        let said = { (status: Int32) in status == 0 ? "passed" : "FAILED (exit \(status))" }
        #expect(r.stdout.hasSuffix("test.sh: swift test \(said(suite)); reliability/ci-quick.sh --fuzz \(said(reliability))\n"), "\(r.stdout)")
        #expect((r.status == 0) == (suite == 0 && reliability == 0), "exit \(r.status) for suite \(suite), reliability \(reliability)")
    }
}
