import Foundation
import Pipeline
import Recipe
import Testing

/// `loudness:` through `run` and `plan`, and `inspect --loudness`, each checked by a second
/// meter: ffmpeg's `ebur128` filter (peak=true) on the output. Sources are made with the
/// project's writer: quiet speech-like syllables, loud music-like chords that the true-peak
/// ceiling limits, and 5.1.
@Suite("Loudness normalisation and inspect --loudness", .serialized)
struct LoudnessCLITests {
    /// ffmpeg's ebur128 summary of `file`'s first audio track: integrated LUFS, true peak dBTP, LRA.
    static func ebur128(_ file: String) throws -> (integrated: Double, truePeak: Double, range: Double) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-nostats", "-hide_banner", "-i", file, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard let summary = text.range(of: "Summary:") else { throw MediaError(.processing, "no ebur128 summary: \(text.suffix(500))") }
        let tail = text[summary.upperBound...]
        func value(_ label: String) throws -> Double {
            guard let r = tail.range(of: label) else { throw MediaError(.processing, "no \(label) in \(tail)") }
            let number = tail[r.upperBound...].drop { $0 == " " }.prefix { "-+.0123456789".contains($0) || $0 == "i" || $0 == "n" || $0 == "f" }
            return Double(number) ?? -.infinity
        }
        return (try value("I:"), try value("Peak:"), try value("LRA:"))
    }

    /// An audio-only file of `seconds` at 48 kHz: `sample(channel, n)` in each of `channels`.
    static func source(_ path: String, channels: Int = 2, seconds: Double, sample: @escaping (Int, Int64) -> Float) throws {
        let s = try FrameSource(path: path, video: nil, audio: GeneratedAudioFormat(sampleRate: 48000, channels: channels))
        let total = Int(seconds * 48000)
        var done = 0
        while done < total {
            let n = min(4800, total - done)
            let from = Int64(done)
            try s.appendAudio(count: n) { ch, i in sample(ch, from + i) }
            done += n
        }
        try s.finish()
    }

    /// Quiet speech-like sound: 180 ms "syllables" of a 140 Hz voice with two formants, 120 ms apart.
    static func speech(_ ch: Int, _ n: Int64) -> Float {
        let t = Double(n) / 48000
        let phase = t.truncatingRemainder(dividingBy: 0.3)
        guard phase < 0.18 else { return 0 }
        let envelope = sin(Double.pi * phase / 0.18)
        let syllable = Int(t / 0.3)
        let f0 = 140.0 + Double(syllable % 5) * 8
        var v = 0.0
        for h in 1...12 {
            let f = f0 * Double(h)
            let formant = exp(-pow((f - 600) / 300, 2)) + 0.6 * exp(-pow((f - 1500) / 400, 2)) + 0.05
            v += formant * sin(2 * Double.pi * f * t)
        }
        return Float(0.012 * envelope * v)
    }

    /// Loud music-like sound: a chord with harmonics and a beat, peaks near -4 dBFS.
    static func music(_ ch: Int, _ n: Int64) -> Float {
        let t = Double(n) / 48000
        var v = 0.0
        for (k, f) in [220.0, 277.18, 329.63, 440.0].enumerated() {
            v += sin(2 * Double.pi * f * t + Double(k + ch)) + 0.3 * sin(4 * Double.pi * f * t)
        }
        let beat = 0.7 + 0.3 * sin(2 * Double.pi * 2 * t)
        return Float(0.12 * beat * v)
    }

    static func recipe(_ dir: Scratch, ext: String, audio: String, video: Bool = false) throws -> String {
        try NegotiationCLITests.recipe(dir, """
            recipe: 1
            output:
              path: "{dir}/{stem}-out.\(ext)"
            reader:
              outputs:
                a: { track: audio }
            \(video ? "    v: { track: video }\n" : "")writer:
              inputs:
                - { source: a, settings: \(audio) }
            \(video ? "    - { source: v, settings: { loudness: { integrated: -16 } } }\n" : "")
            """)
    }

    /// Runs `recipe` on `src`: the result and the output.
    static func run(_ recipe: String, _ src: String, ext: String) throws -> (Binary.Result, String) {
        let out = (src as NSString).deletingPathExtension + "-out.\(ext)"
        try? FileManager.default.removeItem(atPath: out)
        return (try Binary.run(["run", recipe, "-i", src, "--progress", "none"], timeLimit: 300), out)
    }

    @Test("quiet speech-like stereo into AAC: -16 LUFS within 0.5 LU by ffmpeg's ebur128, true peak under -1 dBTP; plan shows measured, target and gain")
    func speechAAC() throws {
        let dir = Scratch()
        let src = dir.file("speech.m4a")
        try Self.source(src, seconds: 12, sample: Self.speech)
        let before = try Self.ebur128(src)
        #expect(before.integrated < -30, "the source is quiet: \(before)")
        let recipe = try Self.recipe(dir, ext: "m4a", audio: "{ codec: aac, bitrate: 128k, loudness: { integrated: -16 LUFS, true-peak: -1 dBTP } }")
        let plan = try Binary.run(["plan", recipe, "-i", src, "--json", "--estimate", "fast"], timeLimit: 300)
        #expect(plan.status == 0, "\(plan.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let track = (json?["tracks"] as? [[String: Any]])?.first
        let loudness = try #require(track?["loudness"] as? [String: Any])
        #expect(loudness["target"] as? Double == -16 && loudness["truePeakCeiling"] as? Double == -1)
        let measured = try #require(loudness["measured"] as? Double), gain = try #require(loudness["gain"] as? Double)
        #expect(abs(measured - before.integrated) <= 0.1, "plan measured \(measured), ffmpeg \(before.integrated)")
        #expect(abs(gain - (-16 - measured)) < 1e-9 && loudness["peakLimited"] as? Bool == false)
        let text = try Binary.run(["plan", recipe, "-i", src, "--estimate", "fast"], timeLimit: 300)
        #expect(text.stdout.contains("  loudness        -16 LUFS     recipe: true peak at most -1 dBTP\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  loudness-gain   +\(LoudnessTarget.decibels(gain)) dB"), "\(text.stdout)")
        #expect(text.stdout.contains("loudness.measured: measured \(LoudnessTarget.decibels(measured)) LUFS integrated"), "\(text.stdout)")

        let (r, out) = try Self.run(recipe, src, ext: "m4a")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("loudness"), "\(r.stderr)")
        let after = try Self.ebur128(out)
        #expect(abs(after.integrated + 16) <= 0.5, "\(after)")
        #expect(after.truePeak <= -1, "\(after)")
    }

    @Test("loud music-like stereo into FLAC: the ceiling limits the gain, the warning says so exactly; the output's loudness is what it says, its true peak under the ceiling")
    func musicPeakLimitedFLAC() throws {
        let dir = Scratch()
        let src = dir.file("music.m4a")
        try Self.source(src, seconds: 10, sample: Self.music)
        let recipe = try Self.recipe(dir, ext: "mkv", audio: "{ codec: flac, loudness: { integrated: -9, true-peak: -1.5 } }")
        let (r, out) = try Self.run(recipe, src, ext: "mkv")
        #expect(r.status == 0, "\(r.stderr)")
        let source = try Self.ebur128(src)
        let lines = r.stderr.split(separator: "\n").map(String.init).filter { $0.contains("loudness") }
        #expect(lines == ["warning: \(src): " + Self.expectedWarning], "\(r.stderr) (source by ffmpeg: \(source))")
        let after = try Self.ebur128(out)
        #expect(after.truePeak <= -1.5, "\(after)")
        // What the warning says it gives.
        #expect(abs(after.integrated - Self.limitedResult) <= 0.5, "\(after)")
        let plan = try Binary.run(["plan", recipe, "-i", src, "--estimate", "fast"], timeLimit: 300)
        // plan names no file: its warnings are all of this source.
        #expect(plan.stdout.contains("\nwarning: " + Self.expectedWarning), "\(plan.stdout)")
    }

    @Test("loud music-like stereo into AAC, peak-limited: the plan encodes to find AAC's overshoot, the warning says it; ffmpeg reads the decoded true peak under the ceiling")
    func musicPeakLimitedAAC() throws {
        let dir = Scratch()
        let src = dir.file("music.m4a")
        try Self.source(src, seconds: 10, sample: Self.music)
        let recipe = try Self.recipe(dir, ext: "m4a", audio: "{ codec: aac, bitrate: 128k, loudness: { integrated: -9, true-peak: -1 } }")
        let (r, out) = try Self.run(recipe, src, ext: "m4a")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init).filter { $0.contains("loudness") }
        #expect(lines == ["warning: \(src): " + Self.expectedAACWarning], "\(r.stderr)")
        let after = try Self.ebur128(out)
        #expect(after.truePeak <= -1, "\(after)")
        #expect(abs(after.integrated - Self.limitedAACResult) <= 0.5, "\(after)")
    }

    static let limitedAACResult = -11.7
    /// The first gain (+5.4 dB, the measured peak at the ceiling) encoded overshoots by 1.1 dB.
    static let expectedAACWarning = "track #0: the loudness target -9 LUFS cannot be reached without the true peak exceeding -1 dBTP: the gain is +4.3 dB, giving -11.7 LUFS (1.1 dB less than the ceiling allows: the encoded sound's true peak overshoots)"

    static let limitedResult = -11.1
    static let expectedWarning = "track #0: the loudness target -9 LUFS cannot be reached without the true peak exceeding -1.5 dBTP: the gain is +4.9 dB, giving -11.1 LUFS"

    @Test("5.1 into FLAC (six channels kept, surrounds weighted, LFE left out) and into AAC (downmixed to stereo, measured after the downmix): -23 and -18 LUFS within 0.5 LU")
    func surround() throws {
        let dir = Scratch()
        let src = dir.file("surround.m4a")
        try Self.source(src, channels: 6, seconds: 8) { ch, n in
            let t = Double(n) / 48000
            let f = [330.0, 440.0, 550.0, 50.0, 660.0, 770.0][ch]
            return Float((ch == 3 ? 0.3 : 0.05) * sin(2 * Double.pi * f * t) * (0.8 + 0.2 * sin(2 * Double.pi * 0.5 * t)))
        }
        let before = try Self.ebur128(src)
        for (ext, audio, target) in [("mkv", "{ codec: flac, loudness: { integrated: -23 LUFS } }", -23.0), ("m4a", "{ codec: aac, loudness: { integrated: -18 LUFS } }", -18.0)] {
            let recipe = try Self.recipe(dir, ext: ext, audio: audio)
            let (r, out) = try Self.run(recipe, src, ext: ext)
            #expect(r.status == 0, "\(r.stderr)")
            let after = try Self.ebur128(out)
            #expect(abs(after.integrated - target) <= 0.5, "\(ext): \(after), the source \(before)")
            #expect(after.truePeak <= -1, "\(ext): \(after)")
        }
    }

    @Test("the time range is what is measured: a quiet first half left out, the gain is the loud half's, and the output lands on the target")
    func timeRange() throws {
        let dir = Scratch()
        let src = dir.file("halves.m4a")
        // 6 s of a 1 kHz sine at -40 dBFS, then 6 s at -20 dBFS (stereo: -40 and -20 LUFS).
        try Self.source(src, seconds: 12) { _, n in
            let t = Double(n) / 48000
            return Float(pow(10, (t < 6 ? -40 : -20) / 20) * sin(2 * Double.pi * 1000 * t))
        }
        let recipe = try NegotiationCLITests.recipe(dir, """
            recipe: 1
            session:
              time-range: { start: 6s }
            output:
              path: "{dir}/{stem}-out.m4a"
            reader:
              outputs:
                a: { track: audio }
            writer:
              inputs:
                - { source: a, settings: { codec: aac, loudness: { integrated: -23 } } }
            """)
        let plan = try Binary.run(["plan", recipe, "-i", src, "--json", "--estimate", "fast"], timeLimit: 300)
        let json = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
        let loudness = try #require(((json?["tracks"] as? [[String: Any]])?.first)?["loudness"] as? [String: Any], "\(plan.stderr)")
        let measured = try #require(loudness["measured"] as? Double)
        #expect(abs(measured + 20) <= 0.2, "measured \(measured): the loud half alone")
        let (r, out) = try Self.run(recipe, src, ext: "m4a")
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.ebur128(out)
        #expect(abs(after.integrated + 23) <= 0.5, "\(after)")
    }

    @Test("a composition: 'loudness' is refused at its line (65) by plan and run, nothing written")
    func composition() throws {
        let dir = Scratch()
        try MixInputCLITests.clip(dir.file("a.mp4"), base: 0, sound: true)
        try MixInputCLITests.clip(dir.file("b.mp4"), base: 100, sound: true)
        try """
            recipe: 1
            output: out.mp4
            sources:
              a: a.mp4
              b: b.mp4
            composition:
              video:
                - { source: a }
                - { source: b }
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            writer:
              inputs:
                - { source: picture, settings: h264-640x480 }
                - { source: sound, settings: { codec: aac, loudness: { integrated: -16 } } }
            """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, "r.yaml"] + (command == "run" ? ["--progress", "none"] : []), timeLimit: 120, cwd: dir.path)
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("r.yaml:17:48: error: 'loudness' is not measured in a composition yet (its sound is cut, mixed and faded from several files): normalise each file on its own first"), "\(command): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
        }
    }

    @Test("a silent track gets no gain and a note")
    func silence() throws {
        let dir = Scratch()
        let src = dir.file("silent.m4a")
        try Self.source(src, seconds: 3) { _, _ in 0 }
        let recipe = try Self.recipe(dir, ext: "m4a", audio: "{ codec: aac, loudness: { integrated: -16 } }")
        let (r, _) = try Self.run(recipe, src, ext: "m4a")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(": track #0: 'loudness' leaves the sound as it is: it is silent (below the -70 LUFS gate), so there is no loudness to bring to -16 LUFS\n"), "\(r.stderr)")
    }

    @Test("refusals at their line:col, exit 65, nothing written: a target out of range, a ceiling out of range, no target, a copied track, a video track")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src, seconds: 1, width: 320, height: 240)
        let cases: [(String, Bool, String)] = [
            ("{ codec: aac, loudness: { integrated: -80 LUFS } }", false, "9:68: error: 'integrated' must be a level from -70 to 0 LUFS (like -16 LUFS), not '-80 LUFS'"),
            ("{ codec: aac, loudness: { integrated: 3 } }", false, "9:68: error: 'integrated' must be a level from -70 to 0 LUFS (like -16 LUFS), not '3'"),
            ("{ codec: aac, loudness: { integrated: -16, true-peak: -12 dBTP } }", false, "9:84: error: 'true-peak' must be a level from -9 to 0 dBTP (like -1 dBTP), not '-12 dBTP'"),
            ("{ codec: aac, loudness: { true-peak: -1 } }", false, "9:54: error: 'loudness' needs 'integrated', the loudness to bring the sound to (-16 LUFS, -23 LUFS)"),
            ("{ codec: copy, loudness: { integrated: -16 } }", false, "9:45: error: writer input 1 copies the audio track ('a'), but 'loudness' needs its sound decoded to measure and gain it: leave out 'loudness' or encode the track"),
            ("{ codec: aac }", true, "11:32: error: the settings of writer input 2 sets 'loudness', an audio setting, but writer input 2 reads a video track ('v')"),
        ]
        for (audio, video, message) in cases {
            let recipe = try Self.recipe(dir, ext: "mp4", audio: audio, video: video)
            for command in ["validate", "plan", "run"] {
                let out = dir.file("clip-out.mp4")
                let args = command == "run" ? ["run", recipe, "-i", src, "--progress", "none"] : command == "plan" ? ["plan", recipe, "-i", src] : ["validate", recipe]
                let r = try Binary.run(args, timeLimit: 120)
                #expect(r.status == 65, "\(command) \(audio): \(r.stderr)")
                #expect(r.stderr.contains(message), "\(command) \(audio): \(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out))
            }
        }
    }

    @Test("inspect --loudness: each audio track's integrated loudness within 0.1 LU of ffmpeg's ebur128, its true peak and range near ffmpeg's; in --help")
    func inspect() throws {
        let dir = Scratch()
        for (name, channels, sample) in [("speech.m4a", 2, Self.speech), ("music.m4a", 2, Self.music)] as [(String, Int, (Int, Int64) -> Float)] {
            let src = dir.file(name)
            try Self.source(src, channels: channels, seconds: 10, sample: sample)
            let r = try Binary.run(["inspect", "--loudness", "--json", src], timeLimit: 120)
            #expect(r.status == 0, "\(r.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            let track = try #require((json?["loudness"] as? [[String: Any]])?.first)
            let ffmpeg = try Self.ebur128(src)
            let integrated = try #require(track["integrated"] as? Double), peak = try #require(track["truePeak"] as? Double)
            #expect(abs(integrated - ffmpeg.integrated) <= 0.1, "\(name): \(integrated) vs \(ffmpeg)")
            #expect(abs(peak - ffmpeg.truePeak) <= 0.5, "\(name): \(peak) vs \(ffmpeg)")
            if let range = track["range"] as? Double { #expect(abs(range - ffmpeg.range) <= 1, "\(name): LRA \(range) vs \(ffmpeg)") }
            let text = try Binary.run(["inspect", "--loudness", src], timeLimit: 120)
            #expect(text.stdout.contains("  track #0  integrated \(String(format: "%.1f", integrated)) LUFS"), "\(text.stdout)")
        }
        let help = try Binary.run(["inspect", "--help"])
        #expect(help.stdout.contains("--loudness"))
    }
}
