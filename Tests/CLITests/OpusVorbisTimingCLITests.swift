import Foundation
import Testing

/// Opus copied between Ogg, Matroska, WebM and MP4 keeps every packet where the source has it:
/// Ogg counts samples (granule positions, the first packet at −pre-skip), Matroska milliseconds
/// with the pre-skip stated as CodecDelay, MP4 samples behind an edit list. Vorbis coded into
/// WebM, MKV and Ogg keeps the encoder's priming packet (its decoder needs it): the sound starts at
/// 0 with the source's first sample and lasts the source's length. Each file is read back with
/// ffprobe and decoded with ffmpeg.
@Suite("Opus and Vorbis timing: copies into Ogg, Vorbis in Matroska")
struct OpusVorbisTimingCLITests {
    static let ffprobe = "/usr/bin/ffprobe", ffmpeg = "/usr/bin/ffmpeg"
    static let rate = 48000, seconds = 2

    /// 2 s of stereo sound at 48 kHz: a tone of 437 Hz (no whole number of cycles in a packet,
    /// so a shift shows) that swells, as 16-bit WAV.
    static func wav(_ dir: Scratch) throws -> String {
        let path = dir.file("src.wav")
        try tool(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*437*t)*(0.3+0.7*t/2)|0.3*sin(2*PI*611*t):s=\(rate):d=\(seconds)",
                          "-c:a", "pcm_s16le", path])
        return path
    }

    /// The WAV as Ogg Opus (libopus: 312 samples of pre-skip, the end trimmed), and that stream
    /// copied by ffmpeg into `containers`.
    static func opus(_ dir: Scratch, into containers: [String]) throws -> (opus: String, copies: [String: String]) {
        let opus = dir.file("a.opus")
        try tool(ffmpeg, ["-v", "error", "-i", try wav(dir), "-c:a", "libopus", "-b:a", "96k", opus])
        var copies: [String: String] = [:]
        for ext in containers {
            copies[ext] = dir.file("a.\(ext)")
            try tool(ffmpeg, ["-v", "error", "-i", opus, "-c", "copy"] + (ext == "mp4" ? ["-strict", "-2"] : []) + [copies[ext]!])
        }
        return (opus, copies)
    }

    static func recipe(_ dir: Scratch, output: String, codec: String) throws -> String {
        let path = dir.file("r-\(URL(fileURLWithPath: output).lastPathComponent)-\(codec).yaml")
        try """
        recipe: 1
        output: "\(output)"
        reader:
          outputs:
            a: { track: audio }
        writer:
          inputs:
            - { source: a, settings: { codec: \(codec) } }

        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs reencode's `codec` on `source` into `output`.
    static func convert(_ dir: Scratch, _ source: String, _ output: String, codec: String) throws {
        let run = try Binary.run(["run", try recipe(dir, output: output, codec: codec), "-i", source, "--progress", "none"], timeLimit: 120)
        #expect(run.status == 0, "\(source) → \(output): \(run.stderr)")
    }

    @discardableResult
    static func tool(_ path: String, _ args: [String]) throws -> String {
        let r = try Binary.runTool(path, args)
        #expect(r.status == 0, "\(path) \(args): \(r.stderr)")
        return r.stdout
    }

    /// The sound's packets as ffprobe reads them: time (in samples at 48 kHz, from the stream's
    /// time base), length in samples, size.
    static func packets(_ file: String) throws -> [String] {
        let tb = try tool(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Int64($0) }
        guard tb.count == 2 else { return ["no time base: \(tb)"] }
        return try tool(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts,duration,size", "-of", "csv=p=0", file])
            .split(separator: "\n").map { line in
                let f = line.split(separator: ",").map(String.init)
                guard f.count >= 3, let pts = Int64(f[0]), let d = Int64(f[1]) else { return String(line) }
                return "\(pts * tb[0] * Int64(rate) / tb[1]) +\(d * tb[0] * Int64(rate) / tb[1]) \(f[2])B"
            }
    }

    /// ffprobe's start and length of the file's sound.
    static func span(_ file: String) throws -> String {
        try tool(ffprobe, ["-v", "error", "-show_entries", "format=start_time,duration", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The time of the first sound the decoder gives (seconds, as ffprobe prints it), from the
    /// first packets (a Vorbis priming packet decodes to none).
    static func firstSound(_ file: String) throws -> String {
        try tool(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "frame=pts_time", "-read_intervals", "%+#4", "-of", "csv=p=0", file])
            .split(separator: "\n").first.map(String.init) ?? "none"
    }

    /// The decoded sound: the first channel's samples, 16-bit.
    static func decoded(_ file: String) throws -> [Int16] {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = ["-v", "error", "-i", file, "-map", "0:a", "-af", "pan=mono|c0=c0", "-f", "s16le", "-"]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// How far `a` is from `b` over their first `n` samples, as a share of `b`'s energy (0: the
    /// same; a 437 Hz tone shifted by a Vorbis block is about 1).
    static func difference(_ a: [Int16], _ b: [Int16], first n: Int) -> Double {
        var e = 0.0, s = 0.0
        for i in 0..<min(n, a.count, b.count) {
            let d = Double(a[i]) - Double(b[i])
            e += d * d
            s += Double(b[i]) * Double(b[i])
        }
        return s > 0 ? e / s : 1
    }

    // MARK: Opus copied

    @Test("Opus copied into Ogg from Matroska, WebM, MP4 and Ogg: the very packets of the Ogg Opus file they were made from — first at −312 (the pre-skip), the last trimmed — so the sound starts at 0 and lasts 2 s",
          arguments: ["mkv", "webm", "mp4", "opus"])
    func opusIntoOgg(_ from: String) throws {
        let dir = Scratch()
        let (opus, copies) = try Self.opus(dir, into: ["mkv", "webm", "mp4"])
        let source = copies[from] ?? opus, out = dir.file("copy-\(from).ogg")
        try Self.convert(dir, source, out, codec: "copy")
        let (ours, original) = (try Self.packets(out), try Self.packets(opus))
        #expect(original.first?.hasPrefix("-312 +960 ") == true, "\(original.prefix(2))")
        #expect(ours == original, "\(from): \(ours.prefix(3)) … \(ours.suffix(2)); the Ogg Opus file's \(original.prefix(3)) … \(original.suffix(2))")
        let (span, originalSpan) = (try Self.span(out), try Self.span(opus))
        #expect(span == originalSpan && originalSpan.hasPrefix("0.000000,"), "\(span), the Ogg Opus file's \(originalSpan)")
        #expect(try Self.firstSound(out) == "0.000000")
        let (decoded, reference) = (try Self.decoded(out), try Self.decoded(opus))
        #expect(decoded.count == Self.rate * Self.seconds && decoded == reference)
    }

    @Test("Opus copied from Ogg into Matroska and WebM: ffmpeg's copy; from Matroska and WebM into MP4: the packets of ffmpeg's copy of the Ogg Opus file, 2 s, the sound from 0")
    func opusOutOfOgg() throws {
        let dir = Scratch()
        let (opus, copies) = try Self.opus(dir, into: ["mkv", "webm", "mp4"])
        let reference = try Self.decoded(opus)
        for ext in ["mkv", "webm"] {
            let out = dir.file("from-ogg.\(ext)")
            try Self.convert(dir, opus, out, codec: "copy")
            #expect(try Self.packets(out) == Self.packets(copies[ext]!), "\(ext)")
            #expect(try Self.firstSound(out) == "0.000000", "\(ext)")
            #expect(try Self.decoded(out) == reference, "\(ext)")
        }
        for ext in ["mkv", "webm"] {
            let out = dir.file("from-\(ext).mp4")
            try Self.convert(dir, copies[ext]!, out, codec: "copy")
            #expect(try Self.packets(out) == Self.packets(opus), "\(ext) → mp4")
            #expect(try Self.packets(out) == Self.packets(copies["mp4"]!), "\(ext) → mp4")
            #expect(try PlanTruthCLITests.probe(out, "a:0", "duration")["duration"] == "2.000000")
            #expect(try Self.firstSound(out) == "0.000000", "\(ext) → mp4")
            // FFmpeg 5.1 decodes an MP4's last Opus packet whole (its own copy too): 2 s, then
            // the rest of that packet.
            let decoded = try Self.decoded(out)
            #expect(decoded == (try Self.decoded(copies["mp4"]!)) && Array(decoded.prefix(reference.count)) == reference, "\(ext) → mp4: \(decoded.count) samples")
        }
    }

    @Test("plan of a Matroska Opus source: its range starts where its sound starts (0), not at the pre-skip's first block (−7 ms)")
    func matroskaStart() throws {
        let dir = Scratch()
        let (_, copies) = try Self.opus(dir, into: ["mkv"])
        let plan = try Binary.run(["plan", try Self.recipe(dir, output: dir.file("x.ogg"), codec: "copy"), "-i", copies["mkv"]!])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("\nrange    [0.000s, 2.008s)"), "\(plan.stdout)")
    }

    // MARK: Vorbis coded

    @Test("Vorbis coded into WebM, MKV and Ogg: the first sound at 0 is the source's first, the decoded length the source's within one Vorbis block (Ogg: to the sample)",
          arguments: ["webm", "mkv", "ogg"])
    func vorbis(_ ext: String) throws {
        let dir = Scratch()
        let src = try Self.wav(dir), out = dir.file("vorbis.\(ext)")
        try Self.convert(dir, src, out, codec: "vorbis")
        #expect(try PlanTruthCLITests.probe(out, "a:0", "codec_name")["codec_name"] == "vorbis")
        #expect(try Self.firstSound(out) == "0.000000")
        let (decoded, source) = (try Self.decoded(out), try Self.decoded(src))
        #expect(source.count == Self.rate * Self.seconds)
        // One long Vorbis block (2048) makes 1024 samples: Matroska states no end trim, so the
        // last block's padding plays (less than a block); Ogg's last granule position trims it.
        if ext == "ogg" {
            #expect(decoded.count == source.count)
        } else {
            #expect(decoded.count >= source.count && decoded.count < source.count + 1024, "\(decoded.count) samples")
        }
        // In place: the first 100 ms are the source's (a block lost or moved is a tone out of phase).
        let off = Self.difference(decoded, source, first: Self.rate / 10)
        #expect(off < 0.01, "\(ext): \(off)")
        let duration = try #require(Double(try Self.span(out).split(separator: ",").last.map(String.init) ?? ""))
        #expect(abs(duration - Double(Self.seconds)) < 1024.0 / Double(Self.rate), "\(duration) s")
    }
}
