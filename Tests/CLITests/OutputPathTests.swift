import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let recipe = repo.appendingPathComponent("recipes/hfr-to-30fps.yaml").path

/// A short 120 fps source with audio.
func makeShortSource(_ path: String, seconds: Int = 1, width: Int = 320, height: Int = 180) throws {
    let rate = FrameRate(frames: 120)
    let s = try FrameSource(path: path, video: .droppableH264(width: width, height: height, frameRate: rate), audio: GeneratedAudioFormat())
    for i in 0..<(seconds * 120) {
        try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
        if i % 120 == 119 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.06)) * 0.3 } }
    }
    try s.finish()
}

private func checksum(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

@Suite("reencode run: output paths of every shape, and the source never replaced", .serialized)
struct OutputPathTests {
    @Test("path arithmetic never traps and matches POSIX dirname/basename")
    func pathArithmetic() {
        let cases: [(String, folder: String, name: String, ext: String)] = [
            ("a", ".", "a", ""), ("a/", ".", "a", ""), (".", ".", ".", ""), ("", ".", "", ""), ("/", "/", "/", ""),
            ("a/x.mp4", "a", "x.mp4", "mp4"), ("./a/x.mp4", "./a", "x.mp4", "mp4"), ("/x.mp4", "/", "x.mp4", "mp4"),
            ("a//b/", "a", "b", ""), (".hidden", ".", ".hidden", ""), ("x.", ".", "x.", ""), ("d.e/f", "d.e", "f", ""),
            ("//x.mkv", "/", "x.mkv", "mkv"), ("é/ü.mov", "é", "ü.mov", "mov"),
        ]
        for c in cases {
            #expect(FilePaths.folder(of: c.0) == c.folder, "folder of '\(c.0)'")
            #expect(FilePaths.name(of: c.0) == c.name, "name of '\(c.0)'")
            #expect(FilePaths.pathExtension(of: c.0) == c.ext, "extension of '\(c.0)'")
        }
        #expect(FilePaths.stem(of: "out/clip.final.mp4") == "clip.final")
    }

    @Test("missing one-letter folders are made; bad shapes get a message and an exit code, nothing left")
    func shapes() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir.file("afile")))
        try FileManager.default.createDirectory(atPath: dir.file("dir.mp4"), withIntermediateDirectories: false)
        let before = dir.contents
        // Made, including one-letter folders (these died with SIGILL in NSString's path code).
        for out in ["a/x.mp4", "./b/x.mp4", "c/d/x.mp4", "e//x.mp4"] {
            let r = try Binary.run(["run", recipe, "-i", "s.mp4", "-o", out, "--quiet"], timeLimit: 120, cwd: dir.path)
            #expect(r.status == 0, "\(out): \(r.status) \(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir.file(out)), "\(out)")
        }
        #expect(dir.contents == (before + ["a", "b", "c", "e"]).sorted())
        let long = String(repeating: "n", count: 240) + ".mp4"
        let refused: [(String, Int32, String)] = [
            ("x", 64, "error: x: has no extension to tell the container from: end it in .mp4, .mov, .m4a, .mkv, .webm, .flac, .opus, .ogg or .wav, or name the format\n"),
            ("", 73, "error: '': the output path is empty\n"),
            ("f/", 73, "error: f/: names a folder, not a file: end it with a file name such as out.mp4\n"),
            ("g/..", 73, "error: g/..: names a folder, not a file: end it with a file name such as out.mp4\n"),
            (".", 73, "error: .: names a folder, not a file: end it with a file name such as out.mp4\n"),
            ("dir.mp4", 73, "error: dir.mp4: is a folder: the output must name a file (such as dir.mp4/out.mp4)\n"),
            ("afile/x.mp4", 73, "error: afile/x.mp4: afile is not a folder\n"),
            ("afile/h/x.mp4", 73, "error: afile/h/x.mp4: afile is not a folder\n"),
            (long, 73, "error: \(long): the file name is too long"),
        ]
        for (out, code, message) in refused {
            let r = try Binary.run(["run", recipe, "-i", "s.mp4", "-o", out], timeLimit: 60, cwd: dir.path)
            #expect(r.status == code, "'\(out)': \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix(message), "'\(out)': \(r.stderr)")
            #expect(dir.contents == (before + ["a", "b", "c", "e"]).sorted(), "'\(out)' left \(dir.contents)")
        }
    }

    @Test("the output is never the source, whatever the spelling: symlink, hard link, ./, d/../, linked folder (73)")
    func neverTheSource() throws {
        let dir = Scratch()
        let src = dir.file("s.mp4")
        try makeShortSource(src)
        let original = checksum(src)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: dir.file("l.mp4"), withDestinationPath: "s.mp4")
        try fm.linkItem(atPath: src, toPath: dir.file("hard.mp4"))
        try fm.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: false)
        try fm.createSymbolicLink(atPath: dir.file("here"), withDestinationPath: ".")
        let attempts: [(input: String, output: String, source: String)] = [
            ("l.mp4", "s.mp4", "l.mp4"),         // the example: -i the link, -o the file it names
            ("s.mp4", "l.mp4", "s.mp4"),         // -o a link to the source
            ("s.mp4", "./s.mp4", "s.mp4"),
            ("s.mp4", "d/../s.mp4", "s.mp4"),
            ("s.mp4", "here/s.mp4", "s.mp4"),    // through a symlinked folder
            ("s.mp4", "hard.mp4", "s.mp4"),      // a hard link is the same file
            (src, "s.mp4", src),
        ]
        for a in attempts {
            let r = try Binary.run(["run", recipe, "-i", a.input, "-o", a.output, "--overwrite"], timeLimit: 60, cwd: dir.path)
            #expect(r.status == 73, "\(a): \(r.status) \(r.stderr)")
            #expect(r.stderr == "error: \(a.output): is the source \(a.source) (the same file): the output may never replace it; name another output\n", "\(a)")
            #expect(checksum(src) == original)
            #expect(dir.contents == ["d", "hard.mp4", "here", "l.mp4", "s.mp4"], "\(a) left \(dir.contents)")
            var st = stat()
            #expect(lstat(dir.file("l.mp4"), &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK, "the link is still a link")
        }
    }

    @Test("the output is never the recipe (73), and a missing folder a failed run made is removed", .disabled(if: Sanitizer.thread, Sanitizer.fileSizeLimitReason))
    func neverTheRecipe() throws {
        let dir = Scratch()
        try makeShortSource(dir.file("s.mp4"))
        let r = dir.file("r.mp4")
        let text = try String(contentsOfFile: recipe, encoding: .utf8)
        try text.write(toFile: r, atomically: true, encoding: .utf8)
        let res = try Binary.run(["run", "r.mp4", "-i", "s.mp4", "-o", "./r.mp4", "--overwrite"], timeLimit: 60, cwd: dir.path)
        #expect(res.status == 73)
        #expect(res.stderr == "error: ./r.mp4: is the recipe r.mp4 (the same file): the output may never replace it; name another output\n")
        #expect(try String(contentsOfFile: r, encoding: .utf8) == text)

        // A run that fails after making folders (here a file-size limit: EFBIG) takes them away again.
        let failed = try Binary.run(["run", recipe, "-i", "s.mp4", "-o", "new/deeper/o.mp4"], timeLimit: 60, cwd: dir.path, shell: "ulimit -f 2")
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(dir.contents == ["r.mp4", "s.mp4"], "left \(dir.contents): \(failed.stderr)")
    }
}
