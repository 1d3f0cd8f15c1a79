import Foundation
import Pipeline
import Recipe
import Testing

/// Vorbis's bit rates by channels and rate (the codec table's `bitrateLimits`): libvorbis opens
/// only from a floor that depends on both, so a poor source's derived bit rate is raised to it,
/// and `plan` says why; a bit rate the recipe writes below it is refused at its line, naming the
/// floor. MOV does not hold Vorbis (no QuickTime player plays FFmpeg's 'msVo' track): the table,
/// plan's containers line and the writer agree.
@Suite("Vorbis: bit rate floors, and no Vorbis in MOV")
struct VorbisLimitsCLITests {
    /// 3 s of a 24 kb/s AAC track of `channels` at `rate`, a tone that moves (something to code).
    static func source(_ dir: Scratch, channels: Int, rate: Int) throws -> String {
        let path = dir.file("src-\(channels)ch-\(rate).m4a")
        var a = GeneratedAudioFormat(sampleRate: rate, channels: channels)
        a.bitrate = 24_000
        let s = try FrameSource(path: path, video: nil, audio: a)
        try s.appendAudio(count: rate * 3) { c, n in Float(sin(Double(n) * (0.05 + 0.02 * Double(c)) + sin(Double(n) * 0.0007) * 9)) * 0.3 }
        try s.finish()
        return path
    }

    static func recipe(_ dir: Scratch, ext: String, settings: String = "{ codec: vorbis }", name: String = "r.yaml") throws -> String {
        try NegotiationCLITests.recipe(dir, """
        recipe: 1
        output: "{dir}/{stem}-x.\(ext)"
        reader:
          outputs:
            a: { track: audio }
        writer:
          inputs:
            - { source: a, settings: \(settings) }

        """, name: name)
    }

    /// (channels, rate, container, Vorbis's floor there).
    static let poor: [(Int, Int, String, Int)] = [(1, 44100, "ogg", 32000), (2, 44100, "webm", 45000), (1, 48000, "webm", 32000), (2, 22050, "ogg", 30000)]

