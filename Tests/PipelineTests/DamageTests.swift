import Foundation
import Pipeline
import Recipe
import Testing

/// Cut-off and non-media sources: a cut anywhere fails with the file, track and media time (exit
/// 1) and leaves nothing; a file too short to be media, or not media at all, is `notMedia` (66);
/// only a read(2) that fails is an I/O error (74).
@Suite("Damaged and cut-off sources")
struct DamageTests {
    /// 2 s of 320x240 30 fps with stereo audio, made by our writer (index first for mp4/mov).
    static func source(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(path, video: v, frames: 60, audio: true)
    }

    /// The first `bytes` bytes of `src`, written to `path`.
    static func cut(_ src: String, to bytes: Int, as path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: src))
        try data.prefix(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    }

    /// The file's timeline: its start to its end.
    static func extent(_ path: String) throws -> TimeRange {
        let a = try Asset.load(path)
        return TimeRange(start: a.startTime, duration: a.duration)
    }

    /// The error loading `path` ends with, or nil when it loads.
    static func loadError(_ path: String) -> MediaError? {
        do { _ = try Asset.load(path); return nil } catch { return error }
    }

    static func convert(_ src: String, _ out: String) throws {
        try runConversion(ConversionRequest(source: src, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(.fast())),
            TrackRequest(.type(.audio, 0), .audio(AudioSettings())),
        ]))
    }

    /// Expects the conversion of `path` to fail as a cut-off file, placed on a track and a time
    /// within the source, with nothing written.
    static func expectTruncated(_ path: String, within whole: TimeRange, dir: Scratch, note: String) {
        let out = dir.file("out.mp4")
        do {
            try convert(path, out)
            Issue.record("\(note): converted")
        } catch let e as MediaError {
            #expect(e.kind == .processing, "\(note): \(e)")
            #expect(e.exitCode == 1, "\(note)")
            #expect(e.file == path, "\(note): \(e)")
            #expect(e.track != nil, "\(note): \(e)")
            #expect(e.time.map { whole.contains($0) } == true, "\(note): \(e)")
            #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(note): \(e)")
            #expect(e.description.hasPrefix("\(path): track "), "\(note): \(e)")
        } catch {
            Issue.record("\(note): \(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "\(note): left an output")
        #expect(!dir.contents.contains { $0.hasPrefix(".out.mp4") }, "\(note): left \(dir.contents)")
    }

    @Test("a cut at every k/21 of the length fails with the file, track and time and leaves nothing",
          arguments: ["mkv", "mp4", "mov"])
    func cutSweep(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("whole.\(ext)")
        try Self.source(src)
        try Self.convert(src, dir.file("whole-ok.mp4"))  // the whole file converts
        let whole = try Self.extent(src)
        let size = try Self.size(src)
        for k in 1...20 {
            let cut = dir.file("cut\(k).\(ext)")
            try Self.cut(src, to: size * k / 21, as: cut)
            Self.expectTruncated(cut, within: whole, dir: dir, note: "\(ext) cut at \(k)/21")
            try FileManager.default.removeItem(atPath: cut)
        }
        #expect(Set(dir.contents) == ["whole.\(ext)", "whole-ok.mp4"])
    }

    @Test("a trim inside the part a cut MKV still holds converts; one that runs to the end fails as cut off",
          arguments: ["mkv", "mp4"])
    func trimBeforeCut(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("whole.\(ext)")
        try Self.source(src)
        let cut = dir.file("half.\(ext)")
        try Self.cut(src, to: try Self.size(src) * 12 / 21, as: cut)
        func request(_ range: TimeRange, _ out: String) -> ConversionRequest {
            var r = ConversionRequest(source: cut, output: out, tracks: [TrackRequest(.type(.video, 0), .video(.fast()))])
            r.timeRange = range
            return r
        }
        let out = dir.file("early.mp4")
        try runConversion(request(TimeRange(start: MediaTime(value: 1, timescale: 10), duration: MediaTime(value: 5, timescale: 10)), out))
        let stamps = try Media.stamps(out).map(\.stamp)
        // 0.1 s to 0.6 s, cut at frame starts: 15 whole frames from frame 3 (from frame 2 in MKV,
        // where the audio's priming at 0 puts the video 21 ms later: 0.1 s is nearer frame 2).
        let first = ext == "mkv" ? 2 : 3
        #expect(stamps == (first..<first + 15).map { Optional($0) }, "\(stamps)")
        do {
            try runConversion(request(TimeRange(start: MediaTime(value: 1, timescale: 10), duration: .positiveInfinity), dir.file("late.mp4")))
            Issue.record("the open-ended trim of a cut file converted")
        } catch let e as MediaError {
            #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(e)")
            #expect(e.file == cut && e.track == 0 && e.time != nil, "\(e)")
        }
        #expect(Set(dir.contents) == ["whole.\(ext)", "half.\(ext)", "early.mp4"])
    }

    @Test("an MP4 whose index (moov) was at the end and is cut off is not media: nothing in it can be read")
    func indexAtEndCutOff() throws {
        let dir = Scratch()
        let made = dir.file("made.mp4")
        try Self.source(made)
        let src = dir.file("moov-last.mp4")
        var req = ConversionRequest(source: made, output: src, tracks: [
            TrackRequest(.type(.video, 0), .passthrough), TrackRequest(.type(.audio, 0), .passthrough),
        ])
        req.optimizeForNetwork = false
        try runConversion(req)
        let size = try Self.size(src)
        for k in [1, 10, 20] {
            let cut = dir.file("cut\(k).mp4")
            try Self.cut(src, to: size * k / 21, as: cut)
            #expect(Self.loadError(cut)?.withoutDetail == MediaError(.notMedia, "not a media file FFmpeg can read: Invalid data found when processing input", file: cut, code: .ffmpeg(-1094995529)))
            #expect(Self.loadError(cut)?.detail?.hasSuffix("moov atom not found") == true)
        }
    }

    @Test("a transport stream cut inside a packet fails as cut off at every k/21")
    func transportStreamCut() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4")
        try Self.source(mp4)
        let ts = dir.file("whole.ts")
        try #require(try FFmpegCLI.remux(mp4, to: ts), "ffmpeg (scripts/setup.sh installs it) could not make a transport stream")
        try Self.convert(ts, dir.file("whole-ok.mp4"))
        let whole = try Self.extent(ts)
        let size = try Self.size(ts)
        #expect(size % 188 == 0)
        for k in 1...20 {
            var bytes = size * k / 21
            if bytes % 188 == 0 { bytes -= 1 }  // inside a packet
            let cut = dir.file("cut\(k).ts")
            try Self.cut(ts, to: bytes, as: cut)
            Self.expectTruncated(cut, within: whole, dir: dir, note: "ts cut at \(k)/21 (\(bytes) bytes)")
            try FileManager.default.removeItem(atPath: cut)
        }
    }

    @Test("truncations to 0, 1, 16, 100 and 1000 bytes and random bytes are not media (66), naming the file, unless they hold a sample",
          arguments: ["mkv", "mp4", "mov", "ts"])
    func tooShortToBeMedia(ext: String) throws {
        let dir = Scratch()
        var src = dir.file("whole.\(ext)")
        if ext == "ts" {
            let mp4 = dir.file("made.mp4")
            try Self.source(mp4)
            try #require(try FFmpegCLI.remux(mp4, to: src))
        } else {
            try Self.source(src)
        }
        for n in [0, 1, 16, 100, 1000] {
            let cut = dir.file("short\(n).\(ext)")
            try Self.cut(src, to: n, as: cut)
            if let error = Self.loadError(cut) {
                #expect(error.kind == .notMedia, "\(n) bytes of \(ext): \(error)")
                #expect(error.exitCode == 66)
                #expect(error.file == cut)
                #expect(error.message.hasPrefix("not a media file"), "\(n) bytes of \(ext): \(error)")
            } else {
                // 1000 bytes of our MKV hold its header and one whole 21 ms AAC frame: that is
                // media, cut off — the conversion fails as truncated (1), not as "not media".
                #expect(n == 1000 && ext == "mkv", "\(n) bytes of \(ext) loaded")
                #expect(try PacketScan.extents(cut).isEmpty == false, "\(n) bytes of \(ext) loaded, without a sample")
                Self.expectTruncated(cut, within: try Self.extent(src), dir: dir, note: "\(n) bytes of \(ext)")
            }
        }
        var rng = SeededRandom(seed: 10)
        src = dir.file("random.\(ext)")
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) }).write(to: URL(fileURLWithPath: src))
        let random = Self.loadError(src)
        #expect(random?.kind == .notMedia && random?.file == src, "\(String(describing: random))")
        let empty = dir.file("empty.\(ext)")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let e = Self.loadError(empty)
        #expect(e?.kind == .notMedia && e?.file == empty && e?.message.hasPrefix("not a media file") == true, "\(String(describing: e))")
    }

    @Test("100 bytes of an MKV: not media because the file ends too soon, not an I/O error")
    func shortMKVMessage() throws {
        let dir = Scratch()
        let src = dir.file("whole.mkv")
        try Self.source(src)
        let cut = dir.file("short.mkv")
        try Self.cut(src, to: 100, as: cut)
        do {
            _ = try Asset.load(cut)
            Issue.record("loaded")
        } catch {
            #expect(error.kind == .notMedia)
            #expect(error.message == "not a media file FFmpeg can read: the file ends too soon (cut off?)")
            #expect(error.detail?.hasSuffix("File ended prematurely") == true, "\(error)")
        }
    }

    @Test("a read that fails at the OS level is an I/O error (74), not 'not media'")
    func realReadError() throws {
        // /proc/self/mem is a regular file whose first page is never mapped: read(2) gives EIO.
        #expect(Self.loadError("/proc/self/mem")?.withoutDetail == MediaError(.io, "cannot read: Input/output error", file: "/proc/self/mem", code: .ffmpeg(-EIO)))
        #expect(Self.loadError("/proc/self/mem")?.exitCode == 74)
    }

    @Test("only regular files are media inputs: a directory, a device and a socket fail at once with what they are")
    func notRegularFiles() throws {
        let dir = Scratch()
        // A FIFO is tested through the binary (DamageCLITests.fifo), under a time limit: opening
        // one here would block this process if the check regressed.
        #expect(throws: MediaError(.notMedia, "is a directory, not a media file", file: dir.path)) { try Asset.load(dir.path) }
        #expect(throws: MediaError(.notMedia, "is a character device, not a media file", file: "/dev/zero")) { try Asset.load("/dev/zero") }
        let sock = dir.file("s.mp4")
        try UnixSocket.bind(sock)
        #expect(throws: MediaError(.notMedia, "is a socket, not a media file", file: sock)) { try Asset.load(sock) }
        #expect(throws: MediaError(.inputMissing, "no such file", file: dir.file("none/x.mp4"), code: .errno(ENOENT))) { try Asset.load(dir.file("none/x.mp4")) }
    }
}

/// The ffmpeg command line, to remux our writer's output into what our writer does not make
/// (MPEG-TS, PCM audio).
enum FFmpegCLI {
    static let path: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func remux(_ src: String, to out: String) throws -> Bool {
        try run(["-i", src, "-c", "copy", "-f", "mpegts", out])
    }

    static func run(_ args: [String]) throws -> Bool {
        guard let path else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["-v", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

/// A bound Unix socket in the file system (left for the scratch folder's removal).
enum UnixSocket {
    struct Failed: Error {}

    static func bind(_ path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed() }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw Failed() }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw Failed() }
    }
}

extension MediaError {
    /// FFmpeg's log line names a context address that changes per run.
    var withoutDetail: MediaError { var e = self; e.detail = nil; return e }
}
