import Foundation
import Testing

/// Files and folders under `dir`, relative, sorted.
private func tree(_ dir: String) -> [String] {
    var found: [String] = []
    guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
    while let rel = e.nextObject() as? String { found.append(rel) }
    return found.sorted()
}

/// The pieces of `reencode batch` shared with `run`: the signal list, the recipe reader and the
/// bounded number options.
@Suite("reencode batch: signals, recipe kinds, hostile numbers", .serialized)
struct BatchCommandRobustnessTests {
    @Test("HUP, USR1, ALRM, QUIT and a PIPE from outside stop a batch like INT: exit 128+n, message, no temp file or output left",
          arguments: [(SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1"), (SIGALRM, "SIGALRM"), (SIGQUIT, "SIGQUIT"), (SIGPIPE, "SIGPIPE")])
    func signals(sig: Int32, name: String) throws {
        let dir = Scratch()
        let input = dir.file("in"), output = dir.file("out")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: false)
        try makeShortSource(input + "/long.mp4", seconds: 3, width: 640, height: 360)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: input + "/long.mp4")
        try """
            recipe: 1
            output: { path: "{stem}-slow.mp4" }
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            writer:
              inputs:
                - { source: v, settings: { codec: h264, codec-options: { preset: veryslow } } }
                - { source: a }
            """.write(toFile: dir.file("slow.yaml"), atomically: true, encoding: .utf8)
        let r = try UnderWay.run(["batch", dir.file("slow.yaml"), "--input-dir", input, "--output-dir", output, "--settle", "0", "--jobs", "1"],
                                 signal: sig, tempUnder: output)
        #expect(r.status == 128 + sig, "\(name): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasSuffix("cancelled: unfinished files are left for the next run (\(name))\n"), "\(r.stderr)")
        let left = tree(output).filter { !$0.hasPrefix(".reencode") }
        #expect(left.isEmpty, "\(name) left \(left)")
        #expect(tree(input) == ["long.mp4"])
    }

    @Test("a folder, FIFO or device as the batch recipe is named, exit 66, without blocking; numbers out of range are usage errors")
    func recipeAndNumbers() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: false)
        #expect(mkfifo(dir.file("fifo.yaml"), 0o644) == 0)
        let args = ["--input-dir", dir.file("in"), "--output-dir", dir.file("out")]
        for (path, kind) in [(dir.file("fifo.yaml"), "a FIFO (named pipe)"), (dir.file("in"), "a directory"), ("/dev/zero", "a character device")] {
            let r = try Binary.run(["batch", path] + args, timeLimit: 20)
            #expect(r.status == 66)
            #expect(r.stderr == "error: \(path): is \(kind), not a recipe file\n")
        }
        let recipe = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("recipes/proxy-540p.yaml").path
        let cases: [([String], String)] = [
            (["--jobs", "1e300"], "--jobs must be a whole number from 1 to 256, not '1e300'"),
            (["--jobs", "inf"], "--jobs must be a whole number from 1 to 256, not 'inf'"),
            (["-j", "2.5"], "--jobs must be a whole number from 1 to 256, not '2.5'"),
            (["--jobs", "99999999999999999999"], "--jobs must be a whole number from 1 to 256, not '99999999999999999999'"),
            (["--max-attempts", "1e19"], "--max-attempts must be a whole number from 1 to 1000000, not '1e19'"),
            (["--settle", "inf"], "--settle must be a number of seconds from 0 to 1000000000, not 'inf'"),
            (["--settle", "nan"], "--settle must be a number of seconds from 0 to 1000000000, not 'nan'"),
            (["--claim-timeout", "1e300"], "--claim-timeout must be a number of seconds from 1 to 1000000000, not '1e300'"),
            (["--jobs", "2", "-j", "3"], "'--jobs' and '-j' are the same option, given twice"),
            (["--settle", "1", "--settle", "2"], "'--settle' is given more than once"),
        ]
        for (extra, message) in cases {
            let r = try Binary.run(["batch", recipe] + args + extra, timeLimit: 20)
            #expect(r.status == 64, "\(extra): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix("Error: \(message)\n"), "\(extra): \(r.stderr)")
        }
        #expect(tree(dir.path) == ["fifo.yaml", "in"])
    }
}
