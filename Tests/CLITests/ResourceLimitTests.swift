import Foundation
import Testing

/// What is left under `dir`, temp files and the batch's own folder's files included.
private func leftovers(_ dir: String) -> [String] {
    (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).sorted()
}

/// `run` of the proxy recipe under `shell`'s limit: converted (only the output left), or refused
/// with the exit code and the stderr start of `refusal` (nothing left). Never a signal: a hang is
/// killed by the watchdog (SIGKILL), which fails too. Returns the exit status.
private func limitedRun(_ source: String, out: String, shell: String, refusal: (code: Int32, message: String)) throws -> Int32 {
    let r = try Binary.run(["run", BatchFixture.recipe, "-i", source, "-o", out + "/o.mp4"],
                           timeLimit: 120, environment: ["SWIFT_BACKTRACE": "enable=no"], shell: shell)
    if r.status == 0 {
        #expect(leftovers(out) == ["o.mp4"], "\(shell)")
    } else {
        #expect(r.status == refusal.code, "\(shell): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix(refusal.message), "\(shell): \(r.stderr)")
        #expect(leftovers(out).isEmpty, "\(shell): \(leftovers(out))")
    }
    return r.status
}

/// `run` and `batch` under an open-file limit (`ulimit -n`, soft and hard): every limit ends in
/// success or in 75 naming the shortage (never a signal, never 66 or 73), and a failed run
/// leaves nothing. The limits are fixed, so each case is the same on every run.
@Suite("resource limits: ulimit -n", .serialized)
struct OpenFileLimitTests {
    static let limits = [4, 5, 6, 8, 12, 16, 24, 32, 40, 48, 56, 64, 96]

    private func shortage(_ limit: Int) -> String {
        "the system is short of open files (EMFILE: Too many open files; the open-file limit, ulimit -n, is \(limit))"
    }

    @Test("run: a limit too low to start is refused up front (75, the limit named); a high one converts")
    func runSweep() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        var outcomes: [Int: Int32] = [:]
        for limit in Self.limits {
            let out = dir.file("out\(limit)")
            outcomes[limit] = try limitedRun(dir.file("s.mp4"), out: out, shell: "ulimit -n \(limit)",
                                             refusal: (75, "error: \(shortage(limit)): reencode needs "))
        }
        // Today's numbers: 6 trapped in libdispatch (SIGILL), 8 called the recipe missing (66),
        // 16 the output impossible to create (73).
        for limit in [4, 6, 8, 16, 32] { #expect(outcomes[limit] == 75, "ulimit -n \(limit)") }
        #expect(outcomes[96] == 0)
    }

    @Test("run: a shortage met while converting (a composition of 16 files) is 75, naming the file and the limit")
    func runtimeShortage() throws {
        let dir = Scratch()
        var sources = "sources:\n"
        var layers = ""
        for i in 0..<16 {
            try makeShortSource(dir.file("l\(i).mp4"))
            sources += "  s\(i): \(dir.file("l\(i).mp4"))\n"
            if i > 0 { layers += "    - { rect: { x: 0, y: 0, width: 10%, height: 10% }, segments: [ { source: s\(i), at: 0s, duration: 1s } ] }\n" }
        }
        try """
            recipe: 1
            \(sources)composition:
              video:
                - { source: s0 }
              layers:
            \(layers)reader: { outputs: { picture: { track: video } } }
            writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
            """.write(toFile: dir.file("c.yaml"), atomically: true, encoding: .utf8)
        let out = dir.file("out")
        let r = try Binary.run(["run", dir.file("c.yaml"), "-o", out + "/o.mp4"], timeLimit: 120, shell: "ulimit -n 60")
        #expect(r.status == 75, "\(r.status) \(r.stderr)")
        let line = try #require(r.stderr.split(separator: "\n").last.map(String.init))
        // Which open meets the limit first is a race by design: a layer's reader opens when its
        // lane first asks for it (ReaderPool), beside the writer's creating the output on its own
        // queue (seen: a layer's source when run alone, the output once under the suite's load).
        // Either way the file that could not be opened is named, exactly.
        let source = line.hasPrefix("error: \(dir.path)/l") && line.hasSuffix(".mp4: cannot open: \(shortage(60)); try again later")
        let output = line == "error: \(out)/o.mp4: cannot create the output: \(shortage(60)); try again later"
        #expect(source || output, "\(line)")
        #expect(leftovers(out).isEmpty, "\(leftovers(out))")
    }