    @Test("a 24 kb/s source into Ogg and WebM Vorbis: the bit rate raised to the floor with the reason and a notice; the output is Vorbis at that rate and decodes clean",
          arguments: poor.indices)
    func raised(_ i: Int) throws {
        let (channels, rate, ext, floor) = Self.poor[i]
        let dir = Scratch()
        let src = try Self.source(dir, channels: channels, rate: rate)
        let recipe = try Self.recipe(dir, ext: ext)
        let sound = "\(channels == 1 ? "mono" : "stereo") at \(rate == 44100 ? "44.1" : rate == 22050 ? "22.05" : "\(rate / 1000)") kHz"
        let sourceRate = try #require(Int(try PlanTruthCLITests.probe(src, "a:0", "bit_rate")["bit_rate"] ?? ""))
        #expect(sourceRate < floor)
        let plan = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("\n  bitrate         \(floor)        audio-bitrate.encoder-floor: audio-bitrate.source's \(kbps(sourceRate)) is below the least libvorbis codes \(sound) at: raised to it\n"),
                "\(plan.stdout)")
        let notice = "track #0: the sound is coded at \(kbps(floor)), more than its settings give it: libvorbis codes no less for \(sound)\n"
        #expect(plan.stdout.contains("\nwarning: " + notice), "\(plan.stdout)")
        let run = try Binary.run(["run", recipe, "-i", src, "--progress", "none"], timeLimit: 60)
        #expect(run.status == 0 && run.stderr.contains("warning: \(src): " + notice), "\(run.stderr)")
        let out = dir.file("src-\(channels)ch-\(rate)-x.\(ext)")
        let probed = try PlanTruthCLITests.probe(out, "a:0", "codec_name,channels,sample_rate")
        #expect(probed == ["codec_name": "vorbis", "channels": "\(channels)", "sample_rate": "\(rate)"], "\(probed)")
        if ext == "ogg" {
            // Ogg's Vorbis identification header states the average the encoder aimed at (Matroska none).
            #expect(try PlanTruthCLITests.probe(out, "a:0", "bit_rate")["bit_rate"] == "\(floor)")
        }
        // What the packets hold: what ffmpeg's libvorbis codes at the floor (its average rate
        // control spends less on a plain tone), which it refuses to open at the source's rate.
        let theirs = dir.file("ffmpeg.\(ext)")
        try InterlacedCLITests.ffmpeg(["-i", src, "-c:a", "libvorbis", "-b:a", "\(floor)", theirs])
        let (ours, reference) = (Double(try Self.packetBytes(out)), Double(try Self.packetBytes(theirs)))
        #expect(reference > 0 && abs(ours - reference) / reference < 0.1, "\(ours) bytes, ffmpeg's \(reference)")
        #expect(try !Self.opens(src, bitrate: sourceRate, ext: ext))
        // It decodes clean, 3 s long (within a Vorbis block of 2048 samples).
        let decoded = try Self.decodeErrors(out)
        #expect(abs(decoded.samples - rate * 3) <= 2048 && decoded.errors == "", "\(decoded)")
    }

    @Test("a recipe's own bitrate below the floor: plan refuses it at its line:col naming the floor for the source's sound (65), run writes nothing; validate refuses only what no source could take")
    func refused() throws {
        let dir = Scratch()
        let stereo = try Self.source(dir, channels: 2, rate: 44100), mono = try Self.source(dir, channels: 1, rate: 22050)
        let recipe = try Self.recipe(dir, ext: "ogg", settings: "{ codec: vorbis, bitrate: 24k }")
        let plan = try Binary.run(["plan", recipe, "-i", stereo], timeLimit: 60)
        #expect(plan.status == 65, "\(plan.stderr)")
        #expect(plan.stderr.split(separator: "\n").first.map(String.init)
                == "\(recipe):8:47: error: 'bitrate' for Vorbis stereo at 44.1 kHz must be at least 45 kb/s (the least libvorbis opens at), not 24 kb/s", "\(plan.stderr)")
        let run = try Binary.run(["run", recipe, "-i", stereo, "--progress", "none"], timeLimit: 60)
        #expect(run.status == 65 && !FileManager.default.fileExists(atPath: dir.file("src-2ch-44100-x.ogg")), "\(run.stderr)")
        // A mono 22.05 kHz source takes 24 kb/s: the recipe is valid, and its output is made.
        #expect(try Binary.run(["validate", recipe], timeLimit: 60).status == 0)
        let fits = try Binary.run(["run", recipe, "-i", mono, "--progress", "none", "--quiet"], timeLimit: 60)
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(try PlanTruthCLITests.probe(dir.file("src-1ch-22050-x.ogg"), "a:0", "bit_rate")["bit_rate"] == "24000")
        // No source takes 4 kb/s; none takes 24 kb/s as stereo at 48 kHz.
        for (k, (settings, at, message)) in [
            ("{ codec: vorbis, bitrate: 4k }", "8:47", "'bitrate' for Vorbis mono at 8 kHz must be at least 8 kb/s (the least libvorbis opens at), not 4 kb/s"),
            ("{ codec: vorbis, bitrate: 24k, channel-layout: stereo, sample-rate: 48000 }", "8:47",
             "'bitrate' for Vorbis stereo at 48 kHz must be at least 45 kb/s (the least libvorbis opens at), not 24 kb/s"),
        ].enumerated() {
            let r = try Self.recipe(dir, ext: "ogg", settings: settings, name: "r\(k).yaml")
            let v = try Binary.run(["validate", r], timeLimit: 60)
            #expect(v.status == 65, "\(v.stderr)")
            #expect(v.stderr.split(separator: "\n").first.map(String.init) == "\(r):\(at): error: \(message)", "\(v.stderr)")
        }
    }

    static let movRefusal = "writer input 1 encodes the audio track ('a') as Vorbis (codec vorbis), but a mov file does not hold it: "
        + "FFmpeg stores it under a Windows audio tag ('msVo') that QuickTime and Apple's players do not play"

    @Test("Vorbis and MOV: plan's containers line leaves out mov; validate, plan and run -o x.mov refuse it at the codec (65), nothing written; mkv holds it")
    func notInMOV() throws {
        let dir = Scratch()
        let src = try Self.source(dir, channels: 2, rate: 48000)
        let mkv = try Self.recipe(dir, ext: "mkv", settings: "{ codec: vorbis, bitrate: 64k }")
        let plan = try Binary.run(["plan", mkv, "-i", src], timeLimit: 60)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("\ncontainers mp4, mkv (this output's), webm, ogg hold these tracks; not mov, m4a, flac, opus, wav (track 1: vorbis audio)\n"), "\(plan.stdout)")
        let mov = try Self.recipe(dir, ext: "mov", settings: "{ codec: vorbis, bitrate: 64k }", name: "mov.yaml")
        for command in [["validate", mov], ["plan", mov, "-i", src], ["run", mov, "-i", src, "--progress", "none"]] {
            let r = try Binary.run(command, timeLimit: 60)
            #expect(r.status == 65, "\(command[0]): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(mov):8:32: error: \(Self.movRefusal)", "\(command[0]): \(r.stderr)")
        }
        // The output path given on the command line: the same refusal, at the codec.
        let out = dir.file("given.mov")
        let given = try Binary.run(["run", mkv, "-i", src, "-o", out, "--progress", "none"], timeLimit: 60)
        #expect(given.status == 65, "\(given.stderr)")
        #expect(given.stderr.contains("\(Self.movRefusal)"), "\(given.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out) && !FileManager.default.fileExists(atPath: dir.file("src-2ch-48000-x.mov")))
        let made = try Binary.run(["run", mkv, "-i", src, "--progress", "none", "--quiet"], timeLimit: 60)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try PlanTruthCLITests.probe(dir.file("src-2ch-48000-x.mkv"), "a:0", "codec_name")["codec_name"] == "vorbis")
    }

    /// Whether ffmpeg's libvorbis opens at `bitrate` for `src`'s sound (an ffmpeg that cannot be
    /// run throws: the refusal it stands for is then not taken as proven).
    static func opens(_ src: String, bitrate: Int, ext: String) throws -> Bool {
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "quiet", "-i", src, "-c:a", "libvorbis", "-b:a", "\(bitrate)",
                                                         "-f", ext == "ogg" ? "ogg" : "webm", "-y", "/dev/null"])
        return r.status == 0
    }

    /// The bytes of every audio packet (what the sound costs, without the container's pages).
    static func packetBytes(_ file: String) throws -> Int {
        let p = Process(), pipe = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "csv=p=0", file]
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    /// Decodes `file` to raw samples with ffmpeg: how many per channel, and what it complained of.
    static func decodeErrors(_ file: String) throws -> (samples: Int, errors: String) {
        let p = Process(), out = Pipe(), err = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-i", file, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"]
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile(), errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (data.count / 2, String(decoding: errors, as: UTF8.self))
    }
}
