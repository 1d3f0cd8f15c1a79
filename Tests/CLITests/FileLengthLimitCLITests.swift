import Foundation
import Testing

/// `output: { file-length-limit, max-duration }` through `run`: the output ends at the last whole
/// point for which the file, index included, fits; it decodes without an error, its last picture
/// is the one the warning names, and its sound ends with its pictures. Bad limits are refused at
/// their line with nothing written.
@Suite("File-length limit and max-duration")
struct FileLengthLimitCLITests {
    static func recipe(_ ext: String, limits: String) -> String {
        """
        recipe: 1
        output:
          path: "{dir}/{stem}-cut.\(ext)"
          \(limits)
        reader:
          outputs:
            v: { track: video }
            a: { track: audio }
        writer:
          inputs:
            - { source: v, settings: { codec: h264, quality: 23 } }
            - { source: a, settings: { codec: aac, bitrate: 128k } }
        """
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// Runs `limits` on `src`: the status, stderr, and the output's frame stamps and size.
    static func run(_ dir: Scratch, _ src: String, _ ext: String, _ limits: String) throws -> (Binary.Result, stamps: [Int?], bytes: Int) {
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, limits: limits))
        let out = dir.file("clip-cut.\(ext)")
        try? FileManager.default.removeItem(atPath: out)
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none"], timeLimit: 300)
        let stamps = r.status == 0 ? try SampleReaderStamps.read(out) : []
        return (r, stamps, size(out))
    }

    /// The end of the last packet of `stream` (v or a), in seconds, as ffprobe reads it; a
    /// packet without a stated length (pictures) lasts a frame at 30 fps.
    static func end(_ file: String, _ stream: String) throws -> Double {
        let lines = try SlowMotionCompositionCLITests.ffprobe(["-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file])
        return lines.compactMap { line -> Double? in
            let f = line.split(separator: ",").map { Double($0) }
            guard f.count == 2, let start = f[0] else { return nil }
            return start + (f[1] ?? 1.0 / 30)
        }.max() ?? -1
    }

    /// ffmpeg's decode of the whole file: its exit status and error lines.
    static func decode(_ file: String) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", file, "-f", "null", "-"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("run: ends at the last whole point that fits (a byte less ends earlier), decodes cleanly, sound ends with the pictures, MP4 and MKV",
          arguments: ["mp4", "mkv"])
    func cut(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 4, width: 320, height: 240)
        let whole = try Self.run(dir, src, ext, "overwrite: true")
        #expect(whole.0.status == 0, "\(whole.0.stderr)")
        #expect(whole.stamps == (0..<120).map { Optional($0) })
        let limit = whole.bytes * 55 / 100
        let (r, stamps, bytes) = try Self.run(dir, src, ext, "file-length-limit: \(limit)")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(bytes <= limit && bytes > limit / 2, "\(bytes) of \(limit)")
        let out = dir.file("clip-cut.\(ext)")
        // The warning names where it stopped, its last picture and both sizes.
        let warning = r.stderr.split(separator: "\n").map(String.init).first { $0.hasPrefix("warning: \(out): stopped at ") } ?? ""
        let pattern = #/stopped at ([0-9.]+)s \(last frame at ([0-9.]+)s\): with what follows, the file would be larger than its file-length-limit of (\d+) bytes \([0-9.]+ [kM]B\); it has (\d+) bytes \([0-9.]+ [kM]B\)$/#
        let m = try #require(warning.firstMatch(of: pattern), "\(r.stderr)")
        #expect(Int(m.3) == limit && Int(m.4) == bytes)
        let last = try #require(Double(m.2))
        let frames = Int((last * 30).rounded()) + 1
        #expect(stamps == (0..<frames).map { Optional($0) }, "last frame at \(last)s")
        #expect(abs(Double(m.1)! - Double(frames) / 30) < 0.001)
        let decoded = try Self.decode(out)
        #expect(decoded.0 == 0 && decoded.1.isEmpty, "\(decoded.1)")
        let video = try Self.end(out, "v"), audio = try Self.end(out, "a")
        #expect(abs(video - Double(frames) / 30) < 0.002, "pictures end at \(video)s")
        #expect(abs(audio - video) <= 1024.0 / 48000, "sound ends at \(audio)s, pictures at \(video)s")
        // The rule: a limit of exactly this size makes the same file; a byte less ends earlier.
        let exact = try Self.run(dir, src, ext, "file-length-limit: \(bytes)")
        #expect(exact.0.status == 0 && exact.stamps == stamps && exact.bytes == bytes)
        let less = try Self.run(dir, src, ext, "file-length-limit: \(bytes - 1)")
        #expect(less.0.status == 0 && less.stamps.count < stamps.count && less.bytes < bytes, "\(less.stamps.count) frames")
        #expect(less.stamps == (0..<less.stamps.count).map { Optional($0) })
    }

    @Test("validate and run: 'file-length-limit' with 'fragment' is refused at the limit's line (65), nothing written")
    func fragmented() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 1, width: 320, height: 240)
        let (r, _, bytes) = try Self.run(dir, src, "mp4", "fragment: 1s\n  file-length-limit: 100kB")
        #expect(r.status == 65)
        #expect(r.stderr.contains(":5:22: error: 'file-length-limit' and 'fragment' cannot be used together yet: leave out one of them\n"), "\(r.stderr)")
        #expect(bytes == -1)
    }

    @Test("run: a limit below the first GOP is refused at its line with the smallest that fits (65), nothing written; that smallest works")
    func belowFirstGOP() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 4, width: 320, height: 240)
        let (r, _, _) = try Self.run(dir, src, "mp4", "file-length-limit: 2kB")
        #expect(r.status == 65)
        let line = r.stderr.split(separator: "\n").map(String.init).last ?? ""
        let pattern = #/^error: (.*r\.yaml):4:22: 'file-length-limit' is 2000 bytes \(2\.0 kB\), less than the output's first GOP \(to [0-9.]+s\) needs: the smallest limit this output takes is (\d+) bytes \([0-9.]+ kB\)$/#
        let m = try #require(line.firstMatch(of: pattern), "\(r.stderr)")
        #expect(String(m.1) == dir.file("r.yaml"))
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
        let smallest = try #require(Int(m.2))
        let fits = try Self.run(dir, src, "mp4", "file-length-limit: \(smallest)")
        #expect(fits.0.status == 0 && fits.bytes <= smallest && !fits.stamps.isEmpty, "\(fits.0.stderr)")
    }

    @Test("validate: malformed sizes and durations at their line:column (65)")
    func malformed() throws {
        let dir = Scratch()
        let cases: [(String, String)] = [
            ("file-length-limit: 50 megs", "4:22: error: 'file-length-limit' must be a size like 50MB, 1.5GB, 700KiB or 1000000 (bytes), not '50 megs'"),
            ("file-length-limit: -5MB", "4:22: error: 'file-length-limit' must be a size like 50MB, 1.5GB, 700KiB or 1000000 (bytes), not '-5MB'"),
            ("file-length-limit: 0", "4:22: error: 'file-length-limit' must be from 1 byte to 1PB, not '0'"),
            ("file-length-limit: 2PB", "4:22: error: 'file-length-limit' must be a size like 50MB, 1.5GB, 700KiB or 1000000 (bytes), not '2PB'"),
            ("file-length-limit: 2000TB", "4:22: error: 'file-length-limit' must be from 1 byte to 1PB, not '2000TB'"),
            ("max-duration: 0s", "4:17: error: 'max-duration' must be longer than 0s, not '0s'"),
            ("max-duration: soon", "4:17: error: 'max-duration' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not 'soon'"),
        ]
        for (limits, message) in cases {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("mp4", limits: limits))
            let r = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(r.status == 65, "\(limits): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(message)", "\(limits)")
        }
    }

    @Test("run: max-duration ends the output at that time, every picture up to it, sound with them; longer than the source changes nothing")
    func maxDuration() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 2)
        let (r, stamps, _) = try Self.run(dir, src, "mkv", "max-duration: 1.5s")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(stamps == (0..<45).map { Optional($0) })
        let out = dir.file("clip-cut.mkv")
        #expect(abs(try Self.end(out, "a") - 1.5) <= 1024.0 / 48000)
        let long = try Self.run(dir, src, "mkv", "max-duration: 90s")
        #expect(long.0.status == 0 && long.stamps == (0..<60).map { Optional($0) } && !long.0.stderr.contains("warning"), "\(long.0.stderr)")
    }
}
