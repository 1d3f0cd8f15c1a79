import Foundation
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let recipe = repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path

@Suite("reencode run, validate, plan: hostile recipes paths and arguments", .serialized)
struct HostileArgumentTests {
    @Test("a folder, FIFO, device or oversized file given as the recipe is named for what it is; a FIFO never blocks")
    func recipeKinds() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        try FileManager.default.createDirectory(atPath: dir.file("folder.yaml"), withIntermediateDirectories: false)
        #expect(mkfifo(dir.file("fifo.yaml"), 0o644) == 0)
        // One byte over the documented 1 MiB limit, all comment: refused by its size, not parsed.
        try Data(repeating: UInt8(ascii: "#"), count: (1 << 20) + 1).write(to: URL(fileURLWithPath: dir.file("big.yaml")))
        let cases: [(String, Int32, String)] = [
            (dir.file("folder.yaml"), 66, "is a directory, not a recipe file"),
            (dir.file("fifo.yaml"), 66, "is a FIFO (named pipe), not a recipe file"),
            ("/dev/null", 66, "is a character device, not a recipe file"),
            ("/dev/zero", 66, "is a character device, not a recipe file"),
            (dir.file("big.yaml"), 65, "the recipe is 1048577 bytes, larger than the limit of 1 MiB (1048576 bytes)"),
            (dir.file("none.yaml"), 66, "cannot read the recipe: no such file"),
            (dir.file("s.mp4/x.yaml"), 66, "cannot read the recipe: no such file"),
        ]
        for (path, code, message) in cases {
            for command in [["validate", path], ["plan", path, "-i", dir.file("s.mp4")], ["run", path, "-i", dir.file("s.mp4"), "-o", dir.file("o.mp4")]] {
                let started = Date()
                let r = try Binary.run(command, timeLimit: 20)
                #expect(Date().timeIntervalSince(started) < 10, "\(command) took too long")
                #expect(r.status == code, "\(command): \(r.status) \(r.stderr)")
                #expect(r.stderr == "error: \(path): \(message)\n", "\(command)")
            }
        }
        #expect(try Binary.run(["validate", ""]).stderr == "error: '': cannot read the recipe: no such file\n")
        #expect(dir.contents == ["big.yaml", "fifo.yaml", "folder.yaml", "s.mp4"])
    }

    @Test("outputs that are not regular files are never replaced, even with --overwrite, and nothing blocks")
    func nonRegularOutputs() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        #expect(mkfifo(dir.file("fifo.mp4"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir.file("null.mp4"), withDestinationPath: "/dev/null")
        for (out, kind) in [("fifo.mp4", "a FIFO (named pipe)"), ("null.mp4", "a character device")] {
            let r = try Binary.run(["run", recipe, "-i", dir.file("s.mp4"), "-o", dir.file(out), "--overwrite"], timeLimit: 20)
            #expect(r.status == 73)
            #expect(r.stderr == "error: \(dir.file(out)): is \(kind): only a regular file can be an output\n")
        }
        var st = stat()
        #expect(lstat(dir.file("null.mp4"), &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(stat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
        #expect(dir.contents == ["fifo.mp4", "null.mp4", "s.mp4"])
    }

    @Test("hostile arguments: each gets a clear message and its exit code, and nothing is left")
    func arguments() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        try FileManager.default.createDirectory(atPath: dir.file("folder"), withIntermediateDirectories: false)
        let s = dir.file("s.mp4"), o = dir.file("o.mp4")
        let usage = "Usage: reencode run RECIPE"
        let cases: [([String], Int32, String)] = [
            (["run", recipe, "-i", s, "-o", o, "--frobnicate"], 64, "Error: unknown option '--frobnicate'\n\(usage)"),
            (["run", recipe, "-i", s, "-o", o, "-o", dir.file("p.mp4")], 64, "Error: '-o' is given more than once\n\(usage)"),
            (["run", recipe, "-i", s, "--output", o, "-o", dir.file("p.mp4")], 64, "Error: '-o' and '--output' are the same option, given twice\n\(usage)"),
            (["run", recipe, "-i", s, "-o", o, "--overwrite=yes"], 64, "Error: '--overwrite' takes no value\n\(usage)"),
            (["run", recipe, "-i", s, "-o", o, "--progress="], 64, "Error: --progress must be auto, bar, json or none, not ''\n\(usage)"),
            (["run", recipe, "-i"], 64, "Error: missing value for '-i'\n\(usage)"),
            (["run", recipe, "-i", s, "-o", o, "extra"], 64, "Error: unexpected argument 'extra'\n\(usage)"),
            (["run", recipe, "-i", "", "-o", o], 66, "error: '': the input path is empty\n"),
            (["run", recipe, "-i", dir.file("folder"), "-o", o], 66, "error: \(dir.file("folder")): is a directory, not a media file\n"),
            (["run", recipe, "-i", s, "-o", recipe, "--overwrite"], 73, "error: \(recipe): is the recipe \(recipe) (the same file): the output may never replace it; name another output\n"),
            (["run", recipe, "-i", s, "-o", "/proc/o.mp4"], 73, "error: /proc/o.mp4: cannot create the output: "),
            (["plan", recipe, "-i", s, "-i", s], 64, "Error: '-i' is given more than once\nUsage: reencode plan"),
        ]
        for (args, code, message) in cases {
            let r = try Binary.run(args, timeLimit: 30)
            #expect(r.status == code, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix(message), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("Fatal error"))
        }
        #expect(dir.contents == ["folder", "s.mp4"])
    }
}
