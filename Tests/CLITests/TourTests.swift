import Foundation
import Testing

private typealias F = BatchFixture

/// What a fresh clone holds that the tour and the recipes use — recipes/ and samples/ as git has
/// them — copied into a scratch folder, so nothing runs in the repository itself.
private func freshCopy() throws -> Scratch {
    let dir = Scratch()
    for folder in ["recipes", "samples"] {
        try FileManager.default.copyItem(atPath: F.repo.appendingPathComponent(folder).path, toPath: dir.file(folder))
    }
    return dir
}

/// Runs one line of shell in `dir` with the built reencode first on PATH, as the README says.
private func shell(_ line: String, in dir: String) throws -> Binary.Result {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = ["-c", line]
    p.currentDirectoryURL = URL(fileURLWithPath: dir)
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = URL(fileURLWithPath: Binary.path).deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    p.environment = env
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let watchdog = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
    defer { watchdog.cancel() }
    return Binary.finish(p, out, err)
}

/// The lines of the README's tour: the first ```sh block after "## A 60-second tour".
private func tourLines() throws -> [String] {
    let readme = try String(contentsOf: F.repo.appendingPathComponent("README.md"), encoding: .utf8)
    let tour = try #require(readme.range(of: "## A 60-second tour"), "README.md has no tour")
    let rest = readme[tour.upperBound...]
    let open = try #require(rest.range(of: "```sh\n"), "the tour has no sh block")
    let close = try #require(rest[open.upperBound...].range(of: "```"), "the tour's block does not end")
    return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init).filter { !$0.isEmpty }
}

@Suite("A newcomer's first minutes: the README's tour and every recipe in recipes/ run as written", .serialized)
struct TourTests {
    @Test("the README's tour, line by line on a fresh copy after scripts/run-hfr.sh: each exits 0 and makes what its '→' names")
    func tour() throws {
        let dir = try freshCopy()
        // scripts/run-hfr.sh, which the set-up runs first, has made this output already.
        let setUp = try shell("reencode run recipes/hfr-to-30fps.yaml --overwrite", in: dir.path)
        try #require(setUp.status == 0, "run-hfr.sh's conversion: \(setUp.status) \(setUp.stderr)")
        let lines = try tourLines()
        #expect(lines.count >= 7 && lines.allSatisfy { $0.hasPrefix("reencode ") || $0.hasPrefix("mkdir ") }, "\(lines)")
        for line in lines {
            let r = try shell(line, in: dir.path)
            #expect(r.status == 0, "\(line)\n→ exit \(r.status): \(r.stderr)")
            // "# → out/x.mp4, 30 fps": the file named after the arrow exists now.
            if let arrow = line.range(of: "# → ") {
                let made = String(line[arrow.upperBound...].prefix { $0 != "," && $0 != " " })
                #expect(FileManager.default.fileExists(atPath: dir.file(made)), "\(line): no \(made)")
            }
        }
        // The tour's batch converted the two files it copied in, each once.
        #expect(F.ledger(dir.file("proxies")).filter { $0.status == .done }.map(\.source).sorted() == ["intro.mp4", "outro.mp4"])
        // Nothing was written among the samples: git would list it as untracked.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("samples")).sorted()
                == FileManager.default.contentsOfDirectory(atPath: F.repo.appendingPathComponent("samples").path).sorted())
    }

    @Test("batch on files just copied in says, without --verbose, that it left them to settle")
    func settleSaid() throws {
        let dir = try freshCopy()
        let r = try shell("mkdir uploads && cp samples/intro.mp4 samples/outro.mp4 uploads/ && "
                          + "reencode batch recipes/proxy-540p.yaml --input-dir uploads --output-dir proxies", in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first.map(String.init), "nothing said: '\(r.stdout)'")
        #expect(line.hasPrefix("converted 0, failed 0, already done 0, left to settle 2 (changed within --settle: a later run takes them) — "), "\(line)")
        #expect(r.stdout.split(separator: "\n").count == 1 && r.stderr.isEmpty, "\(r.stdout) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("proxies/intro-proxy.mp4")))
    }

    @Test("every recipe in recipes/, with no -i: plans its bundled sample into out/ (never into samples/), or asks for -i (66)")
    func recipesWithoutInput() throws {
        let dir = try freshCopy()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.file("recipes")).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names.count == 26)
        var planned: [String] = [], asking: [String] = []
        for name in names {
            let r = try Binary.run(["plan", "--json", "recipes/" + name], timeLimit: 300, cwd: dir.path)
            if r.status == 0 {
                let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(name)")
                let output = try #require(o["output"] as? String, "\(name)")
                #expect(output.hasPrefix("out/") && !output.contains("samples/"), "\(name) writes to \(output)")
                planned.append(name)
            } else {
                #expect(r.status == 66, "\(name): \(r.status) \(r.stderr)")
                #expect(r.stderr == "error: recipes/\(name): no source file: name one with -i INPUT or 'source:' in the recipe\n", "\(name): \(r.stderr)")
                asking.append(name)
            }
        }
        #expect(planned == ["concat.yaml", "crossfade.yaml", "cut-out.yaml", "fade-in-out.yaml", "hfr-to-30fps.yaml", "music-bed.yaml",
                            "pip.yaml", "slomo-240-to-30.yaml"])
        #expect(asking.count == 18, "\(asking)")
        // Each recipe that asks says so in its first comment lines: the file to convert comes with -i.
        for name in asking {
            let text = try String(contentsOfFile: dir.file("recipes/" + name), encoding: .utf8)
            let header = text.split(separator: "\n").prefix { $0.hasPrefix("#") }.joined(separator: "\n")
            #expect(header.contains("-i"), "\(name)'s comment does not say to pass -i:\n\(header)")
        }
    }
}