    @Test("batch --jobs 4: refused up front (75) or converted; no temp file, no claim, no ledger entry left by a refusal")
    func batchSweep() throws {
        let dir = Scratch()
        try BatchFixture.folder(dir.file("in"), ["a.mp4", "b.mp4", "c.mp4", "d.mp4"])
        for limit in [6, 16, 48, 80, 128] {
            let out = dir.file("out\(limit)")
            let r = try Binary.run(["batch", BatchFixture.recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--jobs", "4"],
                                   timeLimit: 300, shell: "ulimit -n \(limit)")
            // Where the line falls depends on what starting takes (signal sources); both
            // ends are fixed.
            if limit <= 16 { #expect(r.status == 75, "ulimit -n \(limit)") }
            if limit == 128 { #expect(r.status == 0, "ulimit -n \(limit)") }
            if r.status != 0 {
                #expect(r.status == 75, "ulimit -n \(limit): \(r.status) \(r.stderr)")
                #expect(r.stderr.hasPrefix("error: \(shortage(limit)): reencode needs "), "ulimit -n \(limit): \(r.stderr)")
                #expect(leftovers(out).isEmpty, "ulimit -n \(limit): \(leftovers(out))")
            } else {
                let outputs = leftovers(out).filter { !$0.hasPrefix(".reencode") }
                #expect(outputs == ["a-proxy.mp4", "b-proxy.mp4", "c-proxy.mp4", "d-proxy.mp4"], "ulimit -n \(limit): \(outputs)")
            }
        }
    }
}

/// `run` and `batch` under an address-space limit (`ulimit -v`): success, or 75 naming the
/// shortage, never a signal or a hang (the watchdog's SIGKILL fails the case), never 65 for an
/// encoder that could not allocate; a failed run leaves nothing. Below ~250 MiB the dynamic
/// loader itself cannot map the libraries (127, before reencode runs): not tried.
@Suite("resource limits: ulimit -v", .serialized)
struct AddressSpaceLimitTests {
    private func shortage(_ mebibytes: Int) -> String {
        "error: the system is short of memory (ENOMEM: Cannot allocate memory; the address-space limit, ulimit -v, is \(mebibytes) MiB): reencode needs "
    }

    @Test("run: refused up front (75, the limit named) or converted; today 300 MiB gave 65 and 400–1100 MiB hung or crashed")
    func runSweep() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"), width: 1280, height: 720)
        var outcomes: [Int: Int32] = [:]
        for mebibytes in [300, 400, 500, 700, 2048] {
            let out = dir.file("out\(mebibytes)")
            outcomes[mebibytes] = try limitedRun(dir.file("s.mp4"), out: out, shell: "ulimit -v \(mebibytes << 10)",
                                                 refusal: (75, shortage(mebibytes)))
        }
        #expect(outcomes[300] == 75 && outcomes[400] == 75)
        #expect(outcomes[2048] == 0)
    }

    @Test("batch --jobs 4: refused up front when four conversions do not fit (75), else all four converted")
    func batchSweep() throws {
        let dir = Scratch()
        try BatchFixture.folder(dir.file("in"), ["a.mp4", "b.mp4", "c.mp4", "d.mp4"])
        for mebibytes in [1000, 8192] {
            let out = dir.file("out\(mebibytes)")
            let r = try Binary.run(["batch", BatchFixture.recipe, "--input-dir", dir.file("in"), "--output-dir", out, "--jobs", "4"],
                                   timeLimit: 300, environment: ["SWIFT_BACKTRACE": "enable=no"], shell: "ulimit -v \(mebibytes << 10)")
            if mebibytes == 1000 {
                #expect(r.status == 75, "\(r.status) \(r.stderr)")
                #expect(r.stderr.hasPrefix(shortage(mebibytes)), "\(r.stderr)")
                #expect(leftovers(out).isEmpty, "\(leftovers(out))")
            } else {
                #expect(r.status == 0, "\(r.status) \(r.stderr)")
                #expect(leftovers(out).filter { !$0.hasPrefix(".reencode") } == ["a-proxy.mp4", "b-proxy.mp4", "c-proxy.mp4", "d-proxy.mp4"])
            }
        }
    }
}
